//! The loopback forward proxy one render runs behind: the browser's only way out.
//!
//! It listens on `127.0.0.1:<random port>` for the one render that started it (a client that
//! does not run as bob's own user is closed unanswered, `same_user`) and applies to
//! every request the page makes exactly the policy of `fetch_mode: http`, through the same
//! code (`http::check_hop`): the URL must be http(s), its host allowed by the
//! caller's `net` grants (and the operator's allowlist), every resolved address classified
//! (private, loopback and special-purpose addresses refused unless the operator allowed them),
//! the connection pinned to the checked addresses. A URL matching one of the request's
//! `deny_patterns` is refused before any of that.
//!
//! * A plain `http://` request (absolute form) is forwarded with GET or HEAD only (a page
//!   renders by reading; any other method is refused) through the pinned client of
//!   `http.get`, without following redirects: a `3xx` goes back to the browser, whose next
//!   request comes through here and is checked again. A response body is capped at
//!   [`crate::tools::http::MAX_BODY`].
//! * `https://` comes as `CONNECT host:port`: the host (and every address it resolves to) is
//!   checked before the tunnel opens; inside the tunnel bob sees no path, so a deny pattern
//!   is matched against `https://host:port/` there.
//! * Every byte sent back to the browser counts against [`MAX_RENDER_BYTES`] for the whole
//!   render; past it, requests are refused and tunnels cut.
//!
//! A refused request is answered `403` (the page sees a failed load) and recorded as
//! [`Blocked`]. The proxy also follows the main document: the URL the browser was sent to,
//! then each redirect of it, until it is answered ([`MainDoc`]), so the render knows the
//! final URL, the status and whether the page was refused, failed or never answered.

use crate::error::{Code, Error};
use crate::tools::http::{self, MAX_BODY, MAX_REDIRECTS};
use crate::tools::policy::Policy;
use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::{Method, Request, Response, StatusCode, header};
use hyper_util::rt::TokioIo;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Cap on everything one render receives (every response and tunnel together).
pub const MAX_RENDER_BYTES: usize = 16 * 1024 * 1024;
/// At most this many refused requests are recorded per render.
pub const MAX_BLOCKED: usize = 50;

/// What the proxy enforces for one render.
pub struct Rules {
    pub policy: Policy,
    /// The request's `deny_patterns`, matched case-insensitively against each URL.
    pub deny: Vec<String>,
    /// The URL the browser is sent to.
    pub main: url::Url,
    /// When the render ends (upstream waits stop there).
    pub until: Instant,
}

/// What became of the main document.
#[derive(Debug, Clone)]
pub enum MainDoc {
    /// Not answered (yet).
    Pending,
    /// Answered over plain http.
    Answered {
        url: String,
        status: u16,
        content_type: Option<String>,
        truncated: bool,
    },
    /// An https document: its tunnel opened (bob sees no status inside it).
    Tunnelled { url: String },
    /// Refused by the policy, or its upstream failed.
    Failed(Error),
}

/// A request of the page the proxy refused (or could not complete).
#[derive(Debug, Clone)]
pub struct Blocked {
    pub url: String,
    pub error: Error,
}

/// What the proxy saw of one render.
pub struct Outcome {
    pub main: MainDoc,
    pub blocked: Vec<Blocked>,
    /// Bytes sent back to the browser.
    pub bytes: usize,
}

struct State {
    main_url: url::Url,
    redirects: usize,
    main: MainDoc,
    blocked: Vec<Blocked>,
    bytes: usize,
}

struct Shared {
    rules: Rules,
    state: Mutex<State>,
}

impl Shared {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn denied(&self, url: &str) -> bool {
        let u = url.to_lowercase();
        self.rules
            .deny
            .iter()
            .any(|p| u.contains(&p.to_lowercase()))
    }

