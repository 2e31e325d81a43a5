//! `bob search` with `fetch_mode: playwright`: pages rendered by a real headless Chromium
//! behind bob's policy proxy, against loopback fixture servers.
//!
//! The tests that start a browser need Debian's `chromium` (`.ci/run` installs it); without
//! it they are skipped after a loud notice, unless `BOB_REQUIRE_BROWSER=1`, where they fail.

use crate::TestEnv;
use crate::domain::search;
use crate::support::http::{Reply, TestServer};
use serde_json::{Value, json};
use std::path::Path;
use std::time::{Duration, Instant};

/// Where the tests expect Chromium (the first is what bob picks by default on Debian).
const CHROMIUM: &[&str] = &["/usr/lib/chromium/chromium", "/usr/bin/chromium"];

/// Whether Chromium is installed; a loud skip (or a failure under `BOB_REQUIRE_BROWSER=1`)
/// when it is not.
fn browser_or_skip(test: &str) -> bool {
    if CHROMIUM.iter().any(|p| Path::new(p).exists()) {
        return true;
    }
    let msg = format!(
        "{test}: Chromium is not installed ({}): apt-get install chromium",
        CHROMIUM.join(", ")
    );
    if std::env::var("BOB_REQUIRE_BROWSER").as_deref() == Ok("1") {
        panic!("{msg} (BOB_REQUIRE_BROWSER=1)");
    }
    eprintln!("\n!!!!! SKIPPED: {msg} !!!!!\n");
    false
}

fn ok_json(out: &std::process::Output) -> Value {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

const LOOPBACK: &[&str] = &["--grant", "net:127.0.0.1", "--allow-loopback"];

fn html(body: &str) -> Reply {
    Reply::new(200, body.to_string()).header("Content-Type", "text/html; charset=utf-8")
}

/// Processes whose command line names `dir` (the browser's profile lives under the home).
fn processes_naming(dir: &Path) -> Vec<String> {
    let needle = dir.to_string_lossy().into_owned();
    let mut found = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        if !e
            .file_name()
            .to_string_lossy()
            .bytes()
            .all(|b| b.is_ascii_digit())
        {
            continue;
        }
        if let Ok(c) = std::fs::read(e.path().join("cmdline")) {
            let c = String::from_utf8_lossy(&c).replace('\0', " ");
            if c.contains(&needle) {
                found.push(format!("{}: {c}", e.file_name().to_string_lossy()));
            }
        }
    }
    found
}

/// No browser left running for this home (a killed process may take a moment to go), and
/// no profile left on disk.
fn assert_no_browser_left(env: &TestEnv) {
    let t = Instant::now();
    let mut left = processes_naming(&env.home());
    while !left.is_empty() && t.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(100));
        left = processes_naming(&env.home());
    }
    assert!(left.is_empty(), "browser processes left: {left:#?}");
    let profiles: Vec<_> = std::fs::read_dir(env.home().join("cache/render"))
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    assert!(profiles.is_empty(), "profiles left: {profiles:?}");
}

/// A page whose text (and one link) only exists once its script has run, 1.5 s after load.
const SCRIPTED: &str = r#"<html><head><title>Motor guide</title></head><body>
<article><h1>Motor guide</h1><div id="out">Loading the guide, please wait.</div></article>
<script>
setTimeout(function () {
  document.getElementById('out').innerHTML =
    '<p>Written by script: use 1404 motors at 4500KV for a three and a half inch cinewhoop, tested over a year of flying.</p>' +
    '<a href="/props">props</a>';
}, 1500);
</script></body></html>"#;

