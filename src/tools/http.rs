//! `http.get`: capability-gated GET with hop-by-hop redirect checks, address pinning and a
//! SQLite cache.
//!
//! Each hop: the URL must be http(s); its host must be allowed by the session's `net`
//! capabilities ([`Policy::net_allows`]); the host is resolved once and every address checked
//! (loopback, private, link-local, unspecified, multicast … refused unless allowed); the
//! connection is then pinned to the checked addresses so a second DNS answer cannot change
//! the target. Redirects are not followed by the client: each `Location` is a new hop
//! (at most 5). Bodies are capped at 2 MiB (`truncated: true`), the whole call at the
//! request's timeout.
//!
//! The cache (`cache/http.db`, WAL) keeps the final response of a URL with its fetch time; a
//! hit younger than the TTL (`BOB_HTTP_CACHE_TTL_S`, default 3600 s, by [`clock::now`]) is
//! returned with `cached: true`. The policy is checked before the cache is consulted.

use super::policy::Policy;
use super::registry::HttpGetInput;
use crate::clock;
use crate::error::{Code, Error, Result};
use crate::home::Home;
use serde_json::{Value, json};
use std::net::{IpAddr, SocketAddr, ToSocketAddrs};
use std::time::{Duration, Instant};

/// Cap on a response body.
pub const MAX_BODY: usize = 2 * 1024 * 1024;
/// Cap on redirect hops.
pub const MAX_REDIRECTS: usize = 5;

fn denied_addr(ip: &IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => {
            let o = v4.octets();
            if v4.is_loopback() {
                Some("loopback")
            } else if v4.is_private() || (o[0] == 100 && (64..128).contains(&o[1])) {
                Some("private")
            } else if v4.is_link_local() {
                Some("link-local")
            } else if v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_multicast()
                || o[0] == 0
                || o[0] >= 240
            {
                Some("reserved")
            } else {
                None
            }
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return denied_addr(&IpAddr::V4(v4));
            }
            let s = v6.segments();
            if v6.is_loopback() {
                Some("loopback")
            } else if (s[0] & 0xfe00) == 0xfc00 {
                Some("private")
            } else if (s[0] & 0xffc0) == 0xfe80 {
                Some("link-local")
            } else if v6.is_unspecified() || v6.is_multicast() {
                Some("reserved")
            } else {
                None
            }
        }
    }
}

fn addr_allowed(ip: &IpAddr, p: &Policy) -> std::result::Result<(), &'static str> {
    match denied_addr(ip) {
        None => Ok(()),
        Some("loopback") if p.allow_loopback => Ok(()),
        Some("private" | "link-local") if p.allow_private => Ok(()),
        Some(why) => Err(why),
    }
}

/// One checked hop: the URL, its host and the addresses to pin.
struct Hop {
    url: url::Url,
    host: String,
    addrs: Vec<SocketAddr>,
}

fn check_hop(raw: &str, p: &Policy) -> Result<Hop> {
    let url = url::Url::parse(raw)
        .map_err(|e| Error::new(Code::ToolInputInvalid, format!("not a URL: {raw:?} ({e})")))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(Error::denied(format!(
            "scheme {:?} is not allowed (http and https only)",
            url.scheme()
        ))
        .with("url", raw.to_string()));
    }
    let host = match url.host() {
        Some(url::Host::Domain(d)) => d.to_string(),
        Some(url::Host::Ipv4(a)) => a.to_string(),
        Some(url::Host::Ipv6(a)) => a.to_string(),
        None => {
            return Err(Error::new(
                Code::ToolInputInvalid,
                format!("URL has no host: {raw:?}"),
            ));
        }
    };
    if !p.net_allows(&host) {
        let how = match &p.session_id {
            Some(s) => format!("a human grants it with `bob caps grant --session {s} net:{host}`"),
            None => format!("the caller grants it with `bob tool run --grant net:{host}`"),
        };
        return Err(Error::denied(format!(
            "http.get to {host} needs the capability net or net:{host}, which is not granted; {how}"
        ))
        .with("host", host)
        .with("url", raw.to_string()));
    }
    let port = url.port_or_known_default().unwrap_or(80);
    let addrs: Vec<SocketAddr> = (host.as_str(), port)
        .to_socket_addrs()
        .map_err(|e| {
            Error::new(Code::UpstreamError, format!("cannot resolve {host}: {e}"))
                .with("host", host.clone())
        })?
        .collect();
    if addrs.is_empty() {
        return Err(Error::new(
            Code::UpstreamError,
            format!("{host} resolves to no address"),
        ));
    }
    for a in &addrs {
        if let Err(why) = addr_allowed(&a.ip(), p) {
            let flag = if why == "loopback" {
                "--allow-loopback / BOB_TOOL_ALLOW_LOOPBACK=1"
            } else {
                "--allow-private / BOB_TOOL_ALLOW_PRIVATE=1"
            };
            return Err(Error::denied(format!("{host} resolves to the {why} address {}, which is refused unless explicitly allowed ({flag})", a.ip()))
                .with("host", host.clone())
                .with("address", a.ip().to_string()));
        }
    }
    Ok(Hop { url, host, addrs })
}

