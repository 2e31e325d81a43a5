//! A headless Chromium driven over the W3C WebDriver HTTP API (chromedriver on 127.0.0.1),
//! with nothing but a TCP socket: JSON in, JSON out, one request per connection.
//!
//! [`Browser::start`] needs Debian's `chromium` and `chromium-driver` (`.ci/run` installs them).
//! Without them it returns `None` after a loud notice on stderr, unless `BOB_REQUIRE_BROWSER=1`,
//! where a missing browser fails the test.

use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
/// The W3C element reference key.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

pub struct Browser {
    driver: Child,
    addr: SocketAddr,
    session: String,
    _profile: tempfile::TempDir,
}

/// One found element.
pub struct Element(String);

fn call(addr: SocketAddr, method: &str, path: &str, body: Option<&Value>) -> (u16, Value) {
    let body = body.map(Value::to_string).unwrap_or_default();
    let mut s = TcpStream::connect(addr).expect("connect to chromedriver");
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).unwrap();
    s.write_all(body.as_bytes()).unwrap();
    // chromedriver may keep the connection open: read the head, then Content-Length bytes.
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let split = loop {
        if let Some(p) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break p;
        }
        let n = s.read(&mut chunk).expect("read from chromedriver");
        assert!(n > 0, "chromedriver closed the connection early");
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..split]).into_owned();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    let len: usize = head
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("content-length")
                .then(|| v.trim().parse().ok())?
        })
        .unwrap_or(0);
    let mut body = buf[split + 4..].to_vec();
    while body.len() < len {
        let n = s.read(&mut chunk).expect("read from chromedriver");
        assert!(n > 0, "chromedriver closed the connection early");
        body.extend_from_slice(&chunk[..n]);
    }
    let v = serde_json::from_slice(&body).unwrap_or(Value::Null);
    (status, v)
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl Browser {
    /// A fresh headless Chromium session, or `None` (skipped) where it is not installed.
    pub fn start(test: &str) -> Option<Browser> {
        if !Path::new(CHROMIUM).exists() || !Path::new(CHROMEDRIVER).exists() {
            let msg = format!(
                "{test}: Chromium is not installed ({CHROMIUM}, {CHROMEDRIVER}): \
                 apt-get install chromium chromium-driver"
            );
            if std::env::var("BOB_REQUIRE_BROWSER").as_deref() == Ok("1") {
                panic!("{msg} (BOB_REQUIRE_BROWSER=1)");
            }
            eprintln!("\n!!!!! SKIPPED: {msg} !!!!!\n");
            return None;
        }
        let port = free_port();
        let addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
        let driver = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver");
        let profile = tempfile::tempdir().unwrap();
        let mut b = Browser {
            driver,
            addr,
            session: String::new(),
            _profile: profile,
        };
        let t = Instant::now();
        while TcpStream::connect(addr).is_err() {
            assert!(
                t.elapsed() < Duration::from_secs(20),
                "chromedriver did not start"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        let args = [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-dev-shm-usage",
            "--window-size=1280,1800",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain([format!("--user-data-dir={}", b._profile.path().display())])
        .collect::<Vec<_>>();
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": CHROMIUM, "args": args}}}});
        let (status, v) = call(addr, "POST", "/session", Some(&caps));
        assert_eq!(status, 200, "new session: {v}");
        b.session = v["value"]["sessionId"].as_str().unwrap().to_string();
        Some(b)
    }

    fn cmd(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let p = format!("/session/{}{path}", self.session);
        let (status, v) = call(self.addr, method, &p, body.as_ref());
        assert_eq!(status, 200, "{method} {path}: {v}");
        v["value"].clone()
    }

    pub fn goto(&self, url: &str) {
        self.cmd("POST", "/url", Some(json!({"url": url})));
    }

    /// The first element matching `css`, waiting up to 20 s for it to exist.
    pub fn find(&self, css: &str) -> Element {
        let t = Instant::now();
        loop {
            let p = format!("/session/{}/element", self.session);
            let body = json!({"using": "css selector", "value": css});
            let (status, v) = call(self.addr, "POST", &p, Some(&body));
            if status == 200 {
                return Element(v["value"][ELEMENT].as_str().unwrap().to_string());
            }
            assert!(
                t.elapsed() < Duration::from_secs(20),
                "no element {css}: {v}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Clicks the element matching `css`; finds it again if the page re-rendered it meanwhile.
    pub fn click(&self, css: &str) {
        let t = Instant::now();
        loop {
            let e = self.find(css);
            let p = format!("/session/{}/element/{}/click", self.session, e.0);
            let (status, v) = call(self.addr, "POST", &p, Some(&json!({})));
            if status == 200 {
                return;
            }
            assert!(
                v["value"]["error"] == "stale element reference"
                    && t.elapsed() < Duration::from_secs(20),
                "click {css}: {v}"
            );
        }
    }

    /// Replaces the text of the input matching `css` with `text`, by typing it.
    pub fn type_into(&self, css: &str, text: &str) {
        let e = self.find(css);
        self.cmd("POST", &format!("/element/{}/clear", e.0), Some(json!({})));
        self.cmd(
            "POST",
            &format!("/element/{}/value", e.0),
            Some(json!({"text": text})),
        );
    }

    /// Runs `script` (a function body) in the page and returns its result.
    pub fn eval(&self, script: &str) -> Value {
        self.cmd(
            "POST",
            "/execute/sync",
            Some(json!({"script": script, "args": []})),
        )
    }

    /// Waits up to 20 s for `script` to return `true`.
    pub fn wait_for(&self, what: &str, script: &str) {
        let t = Instant::now();
        while self.eval(script) != Value::Bool(true) {
            assert!(t.elapsed() < Duration::from_secs(20), "never: {what}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Emulates a viewport of `width` x `height` CSS pixels (as a phone would have), through
    /// Chromium's DevTools protocol, which, unlike a window resize, has no minimum width.
    /// `None` clears the emulation.
    pub fn viewport(&self, size: Option<(u32, u32)>) {
        let (cmd, params) = match size {
            Some((w, h)) => (
                "Emulation.setDeviceMetricsOverride",
                json!({"width": w, "height": h, "deviceScaleFactor": 1, "mobile": true}),
            ),
            None => ("Emulation.clearDeviceMetricsOverride", json!({})),
        };
        self.cmd(
            "POST",
            "/goog/cdp/execute",
            Some(json!({"cmd": cmd, "params": params})),
        );
    }

    /// The visible page as PNG bytes.
    pub fn screenshot(&self) -> Vec<u8> {
        use base64::Engine;
        let v = self.cmd("GET", "/screenshot", None);
        base64::engine::general_purpose::STANDARD
            .decode(v.as_str().unwrap())
            .unwrap()
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = call(
                self.addr,
                "DELETE",
                &format!("/session/{}", self.session),
                None,
            );
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}
