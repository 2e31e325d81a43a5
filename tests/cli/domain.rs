//! Domain tools through the binary, against local fixture servers speaking the providers'
//! formats (tests/cli/support/domain.rs): TURBOTIME toggle and selection, scryfall.lookup,
//! steam.game_lookup, game.knowledge_search, news.headline_search.

use crate::TestEnv;
use crate::support::code;
use crate::support::domain as fx;
use serde_json::{Value, json};

const KEY: &str = "sk_serp_fixture_0123456789abcdef";

/// `bob tool run ARGS` with `envs`, the calls on stdin; the response envelopes.
fn run(env: &TestEnv, envs: &[(&str, String)], args: &[&str], calls: &[Value]) -> Vec<Value> {
    let mut a = vec!["tool", "run"];
    a.extend_from_slice(args);
    let mut cmd = env.bob(&a);
    for (k, v) in envs {
        cmd.env(k, v);
    }
    // Ids are unique within one run: number the calls.
    let stdin: String = calls
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let mut c = c.clone();
            c["id"] = json!(format!("c{i}"));
            format!("{c}\n")
        })
        .collect();
    let out = cmd.write_stdin(stdin).output().unwrap();
    crate::env::jsonl_of(&out, &a)
}

fn call(tool: &str, args: Value) -> Value {
    json!({"id": "c1", "tool": tool, "args": args})
}

fn scry_env(s: &crate::support::http::TestServer) -> Vec<(&'static str, String)> {
    vec![("BOB_SCRYFALL_BASE_URL", s.url(""))]
}

/// Enable + grant the loopback fixture for one call (no session).
const DIRECT: &[&str] = &["--enable-all", "--grant", "net:127.0.0.1"];

fn all_files(dir: &std::path::Path) -> String {
    crate::support::files_under(dir)
        .iter()
        .filter_map(|p| std::fs::read(p).ok())
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .collect()
}

#[test]
fn turbotime_selection_is_the_grant_for_the_tools_own_host_only() {
    let env = TestEnv::new();
    let scry = fx::scryfall();
    let steam = fx::steam();
    let envs = vec![
        ("BOB_SCRYFALL_BASE_URL", scry.url("")),
        ("BOB_STEAM_BASE_URL", steam.url("")),
    ];
    let bolt = call("scryfall.lookup", json!({"name": "Lightning Bolt"}));
    // Off: not enabled, never sent.
    let r = run(
        &env,
        &envs,
        &["--session", "s1"],
        std::slice::from_ref(&bolt),
    );
    assert_eq!(code(&r[0]), "policy.denied", "{r:?}");
    assert!(scry.requests().is_empty());

    let t = env.json(
        &[
            "tool",
            "turbotime",
            "on",
            "--session",
            "s1",
            "--select",
            "scryfall.lookup",
        ],
        "",
    );
    assert_eq!(t["on"], true);
    assert_eq!(t["selected"], json!(["scryfall.lookup"]));
    let list = env.jsonl(&["tool", "list", "--session", "s1"], "");
    let row = |n: &str| list.iter().find(|r| r["name"] == n).unwrap().clone();
    assert_eq!(row("scryfall.lookup")["enabled"], true);
    assert_eq!(row("scryfall.lookup")["turbotime_selected"], true);
    assert_eq!(row("steam.game_lookup")["enabled"], false);
    assert_eq!(row("http.get")["enabled"], false);

    // Selected: runs with no net grant and no --allow-loopback (the operator set the URL).
    let r = run(
        &env,
        &envs,
        &["--session", "s1"],
        std::slice::from_ref(&bolt),
    );
    assert_eq!(r[0]["ok"], true, "{r:?}");
    assert_eq!(r[0]["output"]["name"], "Lightning Bolt");
    // Nothing else widened: another TURBOTIME tool, http.get to the same host.
    let r = run(
        &env,
        &envs,
        &["--session", "s1"],
        &[
            call("steam.game_lookup", json!({"appid": 620})),
            json!({"id": "c2", "tool": "http.get", "args": {"url": scry.url("/cards/named?exact=x")}}),
        ],
    );
    assert_eq!(code(&r[0]), "policy.denied", "{r:?}");
    assert_eq!(code(&r[1]), "policy.denied", "{r:?}");
    assert!(steam.requests().is_empty());
    assert_eq!(scry.requests().len(), 1);

    // Off again: refused; the human acts are audited.
    env.json(&["tool", "turbotime", "off", "--session", "s1"], "");
    let r = run(&env, &envs, &["--session", "s1"], &[bolt]);
    assert_eq!(code(&r[0]), "policy.denied");
    let audit = all_files(&env.home().join("audit/human"));
    assert_eq!(audit.matches("\"turbotime.set\"").count(), 2, "{audit}");
    assert!(audit.contains("\"actor\":\"human\""), "{audit}");

    // Only TURBOTIME tools can be selected; --select only with on.
    env.fails(
        &[
            "tool",
            "turbotime",
            "on",
            "--session",
            "s1",
            "--select",
            "http.get",
        ],
        "",
        2,
        "invalid.request",
    );
    env.fails(
        &[
            "tool",
            "turbotime",
            "off",
            "--session",
            "s1",
            "--select",
            "scryfall.lookup",
        ],
        "",
        2,
        "invalid.request",
    );
}