    /// Records a refusal (and fails the main document when it was the one refused).
    fn block(&self, url: &str, error: Error, is_main: bool) {
        let mut st = self.state();
        if is_main && matches!(st.main, MainDoc::Pending) {
            st.main = MainDoc::Failed(error.clone());
        }
        if st.blocked.len() < MAX_BLOCKED {
            st.blocked.push(Blocked {
                url: url.to_string(),
                error,
            });
        }
    }

    /// Bytes the browser may still receive.
    fn room(&self) -> usize {
        MAX_RENDER_BYTES.saturating_sub(self.state().bytes)
    }

    fn remaining(&self) -> std::time::Duration {
        self.rules.until.saturating_duration_since(Instant::now())
    }

    /// Admits one request: the render's byte cap, the deny patterns, then the policy, off the
    /// proxy's thread (the check resolves the host). A refusal is recorded and answered `403`.
    async fn admit(self: &Arc<Self>, url: &str, is_main: bool) -> Result<http::Hop, Reply> {
        self.check(url).await.map_err(|e| {
            self.block(url, e.clone(), is_main);
            refused(&e)
        })
    }

    async fn check(self: &Arc<Self>, url: &str) -> Result<http::Hop, Error> {
        if self.room() == 0 {
            return Err(Error::new(
                Code::UpstreamError,
                format!("the render received {MAX_RENDER_BYTES} bytes, its cap"),
            ));
        }
        if self.denied(url) {
            return Err(
                Error::denied("the URL matches a deny pattern of the request").with("url", url),
            );
        }
        let me = self.clone();
        let u = url.to_string();
        tokio::task::spawn_blocking(move || http::check_hop(&u, &me.rules.policy))
            .await
            .map_err(|e| Error::internal(format!("policy check: {e}")))?
    }
}

