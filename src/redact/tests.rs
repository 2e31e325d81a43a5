use super::home::*;
use super::installed::*;
use super::names::*;
use super::redactor::*;
use super::rules::*;
use proptest::prelude::*;
use serde_json::json;
use std::collections::BTreeSet;

/// A watched home's rule file edited where no directory watch sees it (through a symlink,
/// or through another hard link) still reloads the redactor on the next write.
#[test]
fn a_watched_rule_file_edited_through_a_symlink_or_a_hard_link_is_reloaded() {
    watch_sources();
    let dir = tempfile::tempdir().unwrap();
    let (home, elsewhere) = (dir.path().join("home"), dir.path().join("elsewhere"));
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&elsewhere).unwrap();
    let target = elsewhere.join("rules");
    std::fs::write(&target, "alpha-[0-9]{3}\n").unwrap();
    std::os::unix::fs::symlink(&target, home.join("redact.rules")).unwrap();
    let masked = |s: &str| for_root(&home).unwrap().redact_str(s).into_owned();
    assert_eq!(masked("alpha-123 beta-456"), "[REDACTED] beta-456");
    assert_eq!(
        masked("beta-456"),
        "beta-456",
        "a quiet watch keeps the redactor"
    );
    std::fs::write(&target, "alpha-[0-9]{3}\nbeta-[0-9]{3}\n").unwrap();
    assert_eq!(
        masked("beta-456"),
        "[REDACTED]",
        "edited through the symlink"
    );
    let link = elsewhere.join("hard");
    std::fs::remove_file(home.join("redact.rules")).unwrap();
    std::fs::hard_link(&target, home.join("redact.rules")).unwrap();
    std::fs::hard_link(&target, &link).unwrap();
    assert_eq!(masked("gamma-789"), "gamma-789");
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&link)
        .unwrap();
    std::io::Write::write_all(&mut f, b"gamma-[0-9]{3}\n").unwrap();
    drop(f);
    assert_eq!(
        masked("gamma-789"),
        "[REDACTED]",
        "edited through another link"
    );
}

fn red(s: &str) -> String {
    Redactor::default().redact_str(s).into_owned()
}

#[test]
fn every_shipped_rule_compiles_and_only_path_rules_are_skipped() {
    let skipped = skipped_rules();
    let ids: Vec<&str> = skipped.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "freemius-secret-key",
            "hashicorp-tf-password",
            "kubernetes-secret-yaml",
            "nuget-config-password",
            "pkcs12-file"
        ],
        "{skipped:#?}"
    );
    assert!(rule_count() > 200, "{}", rule_count());
    for r in &RuleSet::get().rules {
        assert!(r.regex().is_some(), "{}", r.id);
        for a in &r.allow {
            for p in a.patterns {
                assert!(compile(p).is_ok(), "{}: {:?}", r.id, compile(p).err());
            }
        }
    }
    for a in &RuleSet::get().global {
        assert_eq!(a.regexes().len(), a.patterns.len());
    }
}

#[test]
fn provider_keys_bearer_and_url_passwords_are_masked() {
    let s = "key sk-proj-abcdefghijklmnopqrstuvwx and Authorization: Bearer abc.def.ghi123 at https://bob:hunter22@example.com/x";
    let out = red(s);
    assert!(!out.contains("abcdefghijklmnop"), "{out}");
    assert!(!out.contains("abc.def.ghi123"), "{out}");
    assert!(!out.contains("hunter22"), "{out}");
    assert!(
        out.contains("Bearer [REDACTED]") && out.contains("https://bob:[REDACTED]@example.com"),
        "{out}"
    );
}

#[test]
fn plain_urls_are_untouched() {
    assert_eq!(red("http://127.0.0.1:8080/v1"), "http://127.0.0.1:8080/v1");
    assert_eq!(
        red("see https://example.com/a@b"),
        "see https://example.com/a@b"
    );
    assert_eq!(
        red("ftp://u:secret@h and http://x/"),
        "ftp://u:[REDACTED]@h and http://x/"
    );
}

