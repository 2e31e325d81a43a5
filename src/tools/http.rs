//! `http.get`: capability-gated GET with hop-by-hop redirect checks, address pinning and a
//! SQLite cache.
//!
//! Each hop: the URL must be http(s); its host must be allowed by the session's `net`
//! capabilities ([`Policy::net_allows`]: whole DNS labels, or one exact IP address); the host is
//! resolved once and every address classified ([`addr`]: every IANA special-purpose IPv4 and
//! IPv6 block, and the IPv4 an IPv6 address embeds); a non-global address is refused, unless it
//! is a direct loopback address and the operator set `--allow-loopback` /
//! `BOB_TOOL_ALLOW_LOOPBACK=1`, or a direct private-use one (RFC 1918, shared/CGN, link-local,
//! unique-local, benchmarking) and the operator set `--allow-private` /
//! `BOB_TOOL_ALLOW_PRIVATE=1` (the tests reach their 127.0.0.1 servers with `--allow-loopback`).
//! An address embedding a non-global IPv4 (mapped, compatible, translated, NAT64, 6to4, Teredo,
//! ISATAP) is refused whatever the settings. The connection is then pinned to the checked
//! addresses so a second DNS answer cannot change the target. Redirects are not followed by
//! the client: each `Location` is a new hop (at most 5). Bodies are capped at 2 MiB
//! (`truncated: true`), the whole call at the request's timeout.
//!
//! The cache (`cache/http.db`, WAL, `secure_delete`) has two tables:
//! * `http_responses`: the final response of a fetch (2xx only), keyed by the lookup key of the
//!   FINAL URL (after redirects), with its fetch time;
//! * `http_routes`: from the lookup key of a requested URL to the final URL's key, with the
//!   origins (`scheme://host:port`, no user info, path or query) of every hop of the redirect
//!   chain.
//!
//! A hit younger than the TTL (`BOB_HTTP_CACHE_TTL_S`, default 3600 s, by [`clock::now`]) is
//! returned with `cached: true`, and only after the first hop and every later hop of the
//! recorded chain pass the same checks as a live fetch (capability, DNS, address class) for
//! this caller: a caller not allowed a redirect target gets `policy.denied` (with
//! `cached: true` in the details), never the body. A URL with no route of its own finds an
//! entry stored under it as a final URL (it has no other hop to check).
//!
//! Nothing secret is at rest: before the write the response (body, content type, every URL)
//! goes through [`Redactor`] (`redact_value`), and each stored URL through `redact_url`
//! masking (user name and password masked, each query value redacted as a field of its name,
//! so `?api_key=…` is masked whole; path and fragment redacted). A hit therefore returns the
//! redacted response. Because the stored URL is redacted, the lookup key is not the URL but
//! HMAC-SHA256 of the full, unredacted URL under a per-home key (`<home>/keys/http-cache.key`,
//! 32 random bytes, mode 0600, made on first use): two URLs differing only in a secret have
//! different keys and never serve each other's body, and the key cannot be brute-forced from
//! the database alone to recover a short secret of a known URL. Opening the cache drops the
//! table of earlier versions (`http_cache`, keyed by the first URL, unredacted).

use super::policy::Policy;
use crate::clock;
use crate::error::{Code, Error, Result};
use crate::home::Home;
use crate::redact::{MASK, Redactor};
use serde_json::Value;
use std::net::{IpAddr, SocketAddr, ToSocketAddrs};
use std::time::{Duration, Instant};

/// Cap on a response body.
pub const MAX_BODY: usize = 2 * 1024 * 1024;

/// Reads a response body, keeping at most `cap` bytes; `true` when it was cut there.
pub(crate) async fn read_capped(
    resp: &mut reqwest::Response,
    cap: usize,
) -> Result<(Vec<u8>, bool)> {
    let mut body = Vec::new();
    while let Some(chunk) = resp
        .chunk()
        .await
        .map_err(|e| Error::new(Code::UpstreamError, format!("reading body: {e}")))?
    {
        let room = cap - body.len();
        if chunk.len() > room {
            body.extend_from_slice(&chunk[..room]);
            return Ok((body, true));
        }
        body.extend_from_slice(&chunk);
    }
    Ok((body, false))
}
/// Cap on redirect hops.
pub const MAX_REDIRECTS: usize = 5;

pub mod addr;
pub mod input;

pub use input::HttpGetInput;

fn refused_addr(ip: IpAddr, p: &Policy) -> Option<addr::Refusal> {
    addr::refusal(
        ip,
        addr::Allow {
            loopback: p.allow_loopback,
            private: p.allow_private,
        },
    )
}