#[test]
fn playwright_mode_reads_the_text_a_script_writes_and_stages_it_like_http_mode() {
    if !browser_or_skip("playwright_mode_reads_the_text_a_script_writes") {
        return;
    }
    let env = TestEnv::new();
    let site = TestServer::start(|req, _| match req.path.as_str() {
        "/guide" => html(SCRIPTED),
        "/props" => html(
            "<html><head><title>Props</title></head><body><article><p>Three blade props of 3.5 inches are what most builders pick for this frame.</p></article></body></html>",
        ),
        _ => Reply::new(404, "nope"),
    });
    // http mode reads the page as served: the script's text is not there.
    let req = json!({"queries": [site.url("/guide")], "fetch_mode": "http", "follow_links": true});
    let v = ok_json(&search(&env, LOOPBACK, &[], &req));
    assert_eq!(v["count"], 1, "the link is written by the script too: {v}");
    let plain = v["items"][0]["content_md"].as_str().unwrap();
    assert!(plain.contains("Loading the guide"), "{plain}");
    assert!(!plain.contains("1404 motors"), "{plain}");

    // A profile a bob that died mid-render left behind, two days ago.
    let stale = env.home().join("cache/render/profile-left-behind");
    std::fs::create_dir_all(stale.join("Default")).unwrap();
    std::fs::File::open(&stale)
        .unwrap()
        .set_modified(std::time::SystemTime::now() - Duration::from_secs(2 * 86_400))
        .unwrap();
    // playwright mode renders it: the script's text and link are there, and followed.
    let req = json!({"queries": [site.url("/guide")], "fetch_mode": "playwright",
        "follow_links": true, "save_raw": true});
    let v = ok_json(&search(&env, LOOPBACK, &[], &req));
    assert_eq!(v["fetch_mode"], "playwright");
    let items = v["items"].as_array().unwrap();
    let titles: Vec<&str> = items.iter().map(|i| i["title"].as_str().unwrap()).collect();
    assert_eq!(titles, ["Motor guide", "Props"], "{v}");
    let first = &items[0];
    assert_eq!(first["source"], "web");
    assert_eq!(first["url"], site.url("/guide"));
    assert_eq!(first["domain"], "127.0.0.1");
    let text = first["content_md"].as_str().unwrap();
    assert!(
        text.contains("Written by script: use 1404 motors"),
        "{text}"
    );
    assert!(!text.contains("Loading the guide"), "{text}");
    assert_eq!(items[1]["score"], 0.5);
    assert!(
        items[1]["content_md"]
            .as_str()
            .unwrap()
            .contains("Three blade props")
    );
    // Staged as http mode stages: content.md, the rendered DOM as raw.html, item.json.
    let staged = env.home().join(first["staged_path"].as_str().unwrap());
    let content = std::fs::read_to_string(staged.join("content.md")).unwrap();
    assert!(content.contains("1404 motors"));
    let raw = std::fs::read_to_string(staged.join("raw.html")).unwrap();
    assert!(
        raw.contains("Written by script") && raw.contains("href=\"/props\""),
        "{raw}"
    );
    let stored: Value =
        serde_json::from_str(&std::fs::read_to_string(staged.join("item.json")).unwrap()).unwrap();
    assert_eq!(stored["url"], first["url"]);
    assert_eq!(stored["source"], "web");
    // The browser came through bob's proxy: the fixture saw the page and the followed link.
    let paths: Vec<String> = site.requests().iter().map(|r| r.path.clone()).collect();
    assert!(
        paths.iter().filter(|p| *p == "/guide").count() >= 2,
        "{paths:?}"
    );
    assert!(paths.contains(&"/props".to_string()), "{paths:?}");
    // Audited like any tool call, and nothing of the browser is left.
    assert!(
        crate::support::files_under(&env.home().join("audit"))
            .iter()
            .filter_map(|p| std::fs::read_to_string(p).ok())
            .any(|t| t.contains("web.search"))
    );
    assert_no_browser_left(&env);
}