/// The running proxy; [`Proxy::finish`] stops it and says what it saw.
pub struct Proxy {
    addr: SocketAddr,
    shared: Arc<Shared>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Proxy {
    /// Binds `127.0.0.1:0` and serves on a thread of its own until [`Proxy::finish`].
    pub fn start(rules: Rules) -> Result<Proxy, Error> {
        let listener = std::net::TcpListener::bind("127.0.0.1:0")
            .map_err(|e| Error::internal(format!("render proxy: cannot listen: {e}")))?;
        listener
            .set_nonblocking(true)
            .map_err(|e| Error::internal(format!("render proxy: {e}")))?;
        let addr = listener
            .local_addr()
            .map_err(|e| Error::internal(format!("render proxy: {e}")))?;
        let mut main = rules.main.clone();
        main.set_fragment(None);
        let shared = Arc::new(Shared {
            rules,
            state: Mutex::new(State {
                main_url: main,
                redirects: 0,
                main: MainDoc::Pending,
                blocked: Vec::new(),
                bytes: 0,
            }),
        });
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| Error::internal(format!("tokio runtime: {e}")))?;
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let sh = shared.clone();
        let thread = std::thread::Builder::new()
            .name("bob-render-proxy".into())
            .spawn(move || {
                rt.block_on(async move {
                    let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
                        return;
                    };
                    tokio::select! {
                        _ = accept(listener, sh) => {}
                        _ = stopped => {}
                    }
                });
                // Open connections and tunnels end with the runtime; a policy check still
                // resolving a host is left to finish on its own.
                rt.shutdown_background();
            })
            .map_err(|e| Error::internal(format!("render proxy: cannot start: {e}")))?;
        Ok(Proxy {
            addr,
            shared,
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Whether the main document came back as something other than a text page (an image,
    /// an archive): the browser takes it as a download and never renders a DOM, so there is
    /// nothing to wait for.
    pub fn main_is_not_a_page(&self) -> bool {
        matches!(&self.shared.state().main,
            MainDoc::Answered { content_type, .. }
                if !crate::tools::domain::web::is_text(content_type.as_deref(), b""))
    }

    /// Stops serving (every connection closed) and returns what the proxy saw.
    pub fn finish(mut self) -> Outcome {
        self.halt();
        let mut st = self.shared.state();
        Outcome {
            main: st.main.clone(),
            blocked: std::mem::take(&mut st.blocked),
            bytes: st.bytes,
        }
    }

    fn halt(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.halt();
    }
}

async fn accept(listener: tokio::net::TcpListener, shared: Arc<Shared>) {
    let local = listener.local_addr().ok();
    loop {
        let Ok((stream, peer)) = listener.accept().await else {
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            continue;
        };
        if !local.is_some_and(|l| same_user(peer, l)) {
            // Not the browser bob started: closed unanswered.
            continue;
        }
        let sh = shared.clone();
        tokio::spawn(async move {
            let svc = hyper::service::service_fn(move |req| {
                let sh = sh.clone();
                async move { Ok::<_, std::convert::Infallible>(handle(sh, req).await) }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .max_buf_size(64 * 1024)
                .serve_connection(TokioIo::new(stream), svc)
                .with_upgrades()
                .await;
        });
    }
}

type Reply = Response<Full<Bytes>>;

fn reply(status: StatusCode, text: &str) -> Reply {
    let mut r = Response::new(Full::new(Bytes::from(text.to_string())));
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    r
}

fn refused(e: &Error) -> Reply {
    reply(
        StatusCode::FORBIDDEN,
        &format!("refused by bob's network policy: {}", e.message),
    )
}

async fn handle(sh: Arc<Shared>, req: Request<Incoming>) -> Reply {
    if req.method() == Method::CONNECT {
        return connect(sh, req).await;
    }
    let raw = req.uri().to_string();
    let Ok(mut url) = url::Url::parse(&raw) else {
        return reply(
            StatusCode::BAD_REQUEST,
            "a proxy request needs an absolute URL",
        );
    };
    url.set_fragment(None);
    let is_main = sh.state().main_url == url;
    if !matches!(*req.method(), Method::GET | Method::HEAD) {
        let e = Error::denied(format!(
            "{} is refused: a rendered page may only read (GET, HEAD)",
            req.method()
        ));
        sh.block(url.as_str(), e.clone(), is_main);
        return refused(&e);
    }
    let hop = match sh.admit(url.as_str(), is_main).await {
        Ok(h) => h,
        Err(r) => return r,
    };
    match forward(&sh, hop, &req, is_main).await {
        Ok(r) => r,
        Err(e) => {
            sh.block(url.as_str(), e.clone(), is_main);
            reply(StatusCode::BAD_GATEWAY, &e.message)
        }
    }
}

/// Request headers that belong to one connection (or to the proxy), never forwarded.
fn hop_by_hop(name: &header::HeaderName) -> bool {
    let n = name.as_str();
    matches!(
        n,
        "connection"
            | "keep-alive"
            | "te"
            | "trailer"
            | "transfer-encoding"
            | "upgrade"
            | "host"
            | "content-length"
    ) || n.starts_with("proxy-")
}

async fn forward(
    sh: &Arc<Shared>,
    hop: http::Hop,
    req: &Request<Incoming>,
    is_main: bool,
) -> Result<Reply, Error> {
    let client = http::pinned_client(&hop)?;
    let mut headers = req.headers().clone();
    let names: Vec<_> = headers.keys().cloned().collect();
    for n in names.iter().filter(|n| hop_by_hop(n)) {
        headers.remove(n);
    }
    let url = hop.url.clone();
    let send = client
        .request(req.method().clone(), url.clone())
        .headers(headers)
        .send();
    let mut resp = tokio::time::timeout(sh.remaining(), send)
        .await
        .map_err(|_| Error::new(Code::Timeout, format!("{url} did not answer in time")))?
        .map_err(|e| {
            Error::new(
                Code::UpstreamError,
                format!("GET {}: {e}", url.origin().ascii_serialization()),
            )
        })?;
    let status = resp.status();
    let location = resp
        .headers()
        .get(header::LOCATION)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let content_type = resp
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let mut out_headers = resp.headers().clone();
    let cap = MAX_BODY.min(sh.room());
    let (body, truncated) = tokio::time::timeout(sh.remaining(), http::read_capped(&mut resp, cap))
        .await
        .map_err(|_| Error::new(Code::Timeout, format!("{url} did not answer in time")))??;
    {
        let mut st = sh.state();
        st.bytes += body.len();
        if is_main && matches!(st.main, MainDoc::Pending) {
            match location.filter(|_| status.is_redirection()) {
                Some(loc) => {
                    st.redirects += 1;
                    match url.join(&loc) {
                        Ok(mut next) if st.redirects <= MAX_REDIRECTS => {
                            next.set_fragment(None);
                            st.main_url = next;
                        }
                        Ok(_) => {
                            st.main = MainDoc::Failed(Error::new(
                                Code::UpstreamError,
                                format!("more than {MAX_REDIRECTS} redirects"),
                            ));
                        }
                        Err(e) => {
                            st.main = MainDoc::Failed(Error::new(
                                Code::UpstreamError,
                                format!("bad redirect Location {loc:?}: {e}"),
                            ));
                        }
                    }
                }
                None => {
                    st.main = MainDoc::Answered {
                        url: url.to_string(),
                        status: status.as_u16(),
                        content_type,
                        truncated,
                    }
                }
            }
        }
    }
    let names: Vec<_> = out_headers.keys().cloned().collect();
    for n in names.iter().filter(|n| hop_by_hop(n)) {
        out_headers.remove(n);
    }
    let mut r = Response::new(Full::new(Bytes::from(body)));
    *r.status_mut() = status;
    *r.headers_mut() = out_headers;
    Ok(r)
}

/// `CONNECT host:port`: checked as `https://host:port/`, then a tunnel to the checked address.
async fn connect(sh: Arc<Shared>, req: Request<Incoming>) -> Reply {
    let Some(authority) = req.uri().authority().map(|a| a.to_string()) else {
        return reply(StatusCode::BAD_REQUEST, "CONNECT needs host:port");
    };
    let Ok(target) = url::Url::parse(&format!("https://{authority}/")) else {
        return reply(StatusCode::BAD_REQUEST, "CONNECT needs host:port");
    };
    let is_main = {
        let st = sh.state();
        st.main_url.scheme() == "https"
            && st.main_url.host_str() == target.host_str()
            && st.main_url.port_or_known_default() == target.port_or_known_default()
    };
    let hop = match sh.admit(target.as_str(), is_main).await {
        Ok(h) => h,
        Err(r) => return r,
    };
    let upstream = match tokio::time::timeout(
        sh.remaining(),
        tokio::net::TcpStream::connect(&hop.addrs[..]),
    )
    .await
    {
        Ok(Ok(s)) => s,
        Ok(Err(e)) => {
            let e = Error::new(Code::UpstreamError, format!("connect to {authority}: {e}"));
            sh.block(target.as_str(), e.clone(), is_main);
            return reply(StatusCode::BAD_GATEWAY, &e.message);
        }
        Err(_) => {
            let e = Error::new(Code::Timeout, format!("connect to {authority}: no answer"));
            sh.block(target.as_str(), e.clone(), is_main);
            return reply(StatusCode::GATEWAY_TIMEOUT, &e.message);
        }
    };
    if is_main {
        let mut st = sh.state();
        if matches!(st.main, MainDoc::Pending) {
            st.main = MainDoc::Tunnelled {
                url: st.main_url.to_string(),
            };
        }
    }
    tokio::spawn(async move {
        if let Ok(up) = hyper::upgrade::on(req).await {
            tunnel(&sh, TokioIo::new(up), upstream).await;
        }
    });
    Response::new(Full::new(Bytes::new()))
}

/// Copies both ways until both sides end; what comes back counts against the render's cap,
/// and the tunnel is cut when it is reached.
async fn tunnel<C>(sh: &Arc<Shared>, client: C, upstream: tokio::net::TcpStream)
where
    C: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let (mut cr, mut cw) = tokio::io::split(client);
    let (mut ur, mut uw) = upstream.into_split();
    let up = async {
        let _ = tokio::io::copy(&mut cr, &mut uw).await;
        let _ = uw.shutdown().await;
    };
    let back = async {
        let mut buf = vec![0u8; 16 * 1024];
        loop {
            let n = match ur.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            {
                let mut st = sh.state();
                if st.bytes + n > MAX_RENDER_BYTES {
                    break;
                }
                st.bytes += n;
            }
            if cw.write_all(&buf[..n]).await.is_err() {
                break;
            }
        }
        let _ = cw.shutdown().await;
    };
    tokio::join!(up, back);
}

/// Whether the client at `peer` of a connection to `local` runs as this process's user, by
/// the kernel's socket table (`/proc/net/tcp`): the proxy serves the browser bob started, not
/// another local user borrowing the caller's grants. Where the table cannot be read the
/// check cannot be made and the client is served.
fn same_user(peer: SocketAddr, local: SocketAddr) -> bool {
    let (SocketAddr::V4(peer), SocketAddr::V4(local)) = (peer, local) else {
        return false;
    };
    let Ok(table) = std::fs::read_to_string("/proc/net/tcp") else {
        return true;
    };
    socket_owner(&table, peer, local) == Some(rustix::process::geteuid().as_raw())
}

/// The uid owning the IPv4 socket `from` → `to` in a `/proc/net/tcp` table (addresses as
/// the kernel prints them: the address's bytes read as a native `u32`, then `:` and the port,
/// in hex).
fn socket_owner(
    table: &str,
    from: std::net::SocketAddrV4,
    to: std::net::SocketAddrV4,
) -> Option<u32> {
    let hex = |a: std::net::SocketAddrV4| {
        format!(
            "{:08X}:{:04X}",
            u32::from_ne_bytes(a.ip().octets()),
            a.port()
        )
    };
    let (from, to) = (hex(from), hex(to));
    table.lines().skip(1).find_map(|l| {
        let cols: Vec<&str> = l.split_whitespace().collect();
        if cols.get(1) == Some(&from.as_str()) && cols.get(2) == Some(&to.as_str()) {
            cols.get(7)?.parse().ok()
        } else {
            None
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_socket_table_names_the_owner_of_a_loopback_connection() {
        let from: std::net::SocketAddrV4 = "127.0.0.1:51000".parse().unwrap();
        let to: std::net::SocketAddrV4 = "127.0.0.1:8080".parse().unwrap();
        let a = u32::from_ne_bytes([127, 0, 0, 1]);
        let table = format!(
            "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n\
             \x20  0: {a:08X}:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1\n\
             \x20  1: {a:08X}:1F90 {a:08X}:C738 01 00000000:00000000 00:00000000 00000000     0        0 2 1\n\
             \x20  2: {a:08X}:C738 {a:08X}:1F90 01 00000000:00000000 00:00000000 00000000  1000        0 3 1\n"
        );
        assert_eq!(socket_owner(&table, from, to), Some(1000));
        assert_eq!(socket_owner(&table, to, from), Some(0));
        let other: std::net::SocketAddrV4 = "127.0.0.1:51001".parse().unwrap();
        assert_eq!(socket_owner(&table, other, to), None);
    }

    #[test]
    fn a_connection_of_this_process_is_its_own_user() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let c = std::net::TcpStream::connect(l.local_addr().unwrap()).unwrap();
        let (_s, peer) = l.accept().unwrap();
        assert_eq!(peer, c.local_addr().unwrap());
        assert!(same_user(peer, l.local_addr().unwrap()));
    }
}
