//! Domain tools through the binary, against local fixture servers speaking the providers'
//! formats (tests/cli/support/domain.rs): TURBOTIME toggle and selection, scryfall.lookup,
//! steam.game_lookup, game.knowledge_search, news.headline_search.

use crate::TestEnv;
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
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn call(tool: &str, args: Value) -> Value {
    json!({"id": "c1", "tool": tool, "args": args})
}

fn code(r: &Value) -> &str {
    r["error"]["code"].as_str().unwrap_or("")
}

fn scry_env(s: &crate::support::http::TestServer) -> Vec<(&'static str, String)> {
    vec![("BOB_SCRYFALL_BASE_URL", s.url(""))]
}

/// Enable + grant the loopback fixture for one call (no session).
const DIRECT: &[&str] = &["--enable-all", "--grant", "net:127.0.0.1"];

fn all_files(dir: &std::path::Path) -> String {
    let mut text = String::new();
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                text.push_str(&all_files(&p));
            } else if let Ok(b) = std::fs::read(&p) {
                text.push_str(&String::from_utf8_lossy(&b));
            }
        }
    }
    text
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
    std::fs::write(
        env.home().join("config.toml"),
        "[domain]\nscryfal_base_url = 1\n",
    )
    .unwrap();
    let r = run(
        &env,
        &[],
        DIRECT,
        &[call("scryfall.lookup", json!({"name": "Lightning Bolt"}))],
    );
    assert_eq!(code(&r[0]), "invalid.request", "{r:?}");
}