#[test]
fn a_rendered_page_reaches_nothing_the_policy_refuses() {
    if !browser_or_skip("a_rendered_page_reaches_nothing_the_policy_refuses") {
        return;
    }
    let env = TestEnv::new();
    // Another server: granted by no one (the caller grants 127.0.0.1, the page calls it
    // "localhost").
    let other = TestServer::start(|_, _| html("<p>secret</p>"));
    let other_url = format!("http://localhost:{}", other.addr.port());
    let page = format!(
        r#"<html><head><title>Leaky page</title>
<script src="{o}/script.js"></script></head><body>
<article><h1>Leaky page</h1><p id="t">A page about frames that tries to load things it may not, in four different ways.</p></article>
<img src="{o}/pixel.png"><img src="/hop"><img src="/tracker.gif"><img src="{tls}/tls.png">
<script>
fetch('{o}/xhr?leak=1').catch(function () {{}});
fetch('/submit', {{method: 'POST', body: 'x'}}).catch(function () {{}});
document.getElementById('t').textContent += ' Rendered.';
</script></body></html>"#,
        o = other_url,
        tls = other_url.replace("http://", "https://")
    );
    let redirect_to = format!("{other_url}/redirected");
    let site = TestServer::start(move |req, _| match req.path.as_str() {
        "/page" => html(&page),
        "/hop" => Reply::redirect(&redirect_to),
        _ => Reply::new(404, "nope"),
    });
    let req = json!({"queries": [site.url("/page"), format!("{other_url}/direct"), site.url("/hop")],
        "fetch_mode": "playwright", "deny_patterns": ["TRACKER"]});
    let v = ok_json(&search(&env, LOOPBACK, &[], &req));
    // The page itself is staged, rendered.
    assert_eq!(v["count"], 1, "{v}");
    assert!(
        v["items"][0]["content_md"]
            .as_str()
            .unwrap()
            .contains("Rendered.")
    );
    // A start URL the grants do not cover fails exactly as in http mode.
    let errors = v["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 2, "{v}");
    assert_eq!(errors[0]["error"]["code"], "policy.denied");
    assert_eq!(errors[0]["url"], format!("{other_url}/direct"));
    // So does a start URL whose redirect leads where the grants do not reach: the redirect
    // is checked again, hop by hop.
    assert_eq!(errors[1]["url"], site.url("/hop"));
    assert_eq!(errors[1]["error"]["code"], "policy.denied", "{v}");
    // The other server saw nothing at all: not the script, the image, the fetch, the
    // redirect target nor the start URL.
    assert!(other.requests().is_empty(), "{:?}", other.requests());
    // The page's own server: the redirect was asked for (and its target refused), the
    // denied path and the POST never arrived.
    let seen = site.requests();
    assert!(seen.iter().any(|r| r.path == "/hop"), "{seen:?}");
    assert!(seen.iter().all(|r| !r.path.contains("tracker")), "{seen:?}");
    assert!(seen.iter().all(|r| r.method == "GET"), "{seen:?}");
    // Each refusal is listed with the page it came from.
    let blocked = v["blocked"].as_array().unwrap();
    let refused = |needle: &str| {
        blocked
            .iter()
            .find(|b| b["url"].as_str().unwrap().contains(needle))
            .unwrap_or_else(|| panic!("{needle} not in {blocked:#?}"))
    };
    for needle in ["/script.js", "/pixel.png", "/xhr?leak=1", "/redirected"] {
        let b = refused(needle);
        assert_eq!(b["error"]["code"], "policy.denied", "{b}");
        assert_eq!(b["page"], site.url("/page"));
        assert!(b["url"].as_str().unwrap().starts_with(&other_url), "{b}");
    }
    assert_eq!(refused("/tracker.gif")["error"]["code"], "policy.denied");
    // https comes as CONNECT: the host is checked before any tunnel opens.
    let tls = refused(&other_url.replace("http://", "https://"));
    assert_eq!(tls["error"]["code"], "policy.denied", "{tls}");
    assert!(
        refused("/submit")["error"]["message"]
            .as_str()
            .unwrap()
            .contains("POST")
    );
    assert_no_browser_left(&env);
}

#[test]
fn an_https_page_goes_through_a_checked_tunnel_and_its_failure_is_named() {
    if !browser_or_skip("an_https_page_goes_through_a_checked_tunnel") {
        return;
    }
    let env = TestEnv::new();
    // A granted host that does not speak TLS: the tunnel opens, the handshake fails.
    let plain = TestServer::start(|_, _| html("<p>not tls</p>"));
    let url = format!("https://127.0.0.1:{}/secure", plain.addr.port());
    let req = json!({"queries": [url], "fetch_mode": "playwright"});
    let v = ok_json(&search(&env, LOOPBACK, &[], &req));
    assert_eq!(v["count"], 0, "{v}");
    let e = &v["errors"][0];
    assert_eq!(e["error"]["code"], "upstream.error", "{v}");
    let msg = e["error"]["message"].as_str().unwrap();
    assert!(msg.contains("net::ERR_"), "{msg}");
    // Without the grant the tunnel is refused before any connection: policy.denied.
    let v = ok_json(&search(&env, &["--allow-loopback"], &[], &req));
    assert_eq!(v["errors"][0]["error"]["code"], "policy.denied", "{v}");
    assert_no_browser_left(&env);
}

#[test]
fn the_rendered_dom_read_back_is_capped() {
    if !browser_or_skip("the_rendered_dom_read_back_is_capped") {
        return;
    }
    let env = TestEnv::new();
    // A small page whose script writes a 6 MB document.
    let site = TestServer::start(|_, _| {
        html(
            "<html><head><title>Huge</title></head><body><p id=\"h\">start</p><script>document.getElementById('h').textContent = 'frame '.repeat(1000000);</script></body></html>",
        )
    });
    let req = json!({"queries": [site.url("/huge")], "fetch_mode": "playwright"});
    let v = ok_json(&search(&env, LOOPBACK, &[], &req));
    assert_eq!(v["count"], 1, "{v}");
    let staged = env
        .home()
        .join(v["items"][0]["staged_path"].as_str().unwrap());
    let raw = std::fs::metadata(staged.join("raw.html")).unwrap().len();
    assert!(raw > 1_000_000, "the rendered DOM is staged: {raw} bytes");
    assert!(
        raw <= 4 * 1024 * 1024,
        "read back at most 4 MiB: {raw} bytes"
    );
    assert_no_browser_left(&env);
}

#[test]
fn a_hung_subresource_leaves_the_page_as_it_stood() {
    if !browser_or_skip("a_hung_subresource_leaves_the_page_as_it_stood") {
        return;
    }
    let env = TestEnv::new();
    let site = TestServer::start(|req, _| match req.path.as_str() {
        "/page" => html(
            "<html><head><title>Slow image</title></head><body><article><p id=\"t\">The frame guide, with an image whose server never answers.</p></article><img src=\"/slow.png\"><script>setTimeout(function () { document.getElementById('t').textContent += ' Script ran.'; }, 300);</script></body></html>",
        ),
        _ => Reply::hang(),
    });
    let req = json!({"queries": [site.url("/page")], "fetch_mode": "playwright"});
    let out = search(
        &env,
        LOOPBACK,
        // Room for a slow start on a loaded machine: the browser stops loading at 7.5 s.
        &[("BOB_RENDER_TIMEOUT_S", "10".to_string())],
        &req,
    );
    let v = ok_json(&out);
    // After three quarters of its time the browser stops loading and the DOM as it stands
    // is read: the page is staged with its script's text.
    assert_eq!(v["count"], 1, "{v}");
    let text = v["items"][0]["content_md"].as_str().unwrap();
    assert!(text.contains("never answers. Script ran."), "{text}");
    assert!(site.requests().iter().any(|r| r.path == "/slow.png"));
    assert_no_browser_left(&env);
}

#[test]
fn a_page_that_never_finishes_is_a_timeout_and_leaves_no_browser() {
    if !browser_or_skip("a_page_that_never_finishes_is_a_timeout") {
        return;
    }
    let env = TestEnv::new();
    let site = TestServer::start(|req, _| match req.path.as_str() {
        // A script that never returns: the DOM is never dumped.
        "/busy" => html("<html><body><p>busy</p><script>while (true) {}</script></body></html>"),
        // A server that never answers.
        _ => Reply::hang(),
    });
    let req =
        json!({"queries": [site.url("/busy"), site.url("/hung")], "fetch_mode": "playwright"});
    let started = Instant::now();
    let out = search(
        &env,
        LOOPBACK,
        &[("BOB_RENDER_TIMEOUT_S", "4".to_string())],
        &req,
    );
    let v = ok_json(&out);
    assert!(
        started.elapsed() < Duration::from_secs(40),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(v["count"], 0, "{v}");
    let errors = v["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 2, "{v}");
    for e in errors {
        assert_eq!(e["error"]["code"], "timeout", "{e}");
    }
    assert!(
        errors[0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("the browser was stopped")
    );
    assert_no_browser_left(&env);
    // Nothing was staged for them.
    assert!(
        !env.home().join("scrape_staging").exists() || {
            std::fs::read_dir(env.home().join("scrape_staging"))
                .unwrap()
                .next()
                .is_none()
        }
    );
}

#[test]
fn a_browser_does_not_outlive_a_bob_killed_mid_render() {
    if !browser_or_skip("a_browser_does_not_outlive_a_bob_killed_mid_render") {
        return;
    }
    let env = TestEnv::new();
    let site = TestServer::start(|_, _| {
        html("<html><body><p>busy</p><script>while (true) {}</script></body></html>")
    });
    let req = json!({"queries": [site.url("/busy")], "fetch_mode": "playwright"});
    let mut cmd = env.std_command(&["search", "--grant", "net:127.0.0.1", "--allow-loopback"]);
    let mut bob = cmd
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = bob.stdin.take().unwrap();
        stdin.write_all(req.to_string().as_bytes()).unwrap();
    }
    // Wait for the browser to be busy with the page, then kill bob outright.
    let t = Instant::now();
    while site.requests().is_empty() {
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "the page was never requested"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(!processes_naming(&env.home()).is_empty(), "a browser runs");
    bob.kill().unwrap();
    bob.wait().unwrap();
    let t = Instant::now();
    let mut left = processes_naming(&env.home());
    while !left.is_empty() && t.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(100));
        left = processes_naming(&env.home());
    }
    assert!(left.is_empty(), "browser processes outlived bob: {left:#?}");
}

#[test]
fn a_missing_browser_is_a_clear_error_before_anything_is_fetched() {
    let env = TestEnv::new();
    let site = TestServer::start(|_, _| html("<p>page</p>"));
    let missing = env.path("no-such-dir/chromium");
    let missing = missing.to_str().unwrap();
    let req = json!({"queries": [site.url("/page")], "fetch_mode": "playwright"});
    let out = search(
        &env,
        LOOPBACK,
        &[("BOB_BROWSER", missing.to_string())],
        &req,
    );
    let e = crate::env::error_of(&out, 6, "upstream.error");
    let msg = e["message"].as_str().unwrap();
    assert!(
        msg.contains("headless Chromium") && msg.contains("apt-get install chromium"),
        "{msg}"
    );
    assert!(msg.contains(missing), "{msg}");
    assert_eq!(e["details"]["browser"], missing);
    assert_eq!(e["retryable"], false);
    assert!(site.requests().is_empty());
    assert!(!env.home().join("scrape_staging").exists());
    // A file that is not executable is no browser either.
    let not_exec = env.write("chromium.txt", "not a browser");
    let out = search(
        &env,
        LOOPBACK,
        &[("BOB_BROWSER", not_exec.to_str().unwrap().to_string())],
        &req,
    );
    crate::env::error_of(&out, 6, "upstream.error");
    // The request is still checked first: a bad one is refused as in every mode.
    let bad = json!({"queries": [], "fetch_mode": "playwright"});
    let out = search(
        &env,
        LOOPBACK,
        &[("BOB_BROWSER", missing.to_string())],
        &bad,
    );
    crate::env::error_of(&out, 2, "tool.input_invalid");
}

#[test]
fn a_start_url_that_is_not_a_page_is_refused_as_in_http_mode_not_waited_for() {
    if !browser_or_skip("a_start_url_that_is_not_a_page") {
        return;
    }
    let env = TestEnv::new();
    // The browser takes this as a download and would never print a DOM.
    let site = TestServer::start(|_, _| {
        Reply::new(200, b"\x89PNG\r\n\x1a\nnot text".to_vec()).header("Content-Type", "image/png")
    });
    let req = json!({"queries": [site.url("/logo.png")], "fetch_mode": "playwright"});
    let out = search(
        &env,
        LOOPBACK,
        &[("BOB_RENDER_TIMEOUT_S", "120".to_string())],
        &req,
    );
    let v = ok_json(&out);
    assert_eq!(v["count"], 0, "{v}");
    let error = &v["errors"][0]["error"];
    assert_eq!(error["code"], "upstream.error", "{v}");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("is not a text page (content type image/png)"),
        "{v}"
    );
    assert_no_browser_left(&env);
}