fn open_cache(home: &Home) -> Result<rusqlite::Connection> {
    let dir = home.cache_dir();
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    let conn = rusqlite::Connection::open(dir.join("http.db"))?;
    conn.busy_timeout(Duration::from_secs(5))?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.execute_batch(
        "CREATE TABLE IF NOT EXISTS http_cache (
            url TEXT PRIMARY KEY,
            fetched_at INTEGER NOT NULL,
            response TEXT NOT NULL
        )",
    )?;
    Ok(conn)
}

/// Fetches `input.url` under the policy, using and filling the cache.
pub fn get(home: &Home, p: &Policy, input: &HttpGetInput, timeout: Duration) -> Result<Value> {
    let first = check_hop(&input.url, p)?;
    let now = clock::now()?.timestamp();
    let ttl = p.http_cache_ttl_s as i64;
    if input.use_cache {
        let conn = open_cache(home)?;
        let hit: Option<(i64, String)> = conn
            .query_row(
                "SELECT fetched_at, response FROM http_cache WHERE url = ?1",
                [&input.url],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .ok();
        if let Some((at, resp)) = hit
            && now >= at
            && now - at < ttl
            && let Ok(mut v) = serde_json::from_str::<Value>(&resp)
        {
            v["cached"] = Value::Bool(true);
            v["age_s"] = Value::from(now - at);
            return Ok(v);
        }
    }
    let out = fetch(first, p, timeout)?;
    if input.use_cache
        && out
            .get("status")
            .and_then(Value::as_u64)
            .is_some_and(|s| (200..300).contains(&s))
    {
        let conn = open_cache(home)?;
        conn.execute(
            "INSERT INTO http_cache (url, fetched_at, response) VALUES (?1, ?2, ?3)
             ON CONFLICT(url) DO UPDATE SET fetched_at = excluded.fetched_at, response = excluded.response",
            rusqlite::params![input.url, now, out.to_string()],
        )?;
    }
    Ok(out)
}

/// Runs the hops on a fresh current-thread runtime in its own thread, so it works whether or
/// not the caller is inside a tokio runtime.
fn fetch(first: Hop, p: &Policy, timeout: Duration) -> Result<Value> {
    let p = p.clone();
    std::thread::scope(|s| {
        s.spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| Error::internal(format!("tokio runtime: {e}")))?;
            rt.block_on(async move {
                match tokio::time::timeout(timeout, hops(first, &p)).await {
                    Ok(r) => r,
                    Err(_) => Err(Error::new(
                        Code::Timeout,
                        format!("http.get did not finish within {} ms", timeout.as_millis()),
                    )),
                }
            })
        })
        .join()
        .unwrap_or_else(|_| Err(Error::internal("http.get worker panicked")))
    })
}

async fn hops(first: Hop, p: &Policy) -> Result<Value> {
    let started = Instant::now();
    let mut hop = first;
    let mut chain: Vec<String> = Vec::new();
    loop {
        let mut b = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .user_agent(concat!("bob/", env!("CARGO_PKG_VERSION")));
        if hop.url.domain().is_some() {
            b = b.resolve_to_addrs(&hop.host, &hop.addrs);
        }
        let client = b
            .build()
            .map_err(|e| Error::internal(format!("http client: {e}")))?;
        let mut resp = client.get(hop.url.clone()).send().await.map_err(|e| {
            Error::new(Code::UpstreamError, format!("GET {}: {e}", hop.url))
                .with("url", hop.url.to_string())
        })?;
        let status = resp.status();
        if status.is_redirection()
            && let Some(loc) = resp.headers().get(reqwest::header::LOCATION)
        {
            if chain.len() >= MAX_REDIRECTS {
                return Err(Error::new(
                    Code::UpstreamError,
                    format!("more than {MAX_REDIRECTS} redirects"),
                )
                .with("redirects", chain));
            }
            let loc = loc
                .to_str()
                .map_err(|_| Error::new(Code::UpstreamError, "redirect Location is not text"))?;
            let next = hop.url.join(loc).map_err(|e| {
                Error::new(
                    Code::UpstreamError,
                    format!("bad redirect Location {loc:?}: {e}"),
                )
            })?;
            chain.push(hop.url.to_string());
            hop = check_hop(next.as_str(), p)
                .map_err(|e| e.with("redirected_from", chain.clone()))?;
            continue;
        }
        let content_type = resp
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let mut body = Vec::new();
        let mut truncated = false;
        while let Some(chunk) = resp
            .chunk()
            .await
            .map_err(|e| Error::new(Code::UpstreamError, format!("reading body: {e}")))?
        {
            let room = MAX_BODY - body.len();
            if chunk.len() > room {
                body.extend_from_slice(&chunk[..room]);
                truncated = true;
                break;
            }
            body.extend_from_slice(&chunk);
        }
        return Ok(json!({
            "url": hop.url.to_string(),
            "status": status.as_u16(),
            "content_type": content_type,
            "body": String::from_utf8_lossy(&body),
            "bytes": body.len(),
            "truncated": truncated,
            "redirects": chain,
            "cached": false,
            "fetched_at": clock::rfc3339(clock::now()?),
            "elapsed_ms": started.elapsed().as_millis() as u64,
        }));
    }
}