#[test]
fn a_loopback_api_needs_a_grant_without_turbotime() {
    let env = TestEnv::new();
    let scry = fx::scryfall();
    let r = run(
        &env,
        &scry_env(&scry),
        &["--enable-all"],
        &[call("scryfall.lookup", json!({"name": "Lightning Bolt"}))],
    );
    assert_eq!(code(&r[0]), "policy.denied", "{r:?}");
    assert!(
        r[0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("turbotime"),
        "{r:?}"
    );
    assert!(scry.requests().is_empty());
}

#[test]
fn scryfall_named_fuzzy_set_and_multi_face_cards() {
    let env = TestEnv::new();
    let scry = fx::scryfall();
    let r = run(
        &env,
        &scry_env(&scry),
        DIRECT,
        &[
            call(
                "scryfall.lookup",
                json!({"name": "Lightning Bolt", "set": "CLU"}),
            ),
            call(
                "scryfall.lookup",
                json!({"name": "light bol", "fuzzy": true}),
            ),
            call("scryfall.lookup", json!({"name": "Delver of Secrets"})),
        ],
    );
    let bolt = &r[0]["output"];
    assert_eq!(bolt["name"], "Lightning Bolt", "{r:?}");
    assert_eq!(bolt["mana_cost"], "{R}");
    assert_eq!(bolt["type_line"], "Instant");
    assert_eq!(bolt["colors"], json!(["R"]));
    assert_eq!(bolt["legalities"]["modern"], "legal");
    assert_eq!(bolt["prices"]["usd"], "1.12");
    assert!(
        bolt["image_uris"]["normal"]
            .as_str()
            .unwrap()
            .starts_with("https://cards.scryfall.io/")
    );
    assert_eq!(r[1]["output"]["name"], "Lightning Bolt");
    let d = &r[2]["output"];
    assert_eq!(d["mana_cost"], "{U}");
    assert_eq!(d["power"], "1 // 3");
    assert!(d["oracle_text"].as_str().unwrap().ends_with("// Flying"));
    assert_eq!(d["colors"], json!(["U"]));
    assert_eq!(d["faces"][1]["name"], "Insectile Aberration");
    assert!(
        d["image_uris"]["normal"]
            .as_str()
            .unwrap()
            .contains("/front/")
    );

    let reqs = scry.requests();
    assert_eq!(reqs.len(), 3);
    assert!(
        reqs[0]
            .path
            .starts_with("/cards/named?exact=Lightning+Bolt&set=clu"),
        "{}",
        reqs[0].path
    );
    assert!(reqs[1].path.contains("fuzzy=light+bol"));
    for q in &reqs {
        assert!(q.header("User-Agent").unwrap().starts_with("bob/"));
        assert!(q.header("Accept").unwrap().contains("application/json"));
    }
}

#[test]
fn scryfall_answers_are_cached_for_a_day() {
    let mut env = TestEnv::new();
    let scry = fx::scryfall();
    let c = [call("scryfall.lookup", json!({"name": "Lightning Bolt"}))];
    let first = run(&env, &scry_env(&scry), DIRECT, &c);
    assert_eq!(first[0]["output"]["name"], "Lightning Bolt");
    assert!(first[0]["output"].get("cached").is_none());
    env.now = "2026-02-15T23:59:00Z".into();
    let second = run(&env, &scry_env(&scry), DIRECT, &c);
    assert_eq!(second[0]["output"]["cached"], true, "{second:?}");
    assert_eq!(
        second[0]["output"]["oracle_text"],
        first[0]["output"]["oracle_text"]
    );
    assert_eq!(scry.requests().len(), 1);
    let files: Vec<_> = std::fs::read_dir(env.home().join("cache/scryfall"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
        .collect();
    assert_eq!(files.len(), 1);
    env.now = "2026-02-16T00:00:01Z".into();
    let third = run(&env, &scry_env(&scry), DIRECT, &c);
    assert!(third[0]["output"].get("cached").is_none());
    assert_eq!(scry.requests().len(), 2);
}

#[test]
fn scryfall_not_found_ambiguous_search_empty_and_bad_syntax() {
    let env = TestEnv::new();
    let scry = fx::scryfall();
    let r = run(
        &env,
        &scry_env(&scry),
        DIRECT,
        &[
            call("scryfall.lookup", json!({"name": "Missing Card"})),
            call("scryfall.lookup", json!({"name": "dr", "fuzzy": true})),
            call(
                "scryfall.lookup",
                json!({"query": "t:instant c:r", "page": 1}),
            ),
            call("scryfall.lookup", json!({"query": "missing"})),
            call("scryfall.lookup", json!({"query": "((("})),
            call("scryfall.lookup", json!({"name": "x", "query": "y"})),
            call("scryfall.lookup", json!({"name": "x", "color": "r"})),
        ],
    );
    assert_eq!(code(&r[0]), "not_found", "{r:?}");
    assert!(
        r[0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("No cards found")
    );
    assert_eq!(code(&r[1]), "not_found");
    assert_eq!(r[1]["error"]["details"]["type"], "ambiguous");
    assert_eq!(r[2]["output"]["total_cards"], 2);
    assert_eq!(
        r[2]["output"]["cards"][1]["faces"][0]["name"],
        "Delver of Secrets"
    );
    assert_eq!(r[3]["ok"], true);
    assert_eq!(r[3]["output"]["cards"], json!([]));
    assert_eq!(code(&r[4]), "tool.input_invalid");
    assert_eq!(code(&r[5]), "tool.input_invalid");
    assert_eq!(code(&r[6]), "tool.input_invalid");
    assert_eq!(scry.requests().len(), 5);
}

#[test]
fn scryfall_upstream_failures_are_clear_errors_and_never_cached() {
    let env = TestEnv::new();
    let scry = fx::scryfall();
    let r = run(
        &env,
        &scry_env(&scry),
        DIRECT,
        &[
            call("scryfall.lookup", json!({"name": "broken"})),
            call("scryfall.lookup", json!({"name": "crash"})),
            json!({"id": "t", "tool": "scryfall.lookup", "args": {"name": "slow"}, "timeout_ms": 700}),
        ],
    );
    assert_eq!(code(&r[0]), "upstream.error", "{r:?}");
    assert!(
        r[0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not valid JSON")
    );
    assert_eq!(code(&r[1]), "upstream.error");
    assert_eq!(r[1]["error"]["details"]["status"], 500);
    assert_eq!(r[1]["error"]["retryable"], true);
    assert_eq!(code(&r[2]), "timeout");
    let cached = std::fs::read_dir(env.home().join("cache/scryfall"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
        .count();
    assert_eq!(cached, 0);
}

#[test]
fn a_429_is_honoured_and_its_back_off_shared_by_later_processes() {
    let env = TestEnv::new();
    let scry = fx::scryfall();
    // Retry-After: 1 → waited out once, then the answer.
    let r = run(
        &env,
        &scry_env(&scry),
        DIRECT,
        &[call("scryfall.lookup", json!({"name": "busy"}))],
    );
    assert_eq!(r[0]["output"]["name"], "Lightning Bolt", "{r:?}");
    assert_eq!(scry.requests().len(), 2);
    // Retry-After: 120 → reported, not retried.
    let r = run(
        &env,
        &scry_env(&scry),
        DIRECT,
        &[call("scryfall.lookup", json!({"name": "flood"}))],
    );
    assert_eq!(code(&r[0]), "upstream.error", "{r:?}");
    assert_eq!(r[0]["error"]["details"]["retry_after_s"], 120);
    assert_eq!(r[0]["error"]["retryable"], true);
    assert_eq!(scry.requests().len(), 3);
    // Another process of the same home keeps the back-off: nothing is sent.
    let r = run(
        &env,
        &scry_env(&scry),
        DIRECT,
        &[call(
            "scryfall.lookup",
            json!({"name": "Delver of Secrets"}),
        )],
    );
    assert_eq!(code(&r[0]), "upstream.error", "{r:?}");
    assert!(r[0]["error"]["details"]["retry_after_s"].as_u64().unwrap() > 100);
    assert_eq!(scry.requests().len(), 3);
}

#[test]
fn concurrent_processes_share_one_request_budget() {
    let env = TestEnv::new();
    let scry = fx::scryfall();
    let calls: String = (0..3)
        .map(|i| {
            let mut c = call("scryfall.lookup", json!({"query": format!("t:elf n{i}")}));
            c["id"] = json!(format!("c{i}"));
            format!("{c}\n")
        })
        .collect();
    let kids: Vec<_> = (0..3)
        .map(|_| {
            let mut c =
                env.std_command(&["tool", "run", "--enable-all", "--grant", "net:127.0.0.1"]);
            c.env("BOB_SCRYFALL_BASE_URL", scry.url(""))
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped());
            let mut k = c.spawn().unwrap();
            use std::io::Write;
            k.stdin.take().unwrap().write_all(calls.as_bytes()).unwrap();
            k
        })
        .collect();
    for k in kids {
        let out = k.wait_with_output().unwrap();
        assert!(out.status.success());
    }
    // 3 distinct searches (the others were cache hits or waited their turn); the booked
    // slots live in the home, one file per bucket.
    assert!(scry.requests().len() >= 3);
    let dir = env.home().join("cache/scryfall");
    assert!(dir.join("ratelimit.search").exists());
    assert!(dir.join("ratelimit.api").exists());
}

#[test]
fn steam_details_prices_in_cents_unknown_apps_and_search() {
    let env = TestEnv::new();
    let steam = fx::steam();
    let envs = vec![("BOB_STEAM_BASE_URL", steam.url(""))];
    let r = run(
        &env,
        &envs,
        DIRECT,
        &[
            call("steam.game_lookup", json!({"appid": 620})),
            call("steam.game_lookup", json!({"appid": 570})),
            call("steam.game_lookup", json!({"appid": 999999})),
            call("steam.game_lookup", json!({"term": "portal"})),
            call("steam.game_lookup", json!({"term": "missing"})),
            call("steam.game_lookup", json!({"term": "broken"})),
            call("steam.game_lookup", json!({})),
        ],
    );
    let p = &r[0]["output"];
    assert_eq!(p["appid"], 620, "{r:?}");
    assert_eq!(p["name"], "Portal 2");
    assert_eq!(p["price"]["initial_cents"], 999);
    assert_eq!(p["price"]["final_cents"], 199);
    assert_eq!(p["price"]["final"], "1.99");
    assert_eq!(p["price"]["discount_percent"], 80);
    assert_eq!(p["genres"], json!(["Action", "Adventure"]));
    assert_eq!(r[1]["output"]["is_free"], true);
    assert_eq!(r[1]["output"]["price"], Value::Null);
    assert_eq!(code(&r[2]), "not_found");
    assert_eq!(r[3]["output"]["items"][0]["appid"], 620);
    assert_eq!(r[3]["output"]["items"][0]["price"]["final_cents"], 199);
    assert_eq!(r[4]["output"]["items"], json!([]));
    assert_eq!(code(&r[5]), "upstream.error");
    assert_eq!(code(&r[6]), "tool.input_invalid");
    assert!(
        steam.requests()[0]
            .path
            .starts_with("/api/appdetails?appids=620&cc=us")
    );
}

#[test]
fn knowledge_search_needs_a_provider_and_never_stores_the_key() {
    let env = TestEnv::new();
    let q = call(
        "game.knowledge_search",
        json!({"query": "burn deck", "game": "mtg"}),
    );
    let r = run(&env, &[], DIRECT, std::slice::from_ref(&q));
    assert_eq!(code(&r[0]), "invalid.request", "{r:?}");
    let msg = r[0]["error"]["message"].as_str().unwrap();
    assert!(
        msg.contains("SERPAPI_API_KEY") && msg.contains("BOB_SEARXNG_URL"),
        "{msg}"
    );

    let serp = fx::serpapi(KEY);
    let envs = vec![
        ("BOB_SERPAPI_BASE_URL", serp.url("")),
        ("SERPAPI_API_KEY", KEY.to_string()),
    ];
    let r = run(
        &env,
        &envs,
        DIRECT,
        &[
            q.clone(),
            call("game.knowledge_search", json!({"query": "missing"})),
        ],
    );
    let out = &r[0]["output"];
    assert_eq!(out["provider"], "serpapi", "{r:?}");
    assert_eq!(
        out["results"][0]["url"],
        "https://www.mtggoldfish.com/archetype/mono-red-aggro"
    );
    assert_eq!(out["results"][0]["domain"], "www.mtggoldfish.com");
    assert_eq!(out["results"][0]["score"], 1.0);
    for k in [
        "url",
        "title",
        "snippet",
        "content_md",
        "token_est",
        "score",
        "source",
        "domain",
        "fetched_at",
        "staged_path",
    ] {
        assert!(out["results"][0].get(k).is_some(), "{k}");
    }
    assert_eq!(r[1]["output"]["results"], json!([]));
    assert!(serp.requests()[0].path.contains("q=mtg+burn+deck"));
    // A wrong key: SerpAPI's 401, the key not echoed.
    let bad = vec![
        ("BOB_SERPAPI_BASE_URL", serp.url("")),
        (
            "SERPAPI_API_KEY",
            "sk_wrong_key_abcdef0123456789".to_string(),
        ),
    ];
    let r = run(
        &env,
        &bad,
        DIRECT,
        &[call("game.knowledge_search", json!({"query": "other"}))],
    );
    assert_eq!(code(&r[0]), "upstream.error");
    assert!(!r[0].to_string().contains("sk_wrong_key"));
    let home = all_files(&env.home());
    assert!(!home.contains(KEY), "the API key is at rest");
    assert!(!home.contains("sk_wrong_key"));

    let sx = fx::searxng();
    let r = run(
        &env,
        &[("BOB_SEARXNG_URL", sx.url(""))],
        DIRECT,
        &[call(
            "game.knowledge_search",
            json!({"query": "dota 2 meta"}),
        )],
    );
    assert_eq!(r[0]["output"]["provider"], "searxng", "{r:?}");
    assert_eq!(r[0]["output"]["results"][0]["score"], 2.5);
}

#[test]
fn news_merges_feeds_newest_first_and_reports_dead_ones() {
    let env = TestEnv::new();
    let r = run(
        &env,
        &[],
        DIRECT,
        &[call("news.headline_search", json!({"query": "bolt"}))],
    );
    assert_eq!(code(&r[0]), "invalid.request");
    assert!(
        r[0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("BOB_NEWS_FEEDS")
    );

    let feeds = fx::feeds();
    let list = ["/rss", "/atom", "/json", "/dead", "/junk"]
        .iter()
        .map(|p| feeds.url(p))
        .collect::<Vec<_>>()
        .join(",");
    let envs = vec![("BOB_NEWS_FEEDS", list)];
    let r = run(
        &env,
        &envs,
        DIRECT,
        &[
            call("news.headline_search", json!({"query": "Lightning BOLT"})),
            call(
                "news.headline_search",
                json!({"query": "", "since": "2026-02-13T00:00:00Z"}),
            ),
            call("news.headline_search", json!({"query": "x", "limit": 0})),
        ],
    );
    let out = &r[0]["output"];
    let titles: Vec<&str> = out["headlines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["title"].as_str().unwrap())
        .collect();
    // The same link from two feeds once; newest first.
    assert_eq!(
        titles,
        [
            "Lightning Bolt price drops",
            "Lightning Bolt reprinted in new set"
        ],
        "{out}"
    );
    assert_eq!(out["headlines"][0]["source"], "Card Game Digest");
    assert_eq!(out["headlines"][0]["published"], "2026-02-14T11:30:00Z");
    assert_eq!(out["feeds_failed"], 2);
    let failed: Vec<&Value> = out["feeds"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["ok"] == false)
        .collect();
    assert!(
        failed
            .iter()
            .all(|f| f["error"]["code"] == "upstream.error")
    );
    let since: Vec<&str> = r[1]["output"]["headlines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["title"].as_str().unwrap())
        .collect();
    assert_eq!(since.len(), 3, "{since:?}");
    assert_eq!(since[2], "Portal 2 is 80% off");
    assert_eq!(code(&r[2]), "tool.input_invalid");
    // The good feeds are cached; the next search sends nothing for them.
    let before = feeds.requests().len();
    let r = run(
        &env,
        &envs,
        DIRECT,
        &[call("news.headline_search", json!({"query": "portal"}))],
    );
    assert_eq!(r[0]["output"]["count"], 1);
    assert_eq!(
        feeds.requests().len() - before,
        2,
        "only the two failing feeds are fetched again"
    );
}

#[test]
fn settings_come_from_config_toml_and_bad_ones_are_refused() {
    let env = TestEnv::new();
    let scry = fx::scryfall();
    std::fs::create_dir_all(env.home()).unwrap();
    std::fs::write(
        env.home().join("config.toml"),
        format!("[domain]\nscryfall_base_url = \"{}\"\n", scry.url("")),
    )
    .unwrap();
    let r = run(
        &env,
        &[],
        DIRECT,
        &[call("scryfall.lookup", json!({"name": "Lightning Bolt"}))],
    );
    assert_eq!(r[0]["output"]["name"], "Lightning Bolt", "{r:?}");
    let r = run(
        &env,
        &[("BOB_SCRYFALL_BASE_URL", "ftp://x".to_string())],
        DIRECT,
        &[call("scryfall.lookup", json!({"name": "Lightning Bolt"}))],
    );
    assert_eq!(code(&r[0]), "invalid.request", "{r:?}");
    // An unknown key (a typo) is refused by the whole command, naming the key (the settings
    // layer reads config.toml once, strictly: see docs/settings.md).
    std::fs::write(
        env.home().join("config.toml"),
        "[domain]\nscryfal_base_url = 1\n",
    )
    .unwrap();
    let e = env.fails(&["tool", "run"], "[]", 2, "invalid.request");
    assert_eq!(e["details"]["key"], "domain.scryfal_base_url", "{e}");
}

// ---- JSON I/O: web.fetch_text, bom.normalize, commerce.search_offers, docs.write_spreadsheet,
// bom.build

/// http.get's policy for a loopback page: a grant and the operator's --allow-loopback.
const WEB: &[&str] = &[
    "--enable-all",
    "--grant",
    "net:127.0.0.1",
    "--allow-loopback",
];

#[test]
fn web_fetch_text_extracts_the_article_under_http_gets_policy() {
    let env = TestEnv::new();
    let web = fx::web();
    let r = run(
        &env,
        &[],
        WEB,
        &[
            call("web.fetch_text", json!({"url": web.url("/bom")})),
            call("web.fetch_text", json!({"url": web.url("/latin1")})),
            call("web.fetch_text", json!({"url": web.url("/image")})),
            call("web.fetch_text", json!({"url": web.url("/gone")})),
            call("web.fetch_text", json!({"url": web.url("/to-private")})),
        ],
    );
    let page = &r[0]["output"];
    assert_eq!(page["status"], 200, "{r:?}");
    assert_eq!(page["title"], "Remix Rizzler Cinewhoop");
    let text = page["content"].as_str().unwrap();
    assert!(
        text.contains("4x Motor Mounts") && text.contains("ESC - 30A"),
        "{text}"
    );
    assert!(
        !text.contains("nav-script") && !text.contains("Login"),
        "{text}"
    );
    assert!(
        r[1]["output"]["content"]
            .as_str()
            .unwrap()
            .contains("Crème brûlée"),
        "{r:?}"
    );
    assert_eq!(r[1]["output"]["charset"], "windows-1252");
    assert_eq!(code(&r[2]), "upstream.error");
    assert_eq!(r[3]["output"]["status"], 404);
    assert_eq!(r[3]["output"]["content"], "");
    assert_eq!(code(&r[4]), "policy.denied", "{r:?}");
    // The same policy as http.get: no grant, no fetch.
    let before = web.requests().len();
    let r = run(
        &env,
        &[],
        &["--enable-all", "--allow-loopback"],
        &[call("web.fetch_text", json!({"url": web.url("/bom")}))],
    );
    assert_eq!(code(&r[0]), "policy.denied");
    assert_eq!(web.requests().len(), before);
}

#[test]
fn bom_normalize_gives_the_seed_rows() {
    let env = TestEnv::new();
    let r = run(
        &env,
        &[],
        &["--enable", "bom.normalize"],
        &[
            call(
                "bom.normalize",
                json!({"content": "Frame\n4x Motor Mounts\nESC - 30A", "source": "https://www.thingiverse.com/thing:3492360"}),
            ),
            call(
                "bom.normalize",
                json!({"content": "| Part | Qty |\n|---|---|\n| Motor | 4 |", "source": "s"}),
            ),
            call("bom.normalize", json!({"content": 5})),
        ],
    );
    let s = "https://www.thingiverse.com/thing:3492360";
    assert_eq!(
        r[0]["output"],
        json!({"count": 3, "rows": [
            {"part": "Frame", "quantity": 1, "source": s},
            {"part": "Motor Mounts", "quantity": 4, "source": s},
            {"part": "ESC", "quantity": 1, "notes": "30A", "source": s}
        ]}),
        "{r:?}"
    );
    assert_eq!(r[1]["output"]["rows"][0]["quantity"], 4);
    assert_eq!(code(&r[2]), "tool.input_invalid");
}

fn python(script: &str, arg: &std::path::Path) -> String {
    let out = std::process::Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(arg)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn spreadsheets_are_written_inside_the_root_atomically_and_defused() {
    let env = TestEnv::new();
    let root = env.path("root");
    std::fs::create_dir_all(root.join("proj")).unwrap();
    let root_s = root.to_str().unwrap().to_string();
    let rows = json!([
        {"part": "Frame, 3.5\"", "quantity": 1, "price": 89.99, "link": "https://store.example.com/roma"},
        {"part": "=HYPERLINK(\"http://evil\",\"x\")", "quantity": 4, "notes": "@SUM(A1)"},
        {"part": "-2+3", "quantity": -1}
    ]);
    let args = ["--enable-all", "--root", root_s.as_str()];
    let r = run(
        &env,
        &[],
        &args,
        &[
            call(
                "docs.write_spreadsheet",
                json!({"repo": "proj", "rows": rows, "filename": "parts.csv", "format": "csv"}),
            ),
            call(
                "docs.write_spreadsheet",
                json!({"repo": "proj", "rows": rows, "filename": "parts", "format": "ods"}),
            ),
            call(
                "docs.write_spreadsheet",
                json!({"repo": "proj", "rows": rows, "filename": "parts", "format": "xlsx"}),
            ),
            call(
                "docs.write_spreadsheet",
                json!({"repo": "proj", "rows": [{"a": 1}], "filename": "parts.csv", "format": "csv"}),
            ),
            call(
                "docs.write_spreadsheet",
                json!({"repo": "proj", "rows": [{"a": 1}], "filename": "../escape.csv"}),
            ),
            call(
                "docs.write_spreadsheet",
                json!({"repo": "..", "rows": [{"a": 1}], "filename": "escape.csv"}),
            ),
            call(
                "docs.write_spreadsheet",
                json!({"repo": "/etc", "rows": [{"a": 1}], "filename": "escape.csv"}),
            ),
            call(
                "docs.write_spreadsheet",
                json!({"repo": "proj", "rows": [{"a": 1}], "filename": "parts.csv", "overwrite": true}),
            ),
        ],
    );
    assert_eq!(r[0]["output"]["path"], "proj/parts.csv", "{r:?}");
    assert_eq!(
        r[0]["output"]["columns"],
        json!(["part", "quantity", "price", "link", "notes"])
    );
    assert_eq!(r[0]["output"]["rows"], 3);
    assert_eq!(r[1]["output"]["path"], "proj/parts.ods");
    assert_eq!(r[2]["output"]["path"], "proj/parts.xlsx");
    assert_eq!(code(&r[3]), "conflict");
    assert_eq!(code(&r[4]), "tool.input_invalid");
    assert!(!code(&r[5]).is_empty() && !code(&r[6]).is_empty(), "{r:?}");
    assert_eq!(r[7]["ok"], true);
    assert!(!env.path("escape.csv").exists() && !std::path::Path::new("/etc/escape.csv").exists());
    let leftovers: Vec<_> = std::fs::read_dir(root.join("proj"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(leftovers.len(), 3, "no temporary files: {leftovers:?}");

    // The ODS is an OpenDocument package: mimetype first and stored, content.xml well-formed.
    let ods = python(
        r#"
import sys, zipfile, xml.dom.minidom as m
z = zipfile.ZipFile(sys.argv[1])
first = z.infolist()[0]
assert first.filename == "mimetype" and first.compress_type == zipfile.ZIP_STORED
assert z.read("mimetype") == b"application/vnd.oasis.opendocument.spreadsheet"
m.parseString(z.read("META-INF/manifest.xml"))
d = m.parseString(z.read("content.xml"))
for row in d.getElementsByTagName("table:table-row"):
    cells = []
    for c in row.getElementsByTagName("table:table-cell"):
        cells.append((c.getAttribute("office:value-type"), "".join(t.firstChild.data if t.firstChild else "" for t in c.getElementsByTagName("text:p"))))
    print(cells)
assert not d.getElementsByTagName("table:table-cell")[0].hasAttribute("table:formula")
"#,
        &root.join("proj/parts.ods"),
    );
    assert!(ods.contains("('string', 'Frame, 3.5\"')"), "{ods}");
    assert!(ods.contains("('float', '89.99')"), "{ods}");
    assert!(ods.contains("('string', '\\'=HYPERLINK"), "{ods}");
    assert!(ods.contains("('string', \"'@SUM(A1)\")"), "{ods}");
    assert!(!ods.contains("formula"));
    // The XLSX: strings are shared strings (never formulas), the injected ones defused.
    let xlsx = python(
        r#"
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
print(z.read("xl/sharedStrings.xml").decode())
print(z.read("xl/worksheets/sheet1.xml").decode())
"#,
        &root.join("proj/parts.xlsx"),
    );
    assert!(xlsx.contains("'=HYPERLINK"), "{xlsx}");
    assert!(!xlsx.contains("<f>"), "no formula cell: {xlsx}");
    // The CSV after the overwrite is the new one.
    let csv = std::fs::read_to_string(root.join("proj/parts.csv")).unwrap();
    assert_eq!(csv, "a\n1\n");
}

#[test]
fn commerce_offers_best_price_and_no_invented_lists() {
    let env = TestEnv::new();
    let serp = fx::serpapi(KEY);
    let q = call(
        "commerce.search_offers",
        json!({"query": "diatone roma f35 frame", "extra_query": "cinewhoop drone", "max_results": 5, "country": "us", "language": "en"}),
    );
    let r = run(
        &env,
        &[("BOB_SERPAPI_BASE_URL", serp.url(""))],
        DIRECT,
        std::slice::from_ref(&q),
    );
    assert_eq!(code(&r[0]), "invalid.request", "{r:?}");
    assert!(
        r[0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("SERPAPI_API_KEY")
    );
    let envs = vec![
        ("BOB_SERPAPI_BASE_URL", serp.url("")),
        ("SERPAPI_API_KEY", KEY.to_string()),
    ];
    let r = run(
        &env,
        &envs,
        DIRECT,
        &[
            q,
            call(
                "commerce.search_offers",
                json!({"query": "missing thing", "max_results": 5, "country": "us", "language": "en"}),
            ),
        ],
    );
    let out = &r[0]["output"];
    assert_eq!(out["offers"].as_array().unwrap().len(), 3, "{r:?}");
    assert_eq!(out["offers"][0]["price"], 89.99);
    assert_eq!(out["offers"][0]["currency"], "USD");
    assert_eq!(
        out["offers"][1]["link"],
        "https://www.google.com/shopping/product/2"
    );
    assert_eq!(out["offers"][2]["price"], Value::Null);
    assert_eq!(out["best_offer"]["source"], "Second Hand Shop");
    assert_eq!(out["best_offer"]["price"], 54.0);
    assert!(
        out["summary"]
            .as_str()
            .unwrap()
            .contains("Best offer 54.0 USD at Second Hand Shop"),
        "{out}"
    );
    assert_eq!(r[1]["output"]["offers"], json!([]));
    assert_eq!(r[1]["output"]["best_offer"], Value::Null);
    assert!(
        r[1]["output"]["summary"]
            .as_str()
            .unwrap()
            .starts_with("No offers found")
    );
    let path = &serp.requests()[0].path;
    assert!(
        path.contains("engine=google_shopping") && path.contains("gl=us") && path.contains("hl=en"),
        "{path}"
    );
    assert!(
        path.contains("q=diatone+roma+f35+frame+cinewhoop+drone"),
        "{path}"
    );
    assert!(!all_files(&env.home()).contains(KEY), "the key is at rest");
}

#[test]
fn bom_build_statuses() {
    let env = TestEnv::new();
    let web = fx::web();
    let serp = fx::serpapi(KEY);
    let root = env.path("root");
    std::fs::create_dir_all(&root).unwrap();
    let root_s = root.to_str().unwrap().to_string();
    let mut args = WEB.to_vec();
    args.extend(["--root", root_s.as_str()]);
    let b = |path: &str, serp: bool| {
        call(
            "bom.build",
            json!({"url": web.url(path), "repo": ".", "format": "csv", "use_serpapi": serp}),
        )
    };
    let envs = vec![
        ("BOB_SERPAPI_BASE_URL", serp.url("")),
        ("SERPAPI_API_KEY", KEY.to_string()),
    ];
    let r = run(
        &env,
        &envs,
        &args,
        &[b("/bom", false), b("/gone", false), b("/empty", false)],
    );
    let ok = &r[0]["output"];
    assert_eq!(ok["status"], "ok", "{r:?}");
    assert_eq!(ok["count"], 3);
    assert_eq!(ok["rows"][1]["part"], "Motor Mounts");
    let path = ok["spreadsheet_path"].as_str().unwrap();
    assert_eq!(path, "bom_20260215_000000.csv");
    let csv = std::fs::read_to_string(root.join(path)).unwrap();
    assert!(csv.starts_with("part,quantity,notes,source\n"), "{csv}");
    assert!(csv.contains("ESC,1,30A,"));
    assert_eq!(r[1]["output"]["status"], "fetch_failed");
    assert_eq!(r[1]["output"]["spreadsheet_path"], Value::Null);
    assert_eq!(r[2]["output"]["status"], "content_empty");

    // Priced: Frame and Motor Mounts get offers; ESC has none → pricing_missing, still written.
    let mut env2 = TestEnv::new();
    env2.now = "2026-02-15T00:00:05Z".into();
    let root2 = env2.path("root");
    std::fs::create_dir_all(&root2).unwrap();
    let root2_s = root2.to_str().unwrap().to_string();
    let mut args2 = WEB.to_vec();
    args2.extend(["--root", root2_s.as_str()]);
    let r = run(&env2, &envs, &args2, &[b("/bom", true)]);
    let out = &r[0]["output"];
    assert_eq!(out["status"], "pricing_missing", "{r:?}");
    assert_eq!(out["rows"][0]["price"], 54.0);
    assert_eq!(out["rows"][0]["seller"], "Second Hand Shop");
    assert!(out["rows"][2].get("price").is_none());
    assert!(
        out["message"]
            .as_str()
            .unwrap()
            .contains("ESC: no offers found")
    );
    assert!(
        root2
            .join(out["spreadsheet_path"].as_str().unwrap())
            .exists()
    );
    assert!(!all_files(&env2.home()).contains(KEY));
}

#[test]
fn hostile_feeds_fail_alone_and_bounded() {
    let env = TestEnv::new();
    let feeds = fx::feeds();
    let list = ["/rss", "/many", "/huge", "/bomb", "/slow"]
        .iter()
        .map(|p| feeds.url(p))
        .collect::<Vec<_>>()
        .join(",");
    // The hung feed holds its fetch until the call's deadline less a tenth (0.8 s here), which
    // the call keeps to parse, rank and answer: room enough on a loaded CI machine.
    let r = run(
        &env,
        &[("BOB_NEWS_FEEDS", list)],
        DIRECT,
        &[
            json!({"id": "x", "tool": "news.headline_search", "args": {"query": "bolt", "limit": 100}, "timeout_ms": 8000}),
        ],
    );
    let out = &r[0]["output"];
    let feeds_out = out["feeds"].as_array().unwrap_or_else(|| panic!("{r:?}"));
    let by = |suffix: &str| {
        feeds_out
            .iter()
            .find(|f| f["url"].as_str().unwrap().ends_with(suffix))
            .unwrap()
            .clone()
    };
    assert_eq!(by("/rss")["ok"], true);
    assert_eq!(by("/many")["ok"], true);
    assert_eq!(
        by("/many")["entries"],
        500,
        "entries of one feed are capped"
    );
    assert_eq!(by("/huge")["ok"], false, "{out}");
    assert_eq!(by("/slow")["ok"], false);
    // The entity bomb is never expanded: an error, or a title without a billion laughs.
    let text = out.to_string();
    assert!(text.len() < 200_000, "output stays small: {}", text.len());
    assert!(!text.contains("lollollollollol"));
    assert_eq!(out["count"], 100);
}

#[test]
fn pages_that_are_huge_or_misdeclare_their_charset_are_safe() {
    let env = TestEnv::new();
    let big = "<html><body><article>".to_string()
        + &"<p>Motor mount text. </p>".repeat(150_000)
        + "</article></body></html>";
    let web = crate::support::http::TestServer::start(move |req, _| {
        match req.path.as_str() {
        "/big" => crate::support::http::Reply::new(200, big.clone()).header("Content-Type", "text/html"),
        // Declares UTF-8, sends Latin-1 bytes: replacement characters, never a failure.
        _ => crate::support::http::Reply::new(200, b"<html><body><article><p>Cr\xe8me br\xfbl\xe9e after the frame is printed and the motors are mounted, then the build is finished.</p></article></body></html>".to_vec())
            .header("Content-Type", "text/html; charset=utf-8"),
    }
    });
    let r = run(
        &env,
        &[],
        WEB,
        &[
            call("web.fetch_text", json!({"url": web.url("/big")})),
            call("web.fetch_text", json!({"url": web.url("/lying")})),
        ],
    );
    assert_eq!(r[0]["output"]["truncated"], true, "{}", r[0]["error"]);
    assert!(r[0]["output"]["content"].as_str().unwrap().chars().count() <= 200_000);
    let t = r[1]["output"]["content"].as_str().unwrap();
    assert!(t.contains("Cr\u{FFFD}me"), "{t}");
}

#[test]
fn a_turn_uses_selected_turbotime_tools_and_records_the_toggle() {
    let env = TestEnv::new();
    let scry = fx::scryfall();
    env.json(
        &[
            "tool",
            "turbotime",
            "on",
            "--session",
            "s1",
            "--select",
            "scryfall.lookup",
            "news.headline_search",
        ],
        "",
    );
    // TURBOTIME on: the planning path's roles (goal → plan → tools → answer).
    let lines = [
        json!({"role": "goal", "content": "the user wants what the card does"}),
        json!({"role": "plan", "content": "look the card up"}),
        json!({"role": "answer", "content": "", "tool_calls": [
            {"id": "t1", "tool": "scryfall.lookup", "args": {"name": "Lightning Bolt"}},
            {"id": "t2", "tool": "steam.game_lookup", "args": {"appid": 620}}]}),
        json!({"role": "answer", "content": "Lightning Bolt deals 3 damage to any target."}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let script = env.write("script.jsonl", &text);
    let out = env
        .bob(&[
            "turn",
            "--backend",
            &format!("replay:{}", script.display()),
            "--session",
            "s1",
        ])
        .env("BOB_SCRYFALL_BASE_URL", scry.url(""))
        .write_stdin(r#"{"session_id": "s1", "message": "what does bolt do?"}"#)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rec: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        rec["turbotime"],
        json!({"on": true, "selected": ["scryfall.lookup", "news.headline_search"]}),
        "{rec}"
    );
    assert_eq!(rec["tools"][0]["tool_name"], "scryfall.lookup");
    assert_eq!(rec["tools"][0]["status"], "ok", "{rec}");
    assert_eq!(
        rec["tools"][1]["error"]["code"], "policy.denied",
        "not selected: {rec}"
    );
    assert_eq!(scry.requests().len(), 1);
}

// ---- SearchRequest / bob search

/// `bob search ARGS` with `envs`, the SearchRequest on stdin.
pub(crate) fn search(
    env: &TestEnv,
    args: &[&str],
    envs: &[(&str, String)],
    req: &Value,
) -> std::process::Output {
    let mut a = vec!["search"];
    a.extend_from_slice(args);
    let mut cmd = env.bob(&a);
    for (k, v) in envs {
        cmd.env(k, v);
    }
    cmd.write_stdin(req.to_string()).output().unwrap()
}

fn site() -> crate::support::http::TestServer {
    use crate::support::http::{Reply, TestServer};
    TestServer::start(|req, _| {
        let page = |title: &str, body: &str| {
            Reply::new(200, format!("<html><head><title>{title}</title></head><body><article><h1>{title}</h1><p>{body}</p></article></body></html>"))
                .header("Content-Type", "text/html")
        };
        match req.path.as_str() {
            "/start" => page(
                "Cinewhoop guide",
                "Start here for the whole cinewhoop build, from the frame to the first flight. <a href=\"/a\">motors</a> <a href=\"/b#x\">props</a> <a href=\"/login\">login</a> <a href=\"/c\">c</a> <a href=\"mailto:x@y\">mail</a>",
            ),
            "/a" => page(
                "Motors",
                "Use 1404 motors at 4500KV for a three and a half inch cinewhoop build, tested for a year.",
            ),
            "/b" => page(
                "Props",
                "Three blade props of 3.5 inches in diameter are what most builders pick for this frame.",
            ),
            _ => Reply::new(404, "nope"),
        }
    })
}

#[test]
fn bob_search_http_mode_follows_links_and_stages_every_fetch() {
    let env = TestEnv::new();
    let s = site();
    let req = json!({"type": "search_request", "queries": [s.url("/start")], "fetch_mode": "http",
        "k_per_query": 3, "max_pages_per_query": 3, "follow_links": true, "follow_links_depth": 1,
        "max_links_per_page": 3, "deny_patterns": ["LOGIN"], "save_raw": true, "persist_memory": true});
    let out = search(
        &env,
        &["--grant", "net:127.0.0.1", "--allow-loopback"],
        &[],
        &req,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let items = v["items"].as_array().unwrap();
    let titles: Vec<&str> = items.iter().map(|i| i["title"].as_str().unwrap()).collect();
    assert_eq!(titles, ["Cinewhoop guide", "Motors", "Props"], "{v}");
    assert_eq!(items[0]["score"], 1.0);
    assert_eq!(items[1]["score"], 0.5);
    assert_eq!(items[1]["source"], "web");
    assert_eq!(items[1]["domain"], "127.0.0.1");
    assert!(
        items[1]["content_md"]
            .as_str()
            .unwrap()
            .contains("1404 motors")
    );
    assert!(
        s.requests()
            .iter()
            .all(|r| r.path != "/login" && r.path != "/c"),
        "denied and over the page cap"
    );
    for it in items {
        let staged = env.home().join(it["staged_path"].as_str().unwrap());
        assert!(staged.join("content.md").exists() && staged.join("raw.html").exists());
        let stored: Value =
            serde_json::from_str(&std::fs::read_to_string(staged.join("item.json")).unwrap())
                .unwrap();
        assert_eq!(stored["url"], it["url"]);
    }
    // persist_memory proposes (pending) candidates only.
    assert_eq!(v["memory_candidates"].as_array().unwrap().len(), 3);
    let pending = env.jsonl(&["memory", "candidates"], "");
    assert!(
        pending.iter().all(|c| c["status"] == "pending"),
        "{pending:?}"
    );
    // The call is audited like any tool call.
    assert!(all_files(&env.home().join("audit")).contains("web.search"));
}

#[test]
fn bob_search_confines_file_mode() {
    let env = TestEnv::new();
    let out = search(
        &env,
        &[],
        &[],
        &json!({"queries": ["a.html"], "fetch_mode": "file"}),
    );
    crate::env::error_of(&out, 3, "sandbox.required");
    let out = search(
        &env,
        &[],
        &[],
        &json!({"queries": [], "fetch_mode": "http"}),
    );
    crate::env::error_of(&out, 2, "tool.input_invalid");

    let root = env.path("root");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("page.html"), "<html><head><title>Local</title></head><body><article><p>Local fixture page about ducts printed in TPU for a cinewhoop frame build.</p></article></body></html>").unwrap();
    std::fs::write(env.path("secret.html"), "outside").unwrap();
    let req = json!({"queries": ["page.html", "file://../secret.html"], "fetch_mode": "file", "save_raw": false});
    let out = search(&env, &["--root", root.to_str().unwrap()], &[], &req);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["count"], 1, "{v}");
    assert_eq!(v["items"][0]["title"], "Local");
    assert_eq!(v["items"][0]["source"], "file");
    assert_eq!(v["errors"].as_array().unwrap().len(), 1);
    let staged = env
        .home()
        .join(v["items"][0]["staged_path"].as_str().unwrap());
    assert!(!staged.join("raw.html").exists(), "save_raw false");
    assert!(!all_files(&env.home()).contains("outside"));
}

#[test]
fn bob_search_api_mode_stages_provider_results() {
    let env = TestEnv::new();
    let serp = fx::serpapi(KEY);
    let envs = vec![
        ("BOB_SERPAPI_BASE_URL", serp.url("")),
        ("SERPAPI_API_KEY", KEY.to_string()),
    ];
    let req = json!({"queries": ["burn deck"], "fetch_mode": "search_api", "k_per_query": 2});
    let out = search(&env, &["--grant", "net:127.0.0.1"], &envs, &req);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    // The result pages are on hosts nobody granted: staged with the provider's snippet.
    assert_eq!(v["count"], 2, "{v}");
    assert_eq!(v["items"][0]["source"], "search_api");
    assert!(
        v["items"][0]["content_md"]
            .as_str()
            .unwrap()
            .contains("Mono-Red")
    );
    assert_eq!(v["errors"][0]["error"]["code"], "policy.denied");
    assert!(!all_files(&env.home()).contains(KEY));
}

// ---- the panda profile (JSON I/O Thinking → Solver)

#[test]
fn panda_parses_thinking_and_solver_outputs_as_contracts() {
    let env = TestEnv::new();
    env.bob(&["tool", "enable", "--session", "p1", "bom.normalize"])
        .assert()
        .success();
    let thinking = json!({"plan": ["normalize the BOM", "answer"],
        "notes": {"facts": ["the user builds a cinewhoop"], "open_qs": [], "decisions": [], "todos": ["price the frame"]},
        "save_plan": {"title": "Cinewhoop build plan", "tags": ["drone"], "body_md": "Normalize, then price.", "importance": 6, "ttl_days": 30}});
    let solver1 = json!({"analysis": "PRIVATE-ANALYSIS need rows", "requests": [], "needs_more_context": false, "final": "",
        "tool_intent": {"action": "bom.normalize", "payload": {"content": "Frame\n4x Motor Mounts", "source": "chat"}}});
    let solver2 = json!({"analysis": "PRIVATE-ANALYSIS done", "requests": [], "tool_intent": null, "needs_more_context": false,
        "final": "Your BOM has 2 rows: 1 Frame and 4 Motor Mounts.",
        "suggest_memory_save": {"title": "Drone parts: cinewhoop", "tags": ["bom"], "body_md": "| part | qty |\n| Frame | 1 |", "importance": 7, "ttl_days": 90}});
    let lines = [
        json!({"role": "thinking", "content": thinking.to_string()}),
        json!({"role": "solver", "content": solver1.to_string()}),
        json!({"role": "solver", "content": format!("```json\n{solver2}\n```")}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let script = env.write("panda.jsonl", &text);
    let out = env
        .bob(&[
            "turn",
            "--profile",
            "panda",
            "--session",
            "p1",
            "--backend",
            &format!("replay:{}", script.display()),
        ])
        .write_stdin(r#"{"session_id": "p1", "message": "normalize my BOM"}"#)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rec: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rec["profile"], "panda");
    assert_eq!(
        rec["output"], "Your BOM has 2 rows: 1 Frame and 4 Motor Mounts.",
        "{rec}"
    );
    assert!(!rec.to_string().contains("PRIVATE-ANALYSIS"));
    assert_eq!(rec["tools"][0]["tool_name"], "bom.normalize");
    assert_eq!(rec["tools"][0]["status"], "ok", "{rec}");
    assert_eq!(
        rec["memory_candidates"].as_array().unwrap().len(),
        2,
        "{rec}"
    );
    let state = env.json(&["state", "show", "--session", "p1"], "");
    let s = state.to_string();
    assert!(
        s.contains("the user builds a cinewhoop") && s.contains("price the frame"),
        "{s}"
    );
}

#[test]
fn chat_mode_stages_mutating_intents_until_a_human_confirms() {
    let env = TestEnv::new();
    let root = env.path("root");
    std::fs::create_dir_all(&root).unwrap();
    env.bob(&[
        "tool",
        "enable",
        "--session",
        "p2",
        "docs.write_spreadsheet",
        "bom.normalize",
    ])
    .assert()
    .success();
    let write = json!({"analysis": "", "final": "", "tool_intent": {"action": "docs.write_spreadsheet",
        "payload": {"rows": [{"part": "Frame", "quantity": 1}], "filename": "bom", "format": "csv"}}});
    let done = json!({"analysis": "", "final": "I prepared the spreadsheet; confirm it to write the file."});
    let lines = [
        json!({"role": "thinking", "content": "{\"plan\": [\"write\"]}"}),
        json!({"role": "solver", "content": write.to_string()}),
        json!({"role": "solver", "content": done.to_string()}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let script = env.write("chat.jsonl", &text);
    let out = env
        .bob(&[
            "turn",
            "--profile",
            "panda",
            "--mode",
            "chat",
            "--session",
            "p2",
            "--backend",
            &format!("replay:{}", script.display()),
        ])
        .env("BOB_TOOL_SANDBOX_ENABLED", "1")
        .env("BOB_TOOL_ROOTS", &root)
        .write_stdin(r#"{"session_id": "p2", "message": "make the BOM sheet"}"#)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rec: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rec["tools"][0]["status"], "requires_confirm", "{rec}");
    assert!(!root.join("bom.csv").exists(), "not executed in chat mode");
    let id = rec["tools"][0]["result_ref"]
        .as_str()
        .unwrap()
        .strip_prefix("confirm:")
        .unwrap()
        .to_string();

    let confirm = |env: &TestEnv| {
        env.bob(&["tool", "confirm", &id, "--session", "p2"])
            .env("BOB_TOOL_SANDBOX_ENABLED", "1")
            .env("BOB_TOOL_ROOTS", &root)
            .output()
            .unwrap()
    };
    let out = confirm(&env);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let resp: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(resp["ok"], true, "{resp}");
    assert_eq!(
        std::fs::read_to_string(root.join("bom.csv")).unwrap(),
        "part,quantity\nFrame,1\n"
    );
    // Once only; the confirmation is audited as a human act.
    crate::env::error_of(&confirm(&env), 4, "not_found");
    assert!(all_files(&env.home().join("audit/human")).contains("\"tool.confirm\""));
    // Act mode runs it at once.
    let mut write2 = write.clone();
    write2["tool_intent"]["payload"]["filename"] = json!("bom2");
    let text2: String = [
        lines[0].clone(),
        json!({"role": "solver", "content": write2.to_string()}),
        lines[2].clone(),
    ]
    .iter()
    .map(|l| format!("{l}\n"))
    .collect();
    let script2 = env.write("act.jsonl", &text2);
    let out = env
        .bob(&[
            "turn",
            "--profile",
            "panda",
            "--mode",
            "act",
            "--session",
            "p2",
            "--backend",
            &format!("replay:{}", script2.display()),
        ])
        .env("BOB_TOOL_SANDBOX_ENABLED", "1")
        .env("BOB_TOOL_ROOTS", &root)
        .write_stdin(r#"{"session_id": "p2", "message": "make it again"}"#)
        .output()
        .unwrap();
    let rec: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rec["tools"][0]["status"], "ok", "{rec}");
    assert!(root.join("bom2.csv").exists());
}

#[test]
fn a_priced_bom_proposes_a_memory_save_and_each_solver_loop_is_traced() {
    let env = TestEnv::new();
    let web = fx::web();
    let serp = fx::serpapi(KEY);
    let root = env.path("root");
    std::fs::create_dir_all(&root).unwrap();
    env.bob(&["tool", "enable", "--session", "p3", "bom.build"])
        .assert()
        .success();
    env.bob(&["caps", "grant", "--session", "p3", "net:127.0.0.1"])
        .assert()
        .success();
    let build = json!({"analysis": "fetch and price", "final": "", "tool_intent": {"action": "bom.build",
        "payload": {"url": web.url("/bom"), "repo": ".", "format": "csv", "use_serpapi": true}}});
    let done = json!({"analysis": "priced", "final": "Here is your priced BOM."});
    let lines = [
        json!({"role": "thinking", "content": "{\"plan\": [\"build\"]}"}),
        json!({"role": "solver", "content": build.to_string()}),
        json!({"role": "solver", "content": done.to_string()}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let script = env.write("bom.jsonl", &text);
    let out = env
        .bob(&[
            "turn",
            "--profile",
            "panda",
            "--session",
            "p3",
            "--backend",
            &format!("replay:{}", script.display()),
        ])
        .env("BOB_TOOL_SANDBOX_ENABLED", "1")
        .env("BOB_TOOL_ROOTS", &root)
        .env("BOB_TOOL_ALLOW_LOOPBACK", "1")
        .env("BOB_SERPAPI_BASE_URL", serp.url(""))
        .env("SERPAPI_API_KEY", KEY)
        .write_stdin(r#"{"session_id": "p3", "message": "price this BOM"}"#)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rec: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rec["tools"][0]["status"], "ok", "{rec}");
    assert_eq!(
        rec["memory_candidates"].as_array().unwrap().len(),
        1,
        "{rec}"
    );
    let cands = env.jsonl(&["memory", "candidates"], "");
    let c = cands
        .iter()
        .find(|c| c.to_string().contains("Priced BOM"))
        .unwrap_or_else(|| panic!("{cands:?}"));
    assert_eq!(c["status"], "pending");
    assert!(c.to_string().contains("Second Hand Shop"), "{c}");
    let trace = std::fs::read_to_string(env.home().join("traces/p3.jsonl")).unwrap();
    let loops: Vec<Value> = trace
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["kind"] == "panda_loop")
        .collect();
    assert_eq!(loops.len(), 2, "{trace}");
    assert_eq!(loops[0]["data"]["tool_intents"][0]["tool"], "bom.build");
    assert_eq!(loops[0]["data"]["termination_reason"], Value::Null);
    assert_eq!(loops[1]["data"]["termination_reason"], "final");
    assert_eq!(loops[1]["data"]["solver_self_history"], "priced");
    assert!(!all_files(&env.home()).contains(KEY));
}

#[test]
fn a_solver_search_request_runs_as_web_search_through_the_gate() {
    let env = TestEnv::new();
    let s = site();
    let sreq = json!({"type": "search_request", "queries": [s.url("/a")], "fetch_mode": "http"});
    let solver1 = json!({"analysis": "", "final": "", "requests": [sreq], "tool_intent": null});
    let solver2 = json!({"analysis": "", "final": "1404 motors."});
    let lines = [
        json!({"role": "thinking", "content": "{\"plan\": [\"search\"]}"}),
        json!({"role": "solver", "content": solver1.to_string()}),
        json!({"role": "solver", "content": solver2.to_string()}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let script = env.write("s.jsonl", &text);
    let turn = |env: &TestEnv| {
        let out = env
            .bob(&[
                "turn",
                "--profile",
                "panda",
                "--session",
                "p4",
                "--backend",
                &format!("replay:{}", script.display()),
            ])
            .env("BOB_TOOL_ALLOW_LOOPBACK", "1")
            .write_stdin(r#"{"session_id": "p4", "message": "which motors?"}"#)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };
    // Not enabled: refused, nothing fetched.
    let rec = turn(&env);
    assert_eq!(rec["tools"][0]["tool_name"], "web.search");
    assert_eq!(rec["tools"][0]["error"]["code"], "policy.denied", "{rec}");
    assert!(s.requests().is_empty());
    env.bob(&["tool", "enable", "--session", "p4", "web.search"])
        .assert()
        .success();
    env.bob(&["caps", "grant", "--session", "p4", "net:127.0.0.1"])
        .assert()
        .success();
    let rec = turn(&env);
    assert_eq!(rec["tools"][0]["status"], "ok", "{rec}");
    assert_eq!(s.requests().len(), 1);
}

/// `SERPAPI_API_KEY` (or `[domain] serpapi_api_key`) may name a secret of the home's store:
/// the tool sends the secret's value, and a missing secret is `not_found` naming the setting.
#[test]
fn a_secret_reference_is_resolved_for_the_serpapi_key() {
    let env = TestEnv::new();
    let serp = fx::serpapi(KEY);
    let q = call(
        "game.knowledge_search",
        json!({"query": "burn deck", "game": "mtg"}),
    );
    // Named before it exists: refused, and nothing is sent.
    let envs = vec![
        ("BOB_SERPAPI_BASE_URL", serp.url("")),
        ("SERPAPI_API_KEY", "secret:serpapi".to_string()),
    ];
    let r = run(&env, &envs, DIRECT, std::slice::from_ref(&q));
    assert_eq!(code(&r[0]), "not_found", "{r:?}");
    assert_eq!(
        r[0]["error"]["details"]["setting"], "SERPAPI_API_KEY",
        "{r:?}"
    );
    assert!(serp.requests().is_empty());
    env.json(&["secrets", "set", "serpapi"], KEY);
    let r = run(&env, &envs, DIRECT, std::slice::from_ref(&q));
    assert_eq!(r[0]["output"]["provider"], "serpapi", "{r:?}");
    assert_eq!(
        r[0]["output"]["results"][0]["domain"],
        "www.mtggoldfish.com"
    );
    // The same through config.toml.
    std::fs::write(
        env.home().join("config.toml"),
        "[domain]\nserpapi_api_key = \"secret:serpapi\"\n",
    )
    .unwrap();
    let envs = vec![("BOB_SERPAPI_BASE_URL", serp.url(""))];
    let r = run(&env, &envs, DIRECT, std::slice::from_ref(&q));
    assert_eq!(r[0]["output"]["provider"], "serpapi", "{r:?}");
    // The key reached the API, and never the tool's output or the audit log.
    assert!(
        serp.requests()
            .iter()
            .all(|q| q.path.contains(&KEY.to_lowercase()) || q.path.contains(KEY))
    );
    for f in ["audit", "traces"] {
        for p in crate::support::files_under(&env.home().join(f)) {
            let text = std::fs::read_to_string(&p).unwrap_or_default();
            assert!(!text.contains(KEY), "{} holds the key", p.display());
        }
    }
}

#[test]
fn news_skips_a_feed_until_its_retry_after_and_says_so() {
    let env = TestEnv::new();
    let feeds = fx::feeds();
    let list = ["/rss", "/busy", "/maint", "/down"]
        .iter()
        .map(|p| feeds.url(p))
        .collect::<Vec<_>>()
        .join(",");
    let envs = vec![("BOB_NEWS_FEEDS", list)];
    let search = || {
        let r = run(
            &env,
            &envs,
            DIRECT,
            &[call("news.headline_search", json!({"query": "bolt"}))],
        );
        r[0]["output"].clone()
    };
    let report = |out: &Value, path: &str| -> Value {
        out["feeds"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["url"] == feeds.url(path))
            .unwrap()
            .clone()
    };
    let hits = |path: &str| feeds.requests().iter().filter(|r| r.path == path).count();
    let out = search();
    assert!(
        out["count"].as_u64().unwrap() > 0,
        "the good feed answers: {out}"
    );
    let busy = report(&out, "/busy");
    assert_eq!(busy["ok"], false);
    assert_eq!(busy["retry_after_s"], 120, "{busy}");
    assert_eq!(busy["skipped"], false);
    assert_eq!(busy["error"]["details"]["status"], 429, "{busy}");
    let maint = report(&out, "/maint");
    assert!(
        maint["retry_after_s"].as_u64().unwrap() > 86_400 * 365,
        "{maint}"
    );
    // A 503 without Retry-After is an ordinary failure, tried again next time.
    assert!(report(&out, "/down").get("retry_after_s").is_none());
    assert_eq!(out["feeds_failed"], 3);

    // Within the wait: no request to the paused feeds, each reported as skipped.
    let out = search();
    let busy = report(&out, "/busy");
    assert_eq!(busy["skipped"], true, "{busy}");
    assert!((119..=120).contains(&busy["retry_after_s"].as_u64().unwrap()));
    assert_eq!(report(&out, "/maint")["skipped"], true);
    assert_eq!(hits("/busy"), 1);
    assert_eq!(hits("/maint"), 1);
    assert_eq!(hits("/down"), 2);
    assert_eq!(report(&out, "/rss")["ok"], true);
}

#[test]
// The child is reaped by `libc::wait4` (for its rusage), not by `Child::wait`.
#[allow(clippy::zombie_processes)]
fn a_million_line_bom_is_streamed_to_a_file_in_bounded_memory() {
    let env = TestEnv::new();
    const N: usize = 1_000_000;
    let forms = [
        "{n}x Motor {i}",
        "Prop {i} x{n}",
        "- ESC {i} - 30A",
        "({n}) Standoff {i}",
    ];
    let mut content = String::with_capacity(N * 16);
    for i in 0..N {
        let f = forms[i % forms.len()];
        content.push_str(
            &f.replace("{i}", &i.to_string())
                .replace("{n}", &(i % 9 + 1).to_string()),
        );
        content.push('\n');
    }
    let input = env.write(
        "big-bom.json",
        // A debug build on a busy machine needs more than the default 30 s for a million
        // lines, and the tool honours its timeout: ask for the policy's maximum.
        &json!({"id": "big", "tool": "bom.normalize", "args": {"content": content, "source": "gen"}, "timeout_ms": 120_000})
            .to_string(),
    );
    drop(content);
    let mut child = env
        .std_command(&[
            "tool",
            "run",
            "--enable",
            "bom.normalize",
            "--input",
            input.to_str().unwrap(),
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let read = |mut r: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut b = Vec::new();
            r.read_to_end(&mut b).unwrap();
            b
        })
    };
    let stdout = read(Box::new(child.stdout.take().unwrap()));
    let stderr = read(Box::new(child.stderr.take().unwrap()));
    // The child's peak anonymous memory (heap), sampled from /proc while it runs: its total
    // RSS also counts the pages of the 200 MB debug binary mapped in from the page cache,
    // which grows with how warm other tests left that cache, not with what bob holds.
    let status_path = format!("/proc/{}/status", child.id());
    let sampler = std::thread::spawn(move || {
        let mut peak_kb = 0u64;
        while let Ok(status) = std::fs::read_to_string(&status_path) {
            let anon = status
                .lines()
                .find_map(|l| l.strip_prefix("RssAnon:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok());
            match anon {
                Some(kb) => peak_kb = peak_kb.max(kb),
                None => break, // a zombie: it has exited
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        peak_kb
    });
    let peak_anon_kb = sampler.join().unwrap();
    child.wait().unwrap();
    let (stdout, stderr) = (stdout.join().unwrap(), stderr.join().unwrap());
    let v: Value = serde_json::from_slice(&stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&stderr)));
    let o = &v["output"];
    assert_eq!(o["count"], N, "{}", v["error"]);
    assert_eq!(o["rows_inline"], 10_000);
    assert_eq!(o["rows"].as_array().unwrap().len(), 10_000);
    assert_eq!(
        o["rows"][1],
        json!({"part": "Prop 1", "quantity": 2, "source": "gen"})
    );
    let path = std::path::PathBuf::from(o["rows_path"].as_str().unwrap());
    assert!(path.starts_with(env.home()), "{path:?}");
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text.lines().count(), N);
    let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(
        last,
        json!({"part": "Standoff 999999", "quantity": 1, "source": "gen"}),
        "rows stay in input order"
    );
    let third: Value = serde_json::from_str(text.lines().nth(2).unwrap()).unwrap();
    assert_eq!(third["notes"], "30A");
    // ~17 MB of input held as text and JSON; a million rows held in memory would be
    // several hundred MB.
    let peak_mb = peak_anon_kb / 1024;
    assert!(peak_mb > 0, "the sampler saw the child run");
    assert!(peak_mb < 200, "peak anonymous memory {peak_mb} MB");
}

#[test]
fn bob_search_file_mode_follows_relative_links_inside_the_root() {
    let env = TestEnv::new();
    let root = env.path("root");
    std::fs::create_dir_all(root.join("guide/parts")).unwrap();
    let page = |title: &str, body: &str| {
        format!(
            "<html><head><title>{title}</title></head><body><article><h1>{title}</h1><p>{body}</p></article></body></html>"
        )
    };
    std::fs::write(
        root.join("guide/index.html"),
        page(
            "Guide",
            "Start here for the cinewhoop build. <a href='parts/motors.html#top'>motors</a> \
             <a href='../props.html'>props</a> <a href='../../../secret.html'>escape</a> \
             <a href='https://example.com/remote'>remote</a> <a href='login.html'>login</a>",
        ),
    )
    .unwrap();
    std::fs::write(
        root.join("guide/parts/motors.html"),
        page(
            "Motors",
            "Four 1404 motors at 4500KV. <a href='deep.html'>deeper</a>",
        ),
    )
    .unwrap();
    std::fs::write(
        root.join("guide/parts/deep.html"),
        page("Deep", "Too deep."),
    )
    .unwrap();
    std::fs::write(
        root.join("props.html"),
        page("Props", "Three blade 3.5 inch props."),
    )
    .unwrap();
    std::fs::write(env.path("secret.html"), page("Secret", "outside the root")).unwrap();
    let req = json!({"queries": ["guide/index.html"], "fetch_mode": "file", "follow_links": true,
        "follow_links_depth": 1, "max_links_per_page": 5, "max_pages_per_query": 10,
        "deny_patterns": ["login"]});
    let out = search(&env, &["--root", root.to_str().unwrap()], &[], &req);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let titles: Vec<&str> = v["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["title"].as_str().unwrap())
        .collect();
    // Depth 1: the two linked files; not the depth-2 page, not the remote link, not the
    // denied one; the `../../..` link resolves inside the root (where there is no such file).
    assert_eq!(titles, ["Guide", "Motors", "Props"], "{v}");
    assert_eq!(v["items"][1]["url"], "guide/parts/motors.html");
    assert_eq!(v["items"][1]["score"], 0.5);
    assert_eq!(v["items"][1]["source"], "file");
    let errors = v["errors"].to_string();
    // `../../../secret.html` is read as `secret.html` inside the root (not found there); the
    // denied link is never read at all.
    assert!(
        errors.contains("\"url\":\"secret.html\"") && errors.contains("not_found"),
        "{errors}"
    );
    assert!(!errors.contains("login"), "{errors}");
    assert!(!all_files(&env.home()).contains("outside the root"));
    // Without follow_links only the page itself.
    let req = json!({"queries": ["guide/index.html"], "fetch_mode": "file"});
    let out = search(&env, &["--root", root.to_str().unwrap()], &[], &req);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["count"], 1);
}

#[test]
fn staged_fetches_are_kept_by_age_and_count() {
    let env = TestEnv::new();
    let root = env.path("root");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(
        root.join("a.html"),
        "<html><head><title>A</title></head><body><p>Alpha page.</p></body></html>",
    )
    .unwrap();
    let staging = env.home().join("scrape_staging");
    let staged = || -> usize {
        std::fs::read_dir(&staging)
            .map(|d| d.filter_map(|e| e.ok()).count())
            .unwrap_or(0)
    };
    let req = json!({"queries": ["a.html", "a.html"], "fetch_mode": "file"});
    let at = |now: &str, args: &[&str]| {
        let mut a = vec!["search", "--root", root.to_str().unwrap()];
        a.extend_from_slice(args);
        let out = env
            .bob(&a)
            .env("BOB_NOW", now)
            .write_stdin(req.to_string())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };
    at("2026-01-01T00:00:00Z", &[]);
    at("2026-01-03T00:00:00Z", &[]);
    assert_eq!(staged(), 4);
    // Something that is not a staged fetch is never touched.
    std::fs::write(staging.join("notes.txt"), "mine").unwrap();
    // Nine days after the first: the first search's fetches are past the 7-day default.
    let v = at("2026-01-10T00:00:00Z", &[]);
    assert_eq!(v["staging_removed"], 2, "{v}");
    assert_eq!(staged(), 5);
    // A count limit keeps the newest.
    let v = at("2026-01-10T01:00:00Z", &["--keep-count", "3"]);
    assert_eq!(v["staging_removed"], 3, "{v}");
    let newest: Vec<String> = std::fs::read_dir(&staging)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter_map(|e| std::fs::read_to_string(e.path().join("item.json")).ok())
        .map(|t| {
            serde_json::from_str::<Value>(&t).unwrap()["fetched_at"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(newest.len(), 3);
    assert_eq!(
        newest
            .iter()
            .filter(|t| t.starts_with("2026-01-10T01"))
            .count(),
        2,
        "{newest:?}"
    );
    // `--gc` alone, from the environment's settings.
    let out = env
        .bob(&["search", "--gc"])
        .env("BOB_NOW", "2026-03-01T00:00:00Z")
        .env("BOB_STAGING_KEEP_DAYS", "30")
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["removed"], 3, "{v}");
    assert_eq!(v["kept"], 0);
    assert!(staging.join("notes.txt").exists());
}

#[test]
fn needs_more_context_goes_back_to_thinking_a_bounded_number_of_times() {
    let env = TestEnv::new();
    let ask = json!({"analysis": "which frame size?", "final": "", "needs_more_context": true,
        "requests": ["frame-size-of-the-build"]});
    // The second Thinking call sees the Solver's requests; the second Solver call sees the
    // new plan: `match` makes the replay refuse any other order.
    let lines = [
        json!({"role": "thinking", "content": "{\"plan\": [\"first look\"]}"}),
        json!({"role": "solver", "content": ask.to_string()}),
        json!({"role": "thinking", "match": "frame-size-of-the-build", "content": "{\"plan\": [\"the frame is 3.5 inch\"]}"}),
        json!({"role": "solver", "match": "the frame is 3.5 inch", "content": json!({"analysis": "done", "final": "Use 3.5 inch props."}).to_string()}),
    ];
    let turn = |env: &TestEnv, session: &str, lines: &[Value]| {
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let script = env.write(&format!("{session}.jsonl"), &text);
        let out = env
            .bob(&[
                "turn",
                "--profile",
                "panda",
                "--session",
                session,
                "--backend",
                &format!("replay:{}", script.display()),
            ])
            .write_stdin(json!({"session_id": session, "message": "which props?"}).to_string())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let rec: Value = serde_json::from_slice(&out.stdout).unwrap();
        let trace =
            std::fs::read_to_string(env.home().join(format!("traces/{session}.jsonl"))).unwrap();
        let events: Vec<Value> = trace
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .filter(|e| e["kind"] == "panda_context_loop" || e["kind"] == "panda_loop")
            .collect();
        (rec, events)
    };
    let (rec, events) = turn(&env, "m1", &lines);
    assert_eq!(rec["output"], "Use 3.5 inch props.", "{rec}");
    let kinds: Vec<(&str, Value)> = events
        .iter()
        .map(|e| {
            (
                e["kind"].as_str().unwrap(),
                e["data"]["termination_reason"].clone(),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("panda_loop", json!("needs_more_context")),
            ("panda_context_loop", Value::Null),
            ("panda_loop", json!("final")),
        ]
    );
    assert_eq!(
        events[1]["data"]["requests"],
        json!(["frame-size-of-the-build"])
    );

    // A Solver that always needs more: two loops back, then its last answer stands.
    let always: Vec<Value> = (0..3)
        .flat_map(|i| {
            [
                json!({"role": "thinking", "content": format!("{{\"plan\": [\"look {i}\"]}}")}),
                json!({"role": "solver", "content": json!({"analysis": "", "final": format!("partial {i}"), "needs_more_context": true, "requests": ["more"]}).to_string()}),
            ]
        })
        .collect();
    let (rec, events) = turn(&env, "m2", &always);
    assert_eq!(rec["output"], "partial 2", "{rec}");
    let loops: Vec<&Value> = events
        .iter()
        .filter(|e| e["kind"] == "panda_context_loop")
        .collect();
    assert_eq!(loops.len(), 3, "{events:?}");
    assert_eq!(loops[2]["data"]["stopped"], "context_limit");
    assert_eq!(loops[2]["data"]["loop"], 2);
}

/// Row files of long BOMs under `cache/bom/` are pruned when another is written: one older
/// than seven days goes, a recent one stays, and a file that is not a row file is never touched.
#[test]
fn old_bom_row_files_are_pruned_when_another_is_written() {
    let env = TestEnv::new();
    let dir = env.home().join("cache/bom");
    std::fs::create_dir_all(&dir).unwrap();
    let old = dir.join(format!("{}.jsonl", "a".repeat(64)));
    let recent = dir.join(format!("{}.jsonl", "b".repeat(64)));
    let other = dir.join("keep-me.txt");
    for f in [&old, &recent, &other] {
        std::fs::write(f, "{}\n").unwrap();
    }
    let days_ago =
        |d: u64| std::time::SystemTime::now() - std::time::Duration::from_secs(d * 86_400);
    for (f, age) in [(&old, 8), (&other, 30), (&recent, 1)] {
        std::fs::File::options()
            .write(true)
            .open(f)
            .unwrap()
            .set_modified(days_ago(age))
            .unwrap();
    }
    let content: String = (0..10_050)
        .map(|i| format!("{}x Part {i}\n", i % 9 + 1))
        .collect();
    let input = env.write(
        "bom.json",
        &json!({"id": "b", "tool": "bom.normalize", "args": {"content": content, "source": "gen"}})
            .to_string(),
    );
    let out = env.json(
        &[
            "tool",
            "run",
            "--enable",
            "bom.normalize",
            "--input",
            input.to_str().unwrap(),
        ],
        "",
    );
    let rows_path = out["output"]["rows_path"].as_str().expect("a spilled BOM");
    assert!(std::path::Path::new(rows_path).is_file(), "{out}");
    assert!(!old.exists(), "a row file older than 7 days is removed");
    assert!(recent.exists(), "a recent row file is kept");
    assert!(
        other.exists(),
        "a file that is not a row file is never touched"
    );
}

/// The response of `call` answered in time: `ok` within its own `timeout_ms` (what `check`
/// then looks at), or `timeout`; never `ok` after the deadline (issue 23, W4).
fn in_time(r: &Value, timeout_ms: u64, check: impl FnOnce(&Value)) {
    if r["ok"] == true {
        assert!(
            r["duration_ms"].as_u64().unwrap() <= timeout_ms,
            "ok after its deadline: {}",
            r["duration_ms"]
        );
        check(&r["output"]);
    } else {
        assert_eq!(code(r), "timeout", "{r}");
    }
}

#[test]
fn pathological_pages_are_bounded_and_answer_within_their_timeout() {
    let env = TestEnv::new();
    // The reports: `<div>`x20,000 (100 KB) took 63 s and answered ok past 30 s; a title of
    // 1.5 MB came back whole.
    let divs = "<div>".repeat(20_000) + "deep words";
    let title = format!(
        "<html><head><title>{}</title></head><body><article><p>{}</p></article></body></html>",
        "T".repeat(1_500_000),
        "Print the frame in PETG, then mount the motors, the props and the ESC on it. ".repeat(5)
    );
    // Nesting the pre-scan must not count as closed: misnested formatting elements (the
    // parser keeps the inner element open) and `<noscript>` (markup: scripting is off).
    let misnested = "<b><div></b>".repeat(20_000) + "<noscript>" + &"<div>".repeat(20_000);
    let web = crate::support::http::TestServer::start(move |req, _| {
        let page = match req.path.as_str() {
            "/divs" => &divs,
            "/misnested" => &misnested,
            _ => &title,
        };
        crate::support::http::Reply::new(200, page.clone()).header("Content-Type", "text/html")
    });
    let r = run(
        &env,
        &[],
        WEB,
        &[
            json!({"id": "d", "tool": "web.fetch_text", "args": {"url": web.url("/divs")}, "timeout_ms": 10_000}),
            json!({"id": "t", "tool": "web.fetch_text", "args": {"url": web.url("/title")}, "timeout_ms": 10_000}),
            json!({"id": "m", "tool": "web.fetch_text", "args": {"url": web.url("/misnested")}, "timeout_ms": 10_000}),
        ],
    );
    in_time(&r[2], 10_000, |o| assert_eq!(o["status"], 200));
    in_time(&r[0], 10_000, |o| {
        assert_eq!(o["status"], 200);
        assert!(o["content"].as_str().unwrap().contains("deep words"), "{o}");
    });
    assert_eq!(r[1]["ok"], true, "{}", r[1]);
    let t = r[1]["output"]["title"].as_str().unwrap();
    assert_eq!(t.chars().count(), 1_000, "the title is capped");
    assert!(
        r[1]["output"]["content"]
            .as_str()
            .unwrap()
            .contains("mount the motors")
    );
    // The audit log holds the capped title too, never the 1.5 MB one.
    assert!(!all_files(&env.home().join("audit")).contains(&"T".repeat(1_001)));
}

#[test]
fn nested_tables_are_read_once_and_bom_normalize_keeps_its_timeout() {
    let env = TestEnv::new();
    // The report: `<table><tr><td>`x400 (6 KB) took 54 s and ignored timeout_ms 2000.
    let nested = "<table><tr><td>".repeat(400);
    // A BOM table inside a layout table: its rows come once, not once per enclosing table.
    let layout = "<table><tr><td><table><tr><td><table><tr><th>Part</th><th>Qty</th></tr><tr><td>Motor</td><td>4</td></tr><tr><td>Frame</td><td>1</td></tr></table></td></tr></table></td></tr></table>";
    let lines: String = (0..300_000)
        .map(|i| format!("{}x Part {i}\n", i % 9 + 1))
        .collect();
    let r = run(
        &env,
        &[],
        &["--enable", "bom.normalize"],
        &[
            json!({"id": "n", "tool": "bom.normalize", "args": {"content": nested, "source": "s"}, "timeout_ms": 2000}),
            json!({"id": "l", "tool": "bom.normalize", "args": {"content": layout, "source": "s"}}),
            // Hundreds of thousands of lines cannot be read in a millisecond: the call says
            // `timeout` and leaves no row file (before, it answered ok whatever the budget).
            json!({"id": "b", "tool": "bom.normalize", "args": {"content": lines, "source": "s"}, "timeout_ms": 1}),
        ],
    );
    in_time(&r[0], 2000, |o| assert_eq!(o["count"], 0, "{o}"));
    assert_eq!(
        r[1]["output"]["rows"],
        json!([
            {"part": "Motor", "quantity": 4, "source": "s"},
            {"part": "Frame", "quantity": 1, "source": "s"}
        ]),
        "{}",
        r[1]
    );
    assert_eq!(code(&r[2]), "timeout", "{}", r[2]);
    let rows_files = std::fs::read_dir(env.home().join("cache/bom"))
        .map(|d| d.count())
        .unwrap_or(0);
    assert_eq!(rows_files, 0, "no row file after a timeout");
}

#[test]
fn csv_cells_starting_with_control_characters_are_neutralised() {
    // The report: a cell starting with LF or NUL was written as is (only `=+-@`, tab and CR
    // were neutralised); a spreadsheet skips such characters and evaluates what follows.
    let env = TestEnv::new();
    let root = env.path("root");
    std::fs::create_dir_all(root.join("proj")).unwrap();
    let root_s = root.to_str().unwrap().to_string();
    let bad = ["\n=1+1", "\r=1+1", "\0=1+1", "\t=1+1", "\n@SUM(A1)"];
    let rows: Vec<Value> = bad
        .iter()
        .map(|b| json!({"part": b, "ok": "Frame"}))
        .collect();
    let r = run(
        &env,
        &[],
        &["--enable-all", "--root", root_s.as_str()],
        &[call(
            "docs.write_spreadsheet",
            json!({"repo": "proj", "rows": rows, "filename": "cells.csv", "format": "csv"}),
        )],
    );
    assert_eq!(r[0]["ok"], true, "{r:?}");
    let text = std::fs::read(root.join("proj/cells.csv")).unwrap();
    let mut rdr = csv::Reader::from_reader(text.as_slice());
    let recs: Vec<csv::StringRecord> = rdr.records().map(|x| x.unwrap()).collect();
    assert_eq!(recs.len(), bad.len());
    for (rec, b) in recs.iter().zip(bad) {
        assert_eq!(&rec[0], format!("'{b}"), "{b:?}");
        assert_eq!(&rec[1], "Frame");
    }
}