/// One checked hop: the URL, its host and the addresses to pin.
pub(crate) struct Hop {
    pub(crate) url: url::Url,
    pub(crate) host: String,
    pub(crate) addrs: Vec<SocketAddr>,
}

/// Checks one hop against the policy (scheme, `net` capability, every resolved address's
/// class); the domain tools reuse it for each hop of their own requests.
pub(crate) fn check_hop(raw: &str, p: &Policy) -> Result<Hop> {
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
        if let Some(r) = refused_addr(a.ip(), p) {
            let unless = match r.setting() {
                Some(flag) => format!("refused unless explicitly allowed ({flag})"),
                None => "refused: it is not globally reachable".to_string(),
            };
            return Err(Error::denied(format!(
                "{host} resolves to {}, which is {unless}",
                r.describe()
            ))
            .with("host", host.clone())
            .with("address", a.ip().to_string())
            .with("address_class", r.block.class.name())
            .with("block", r.block.prefix));
        }
    }
    Ok(Hop { url, host, addrs })
}

fn open_cache(home: &Home) -> Result<rusqlite::Connection> {
    let dir = home.cache_dir();
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    let conn = rusqlite::Connection::open(dir.join("http.db"))?;
    conn.busy_timeout(Duration::from_secs(5))?;
    crate::sqlite::use_wal(&conn, Duration::from_secs(5))?;
    conn.pragma_update(None, "secure_delete", "ON")?;
    let legacy: bool = conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'http_cache')",
        [],
        |r| r.get(0),
    )?;
    if legacy {
        // Earlier versions stored unredacted bodies and URLs: drop them, rebuild the file
        // without the freed pages and empty the WAL, so none of it stays on disk.
        conn.execute_batch("DROP TABLE http_cache; VACUUM;")?;
        conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
    }
    conn.execute_batch(
        "CREATE TABLE IF NOT EXISTS http_routes (
            key BLOB PRIMARY KEY,
            final_key BLOB NOT NULL,
            hops TEXT NOT NULL,
            fetched_at INTEGER NOT NULL
        );
        CREATE TABLE IF NOT EXISTS http_responses (
            key BLOB PRIMARY KEY,
            url TEXT NOT NULL,
            fetched_at INTEGER NOT NULL,
            response TEXT NOT NULL
        );",
    )?;
    Ok(conn)
}

/// The key of the cache's lookup hashes: `<home>/keys/http-cache.key`, 32 random bytes made
/// on first use, readable by the owner only. A missing or damaged key is replaced (the entries
/// hashed with the old one are then never found again, which is only a cache miss).
fn cache_hmac_key(home: &Home) -> Result<Vec<u8>> {
    use rand::RngCore;
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let dir = home.root().join("keys");
    let path = dir.join("http-cache.key");
    let damaged = match std::fs::read(&path) {
        Ok(k) if k.len() == 32 => return Ok(k),
        Ok(_) => true,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
        Err(e) => return Err(Error::io(&path, e)),
    };
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))
        .map_err(|e| Error::io(&dir, e))?;
    let mut key = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut key);
    let tmp = dir.join(format!(".http-cache.key.{}", uuid::Uuid::new_v4().simple()));
    {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&tmp)
            .map_err(|e| Error::io(&tmp, e))?;
        f.write_all(&key).map_err(|e| Error::io(&tmp, e))?;
        f.sync_all().map_err(|e| Error::io(&tmp, e))?;
    }
    // A new key appears whole (link or rename); a concurrent first use keeps the one that won.
    let placed = if damaged {
        std::fs::rename(&tmp, &path)
    } else {
        std::fs::hard_link(&tmp, &path).or_else(|e| match e.kind() {
            std::io::ErrorKind::AlreadyExists => Ok(()),
            _ => Err(e),
        })
    };
    let _ = std::fs::remove_file(&tmp);
    placed.map_err(|e| Error::io(&path, e))?;
    let k = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
    if k.len() != 32 {
        return Err(Error::internal(format!(
            "{} is not a 32-byte key",
            path.display()
        )));
    }
    Ok(k)
}

/// HMAC-SHA256 of the full, unredacted URL under the home's cache key: the lookup key.
fn lookup_key(key: &[u8], url: &str) -> Vec<u8> {
    use hmac::Mac;
    let mut m = hmac::Hmac::<sha2::Sha256>::new_from_slice(key).expect("HMAC takes any key");
    m.update(url.as_bytes());
    m.finalize().into_bytes().to_vec()
}