#[test]
fn the_misses_of_issue_11_are_masked_with_their_context() {
    let cases = [
        (
            "login password=s3cr3t-pw now",
            "login password=[REDACTED] now",
        ),
        ("passwd: letmein99", "passwd: [REDACTED]"),
        ("mysql -u root pwd=abc123", "mysql -u root pwd=[REDACTED]"),
        (
            "export DB_PASSWORD=hunter2",
            "export DB_PASSWORD=[REDACTED]",
        ),
        (
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "aws_secret_access_key = [REDACTED]",
        ),
        (
            "Authorization: Basic dXNlcjpodW50ZXIy",
            "Authorization: Basic [REDACTED]",
        ),
        (
            "curl -H 'basic YWxpY2U6cGFzc3dvcmQ='",
            "curl -H 'basic [REDACTED]'",
        ),
        (
            r#"{"secretKey": "k-9f8e7d"}"#,
            r#"{"secretKey": "[REDACTED]"}"#,
        ),
        ("apiKey=abc123xyz", "apiKey=[REDACTED]"),
        ("accessToken: tok-123", "accessToken: [REDACTED]"),
        ("clientSecret='cs 42'", "clientSecret='[REDACTED]'"),
        ("x-api-key: xk-777", "x-api-key: [REDACTED]"),
        (
            "GET https://api.example.com/v1?api_key=k123&q=cats&token=t456",
            "GET https://api.example.com/v1?api_key=[REDACTED]&q=cats&token=[REDACTED]",
        ),
        (
            r#"{\"password\":\"in-a-string\"}"#,
            r#"{\"password\":\"[REDACTED]\"}"#,
        ),
    ];
    for (input, want) in cases {
        assert_eq!(red(input), want, "input: {input}");
    }
}

#[test]
fn non_ascii_text_is_cut_on_character_boundaries() {
    assert_eq!(
        red("mot de passe: password=pässwörd1 ok — ünïcödé"),
        "mot de passe: password=[REDACTED] ok — ünïcödé"
    );
    assert_eq!(red("é token=é1 é"), "é token=[REDACTED] é");
}

#[test]
fn ordinary_text_is_left_alone() {
    for s in [
        "basic authentication is disabled",
        "the token_count is 5; max_tokens=100",
        "a keyboard and a monkey",
        "bypass=1 compass: north",
        "see https://example.com/path?q=1&page=2",
        "sha 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
        "password=[REDACTED]",
    ] {
        assert_eq!(red(s), s);
    }
}

#[test]
fn gitleaks_rules_mask_only_the_secret_group() {
    // The gitleaks `slack-bot-token` and `anthropic-api-key` rules.
    let bot = "xoxb-1234567890-1234567890123-abcdefghijABCDEFGHIJklmn";
    assert_eq!(red(&format!("tok {bot} end")), "tok [REDACTED] end");
    let ant = format!("sk-ant-api03-{}AA", "a1B2c3D4e5".repeat(9) + "a1B");
    assert!(!red(&ant).contains("a1B2c3D4e5"));
}