/// A URL for display at rest: user name and password masked, each query value, the path and
/// the fragment through the redactor (a query field named like a secret, `api_key=…`, is masked
/// whole), then the whole text once more.
fn redact_url(r: &Redactor, raw: &str) -> String {
    let Ok(mut u) = url::Url::parse(raw) else {
        return r.redact_str(raw).into_owned();
    };
    if !u.username().is_empty() {
        let _ = u.set_username("REDACTED");
    }
    if u.password().is_some() {
        let _ = u.set_password(Some("REDACTED"));
    }
    if u.query().is_some() {
        let pairs: Vec<(String, String)> = u.query_pairs().into_owned().collect();
        let mut q = url::form_urlencoded::Serializer::new(String::new());
        for (k, v) in &pairs {
            let mut field = Value::Object(
                [(k.clone(), Value::String(v.clone()))]
                    .into_iter()
                    .collect(),
            );
            r.redact_value(&mut field, "");
            let v = field[k.as_str()].as_str().unwrap_or(MASK).to_string();
            q.append_pair(&r.redact_str(k), &v);
        }
        let q = q.finish();
        u.set_query(Some(&q));
    }
    let path = r.redact_str(u.path()).into_owned();
    u.set_path(&path);
    if let Some(f) = u.fragment() {
        let f = r.redact_str(f).into_owned();
        u.set_fragment(Some(&f));
    }
    r.redact_str(u.as_str()).into_owned()
}