#[test]
fn secret_named_fields_camel_case_and_json_in_strings() {
    let mut r = Redactor::default();
    r.add_literal("canary-value-123");
    let mut v = json!({
        "input": {"token": "t0", "note": "x canary-value-123 y", "list": ["ghp_0123456789abcdefghijklmnopqrstuvwxyz"]},
        "secretKey": "sk1", "accessToken": "at1", "x-api-key": "xk1", "clientSecret": "cs1",
        "max_tokens": 5, "token_count": "7",
        "args": "{\"db\": {\"password\": \"pw1\"}, \"n\": 1}",
        "ok": 1
    });
    let paths = r.redact_value(&mut v, "payload");
    assert_eq!(
        paths,
        vec![
            "payload.input.token",
            "payload.input.note",
            "payload.input.list[0]",
            "payload.secretKey",
            "payload.accessToken",
            "payload.x-api-key",
            "payload.clientSecret",
            "payload.args.db.password",
        ]
    );
    assert_eq!(v["input"]["token"], MASK);
    assert_eq!(v["token_count"], "7");
    assert_eq!(v["args"], r#"{"db":{"password":"[REDACTED]"},"n":1}"#);
    assert!(!v.to_string().contains("canary-value-123"));
}

/// A real OpenSSH ed25519 private key body (generated for this test, used nowhere).
const ED25519_BODY: &str = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n\
QyNTUxOQAAACBl9ZB4JgZ0mCmKZc8k1q2uR4bWv5kqz3m3jz8zq1hFQAAAAJgq3k9zKt5P\n\
cwAAAAtzc2gtZWQyNTUxOQAAACBl9ZB4JgZ0mCmKZc8k1q2uR4bWv5kqz3m3jz8zq1hFQA\n\
AAAEBv1u6n0m7Qk3kYdG3cXq0Fb2b4x9kYqJ9K9nZ2w8j0xGX1kHgmBnSYKYplzySNHBfx\n\
Zvq5HhtbVM=";

#[test]
fn escaped_and_encoded_secrets_are_found_decoded() {
    let mut r = Redactor::default();
    let secret = r#"pa"ss\wörd%41"#;
    r.add_literal(secret);
    let json_escaped = serde_json::to_string(secret).unwrap();
    let twice = serde_json::to_string(&json_escaped).unwrap();
    let ascii = r#"pa\"ss\\w\u00f6rd%41"#;
    let percent: String = url::form_urlencoded::byte_serialize(secret.as_bytes()).collect();
    for text in [
        format!("out: {json_escaped} end"),
        format!("{{\"stdout\":{twice}"),
        format!("x {ascii} y"),
        format!("https://h/?q={}", percent.replace('+', "%20")),
        format!("https://h/?q={percent}&x=1"),
        format!("$'{}'", json_escaped.trim_matches('"')),
    ] {
        let got = r.redact_str(&text);
        assert!(got.contains(MASK), "{text:?} -> {got:?}");
        assert!(
            !got.contains("ss\\w") && !got.contains("ss\\\\w"),
            "{got:?}"
        );
    }
    assert_eq!(
        red("x=1 DB_PASSWORD%3Dhunter22%26y%3D2"),
        "x=1 DB_PASSWORD=[REDACTED]&y=2"
    );
    // A form-encoded query writes spaces as `+`.
    let mut r = Redactor::default();
    r.add_literal("correct horse battery!");
    assert_eq!(
        r.redact_str("https://h/search?user=a&q=correct+horse+battery%21&next=%2F"),
        "https://h/search?user=a&q=[REDACTED]&next=/"
    );
    assert_eq!(r.redact_str("1+1=2"), "1+1=2");
    // Nothing decoded is kept when the decoded form holds no secret.
    assert_eq!(
        red(r#"C:\temp\new 50% "a\"b""#),
        r#"C:\temp\new 50% "a\"b""#
    );
}

#[test]
fn a_cut_pem_block_and_a_bare_key_body_are_masked() {
    let key = format!(
        "-----BEGIN OPENSSH PRIVATE KEY-----\n{ED25519_BODY}\n-----END OPENSSH PRIVATE KEY-----\n"
    );
    let cut: String = serde_json::to_string(&key)
        .unwrap()
        .chars()
        .take(120)
        .collect();
    let got = red(&format!("snippet {cut}"));
    assert!(
        !got.contains("b3BlbnNzaC1rZXkt") && !got.contains("AAAAtzc2gtZW"),
        "{got}"
    );
    let quoted = format!("$'{}'", key.replace('\n', "\\n"));
    assert!(
        !red(&quoted).contains("QyNTUxOQAAACBl9ZB4"),
        "{}",
        red(&quoted)
    );
    let bare = red(&format!("{ED25519_BODY}\n"));
    assert_eq!(bare, "[REDACTED]\n");
    // Two lines are not a key body; a certificate body is public.
    let two: Vec<&str> = ED25519_BODY.lines().take(2).collect();
    assert_eq!(red(&two.join("\n")), two.join("\n"));
    let cert = format!("-----BEGIN CERTIFICATE-----\n{ED25519_BODY}\n-----END CERTIFICATE-----");
    assert_eq!(red(&cert), cert);
}

#[test]
fn prose_passwords_are_masked() {
    for (text, want) in [
        ("my password is hunter2.", "my password is [REDACTED]."),
        ("password: s3cr3t!x", "password: [REDACTED]"),
        ("login pw=Tr0ub4dor then", "login pw=[REDACTED] then"),
        (
            "the passphrase was 'open sesame'",
            "the passphrase was '[REDACTED] sesame'",
        ),
    ] {
        assert_eq!(red(text), want, "{text}");
    }
    for text in [
        "the password is incorrect",
        "your password is required",
        "a new password was set",
    ] {
        assert_eq!(red(text), text);
    }
}

#[test]
fn keys_are_masked_and_json_strings_whole() {
    let mut r = Redactor::default();
    r.add_literal("canary-key-0042");
    let mut v = json!({
        "canary-key-0042": 1,
        "a": {"x canary-key-0042": "v", "[REDACTED]": 2},
        "s": "{\"k\": 1} canary-key-0042",
        "t": "[{\"canary-key-0042\": true}]",
    });
    let paths = r.redact_value(&mut v, "");
    let text = v.to_string();
    assert!(!text.contains("canary-key-0042"), "{text}");
    assert_eq!(v["[REDACTED]"], 1);
    assert_eq!(v["a"]["x [REDACTED]"], "v");
    assert_eq!(v["a"]["[REDACTED]"], 2);
    assert_eq!(v["t"], r#"[{"[REDACTED]":true}]"#);
    assert!(paths.contains(&"[REDACTED]".to_string()), "{paths:?}");
}

#[test]
fn names_that_say_secret() {
    for n in [
        "password",
        "DB_PASSWORD",
        "secretKey",
        "apiKey",
        "APIKey",
        "accessToken",
        "clientSecret",
        "x-api-key",
        "pwd",
        "db_pass",
        "auth",
        "Authorization",
    ] {
        assert!(is_secret_field(n), "{n}");
    }
    for n in [
        "max_tokens",
        "token_count",
        "key",
        "bypass",
        "oauth_provider",
        "cache_key",
    ] {
        assert!(!is_secret_field(n), "{n}");
    }
    assert!(is_secret_env_name("DB_PASSWORD"));
    assert!(is_secret_env_name("BOB_CHAT_API_KEY"));
    assert!(!is_secret_env_name("PWD"));
    assert!(!is_secret_env_name("KEYBOARD"));
    assert!(literal_worth_masking("hunter2"));
    assert!(literal_worth_masking("longpassword"));
    assert!(!literal_worth_masking("default"));
    assert!(!literal_worth_masking("abc1"));
}

#[test]
fn rule_file_lines_are_regexes_and_bad_ones_are_invalid() {
    let mut r = Redactor::default();
    r.add_rules("# comment\nproject-[0-9]{4}\n").unwrap();
    assert_eq!(r.redact_str("see project-1234 now"), "see [REDACTED] now");
    assert_eq!(
        r.add_rules("(").unwrap_err().code,
        crate::error::Code::InvalidRequest
    );
}

/// Ordinary prose carries the keywords of some rules (`s.` of vault-service-token in
/// "thanks.", `ey` of jwt in "they"), but no rule whose keyword it holds can match it, so
/// redacting it compiles no regex.
#[test]
fn ordinary_text_compiles_no_rule() {
    let set = RuleSet::get();
    let by_id = |id: &str| set.rules.iter().find(|r| r.id == id).unwrap();
    for text in [
        "Fine, thanks. They said hey.",
        "Last turn: hello bob \u{2192} Fine, thanks.",
        "the keys are on the table, as Mrs. Smith's eyes saw",
        "http://127.0.0.1:8080/v1",
    ] {
        let triggered = set.triggered(text);
        assert!(!triggered.is_empty(), "{text:?} should hit some keyword");
        for i in triggered {
            let r = &set.rules[i];
            if ["vault-service-token", "jwt", "bob-jwt", "bob-url-password"].contains(&r.id) {
                assert!(!r.may_match(text), "{} on {text:?}", r.id);
            }
        }
    }
    assert!(!by_id("jwt").needs.is_empty());
    assert!(!by_id("vault-service-token").needs.is_empty());
    // The prefilter is a hint, never a verdict: the secrets themselves still pass it and are
    // masked in prose.
    let jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";
    let vault = "s.Ab3dEf6hIj9kLm2nOp5qRs8t";
    let hvs = format!("hvs.{}", "CAESIJ3k9xQ_Lm2nOp5qRs8tUv1wXy4zAb7cDe0fGh3iJk6lMn9oPq2rSt5uVw8xYz1aBc4dEf7gHi0jKl3mNo6pQr9sTu2vWx5yZa8bCd1eFg4".get(..96).unwrap());
    for secret in [jwt, vault, hvs.as_str()] {
        let text = format!("They said thanks. Here it is: {secret} and that's all.");
        let out = red(&text);
        assert!(!out.contains(secret), "{out}");
        assert!(
            out.contains(MASK) && out.starts_with("They said thanks."),
            "{out}"
        );
    }
}

/// `hir` with every look-around (`\b`, `^`, `$`) removed: what proptest can generate from.
fn without_looks(hir: &regex_syntax::hir::Hir) -> regex_syntax::hir::Hir {
    use regex_syntax::hir::{Capture, Hir, HirKind, Repetition};
    match hir.kind() {
        HirKind::Look(_) => Hir::empty(),
        HirKind::Repetition(r) => Hir::repetition(Repetition {
            sub: Box::new(without_looks(&r.sub)),
            ..r.clone()
        }),
        HirKind::Capture(c) => Hir::capture(Capture {
            sub: Box::new(without_looks(&c.sub)),
            ..c.clone()
        }),
        HirKind::Concat(v) => Hir::concat(v.iter().map(without_looks).collect()),
        HirKind::Alternation(v) => Hir::alternation(v.iter().map(without_looks).collect()),
        _ => hir.clone(),
    }
}

/// The needs build.rs derives never reject a text the rule's regex matches: for every rule,
/// texts generated from its own regex (with prose or word bytes around them), whenever the
/// regex matches them, pass [`Rule::may_match`].
#[test]
fn needs_never_reject_a_match() {
    use proptest::strategy::{Strategy, ValueTree};
    use proptest::test_runner::TestRunner;
    let set = RuleSet::get();
    let mut runner = TestRunner::deterministic();
    let mut checked = 0;
    for r in &set.rules {
        let Ok(hir) = regex_syntax::ParserBuilder::new()
            .unicode(false)
            .utf8(false)
            .build()
            .parse(r.pattern)
        else {
            continue;
        };
        let Ok(strategy) = proptest::string::bytes_regex_parsed(&without_looks(&hir)) else {
            continue;
        };
        let re = r.regex().unwrap();
        for k in 0..24 {
            let body = strategy.new_tree(&mut runner).unwrap().current();
            let body = String::from_utf8_lossy(&body);
            let (pre, post) = [("", ""), ("x ", " y"), ("a", "b"), ("key: ", "\n")][k % 4];
            let text = format!("{pre}{body}{post}");
            if re.is_match(text.as_bytes()) {
                checked += 1;
                assert!(
                    r.may_match(&text),
                    "{}: {text:?} matches but its needs reject it",
                    r.id
                );
            }
        }
    }
    assert!(checked > 1000, "only {checked} matching texts checked");
}

#[test]
fn go_only_syntax_is_adapted() {
    assert_eq!(adapt_go(r"a{2,3}b{4}"), r"a{2,3}b{4}");
    assert_eq!(adapt_go(r"\$?{{[^}]+}}"), r"\$?\{\{[^}]+}}");
    assert_eq!(adapt_go(r"[^:]+:\[[^]]+]"), r"[^:]+:\[[^\]]+]");
    assert_eq!(adapt_go(r"[{]x\{"), r"[{]x\{");
}

#[test]
fn entropy_is_shannon_bits_per_char() {
    assert_eq!(shannon_entropy(""), 0.0);
    assert_eq!(shannon_entropy("aaaa"), 0.0);
    assert!((shannon_entropy("abcd") - 2.0).abs() < 1e-9);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The keyword index finds exactly the rules a naive case-insensitive search finds.
    #[test]
    fn keyword_index_matches_a_naive_search(text in "[a-zA-Z_.:/ -]{0,80}(KEY|Token|sk-|s\\.|://)?[a-z ]{0,10}") {
        let set = RuleSet::get();
        let lower = text.to_ascii_lowercase();
        let mut want = BTreeSet::new();
        for (i, d) in shipped_rule_data().filter(|d| d.regex.is_some() && !d.has_path && (d.check.is_empty() || d.check == "base64-userinfo")).enumerate() {
            if d.keywords.iter().any(|k| lower.contains(k)) {
                want.insert(i);
            }
        }
        let got: BTreeSet<usize> = set.triggered(&text).into_iter().collect();
        prop_assert_eq!(got, want);
    }

    /// A secret assigned to a secret-named key never survives, whatever surrounds it.
    #[test]
    fn assigned_secrets_never_survive(
        pre in "[a-z ]{0,20}",
        name in prop::sample::select(vec!["password", "DB_PASSWORD", "secretKey", "api_key", "accessToken", "passwd", "pwd"]),
        sep in prop::sample::select(vec!["=", ": ", " = ", "\": \""]),
        secret in "[A-Za-z0-9]{4,24}Q7",
        post in "[a-z ]{0,20}",
    ) {
        let text = format!("{pre} {name}{sep}{secret} {post}");
        let out = red(&text);
        prop_assert!(!out.contains(&secret), "{}", out);
    }

    /// Redaction is idempotent and never panics on arbitrary text.
    #[test]
    fn redaction_is_idempotent(text in "\\PC{0,200}") {
        let once = red(&text);
        let twice = red(&once);
        prop_assert_eq!(once, twice);
    }

    /// Provider keys inside arbitrary JSON values are masked wherever they sit.
    #[test]
    fn provider_keys_in_json_are_masked(field in "[a-z]{1,8}", pad in "[a-z ]{0,10}") {
        let key = "ghp_R8x2Kq9ZtV4mWp7Ln3Bc6Hd1Jf5Gs0Ya2XeQ";
        let mut v = json!({ field: [format!("{pad}{key}{pad}")] });
        Redactor::default().redact_value(&mut v, "");
        prop_assert!(!v.to_string().contains(key));
    }
}