/// A fresh cached response for the first hop, served only if every later hop of its recorded
/// redirect chain passes [`check_hop`] again under this caller's policy (an error otherwise,
/// the one a live fetch would give).
fn cache_lookup(home: &Home, p: &Policy, first: &Hop, now: i64, ttl: i64) -> Result<Option<Value>> {
    let fresh = |at: i64| now >= at && now - at < ttl;
    let key = cache_hmac_key(home)?;
    let conn = open_cache(home)?;
    let route: Option<(Vec<u8>, String, i64)> = conn
        .query_row(
            "SELECT final_key, hops, fetched_at FROM http_routes WHERE key = ?1",
            [lookup_key(&key, first.url.as_str())],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .ok();
    let requested = lookup_key(&key, first.url.as_str());
    // No route: the URL may itself be the final URL of an entry (no hop to re-check).
    let (final_key, hops, at) = route.unwrap_or((requested, "[]".into(), now));
    let Ok(hops) = serde_json::from_str::<Vec<String>>(&hops) else {
        return Ok(None);
    };
    if !fresh(at) {
        return Ok(None);
    }
    for (i, origin) in hops.iter().enumerate().skip(1) {
        check_hop(origin, p).map_err(|e| {
            e.with("redirected_from", hops[..i].to_vec())
                .with("cached", true)
        })?;
    }
    let hit: Option<(i64, String)> = conn
        .query_row(
            "SELECT fetched_at, response FROM http_responses WHERE key = ?1",
            [final_key],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .ok();
    if let Some((at, resp)) = hit
        && fresh(at)
        && let Ok(mut v) = serde_json::from_str::<Value>(&resp)
    {
        v["cached"] = Value::Bool(true);
        v["age_s"] = Value::from(now - at);
        return Ok(Some(v));
    }
    Ok(None)
}

/// Stores a live response: under the final URL's lookup key, redacted, with the origins of
/// every hop (no user info, path or query), and a route from the requested URL's key to it.
fn cache_store(home: &Home, requested: &url::Url, out: &Value, now: i64) -> Result<()> {
    let Some(final_url) = out.get("url").and_then(Value::as_str) else {
        return Ok(());
    };
    let redirects: Vec<&str> = out
        .get("redirects")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let r = Redactor::load(home)?;
    let mut hops = Vec::new();
    for u in redirects.iter().copied().chain([final_url]) {
        let Ok(parsed) = url::Url::parse(u) else {
            return Ok(());
        };
        let origin = parsed.origin().ascii_serialization();
        if r.redact_str(&origin) != origin {
            // An origin the redactor would change cannot be stored as is: no cache entry.
            return Ok(());
        }
        hops.push(origin);
    }
    let mut stored = out.clone();
    stored["url"] = Value::String(redact_url(&r, final_url));
    stored["redirects"] = redirects.iter().map(|u| redact_url(&r, u)).collect();
    r.redact_value(&mut stored, "");
    let key = cache_hmac_key(home)?;
    let final_key = lookup_key(&key, final_url);
    let mut conn = open_cache(home)?;
    let tx = conn.transaction()?;
    tx.execute(
        "INSERT INTO http_responses (key, url, fetched_at, response) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT(key) DO UPDATE SET url = excluded.url, fetched_at = excluded.fetched_at,
         response = excluded.response",
        rusqlite::params![final_key, stored["url"].as_str(), now, stored.to_string()],
    )?;
    tx.execute(
        "INSERT INTO http_routes (key, final_key, hops, fetched_at) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT(key) DO UPDATE SET final_key = excluded.final_key, hops = excluded.hops,
         fetched_at = excluded.fetched_at",
        rusqlite::params![
            lookup_key(&key, requested.as_str()),
            final_key,
            serde_json::to_string(&hops).map_err(|e| Error::internal(e.to_string()))?,
            now
        ],
    )?;
    tx.commit()?;
    Ok(())
}

/// Fetches `input.url` under the policy, using and filling the cache.
pub fn get(home: &Home, p: &Policy, input: &HttpGetInput, timeout: Duration) -> Result<Value> {
    let first = check_hop(&input.url, p)?;
    let now = clock::now()?.timestamp();
    let ttl = p.http_cache_ttl_s as i64;
    if input.use_cache
        && let Some(v) = cache_lookup(home, p, &first, now, ttl)?
    {
        return Ok(v);
    }
    let requested = first.url.clone();
    let out = fetch(first, p, timeout)?;
    if input.use_cache
        && out
            .get("status")
            .and_then(Value::as_u64)
            .is_some_and(|s| (200..300).contains(&s))
    {
        cache_store(home, &requested, &out, now)?;
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

/// The client for one hop: no redirects followed (each is re-checked by the caller), no proxy,
/// and a host name pinned to the addresses the policy already checked (no second lookup).
pub(crate) fn pinned_client(hop: &Hop) -> Result<reqwest::Client> {
    let mut b = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .user_agent(concat!("bob/", env!("CARGO_PKG_VERSION")));
    if hop.url.domain().is_some() {
        b = b.resolve_to_addrs(&hop.host, &hop.addrs);
    }
    b.build()
        .map_err(|e| Error::internal(format!("http client: {e}")))
}

/// `http.get`'s answer as fetched (the cache adds `cached: true` and `age_s` when it serves it).
#[derive(serde::Serialize)]
struct Fetched<'a> {
    url: String,
    status: u16,
    content_type: Option<String>,
    body: std::borrow::Cow<'a, str>,
    bytes: usize,
    truncated: bool,
    redirects: Vec<String>,
    cached: bool,
    fetched_at: String,
    elapsed_ms: u64,
}

async fn hops(first: Hop, p: &Policy) -> Result<Value> {
    let started = Instant::now();
    let mut hop = first;
    let mut chain: Vec<String> = Vec::new();
    loop {
        let client = pinned_client(&hop)?;
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
        let (body, truncated) = read_capped(&mut resp, MAX_BODY).await?;
        return super::spec::answer(&Fetched {
            url: hop.url.to_string(),
            status: status.as_u16(),
            content_type,
            body: String::from_utf8_lossy(&body),
            bytes: body.len(),
            truncated,
            redirects: chain,
            cached: false,
            fetched_at: clock::rfc3339(clock::now()?),
            elapsed_ms: started.elapsed().as_millis() as u64,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_urls_mask_user_info_and_secret_query_values() {
        let r = Redactor::default();
        let u = redact_url(
            &r,
            "https://alice:hunter2pass@api.example.com/v1/sk-proj-abcdefghijklmnopqrstuvwx?page=2&api_key=S3cr3tValue&access_token=T0k#x",
        );
        for secret in ["alice", "hunter2pass", "S3cr3tValue", "T0k", "sk-proj-abc"] {
            assert!(!u.contains(secret), "{secret} in {u}");
        }
        assert!(u.starts_with("https://REDACTED:"), "{u}");
        assert!(u.contains("@api.example.com/v1/"), "{u}");
        assert!(u.contains("page=2"), "{u}");
        assert_eq!(
            redact_url(&r, "http://example.com/a?b=c"),
            "http://example.com/a?b=c"
        );
    }

    #[test]
    fn lookup_keys_depend_on_the_whole_url_and_the_key() {
        let a = lookup_key(b"k1", "http://h/?api_key=AAAA");
        assert_eq!(a.len(), 32);
        assert_ne!(a, lookup_key(b"k1", "http://h/?api_key=AAAB"));
        assert_ne!(a, lookup_key(b"k2", "http://h/?api_key=AAAA"));
        assert_eq!(a, lookup_key(b"k1", "http://h/?api_key=AAAA"));
    }
}
