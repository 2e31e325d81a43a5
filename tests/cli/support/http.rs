//! A small scripted HTTP/1.1 server on 127.0.0.1 for tests: real sockets, real chunked
//! transfer (so SSE arrives in pieces), hung connections, redirects. Each connection serves one
//! request and closes. The handler sees every request and its 0-based arrival number.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or(serde_json::Value::Null)
    }
}

/// What the server answers.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    /// Body pieces, each sent after its delay. More than one piece → chunked encoding.
    pub chunks: Vec<(Duration, Vec<u8>)>,
    /// Accept the request, then send nothing until the server stops (a hung upstream).
    pub hang: bool,
}

impl Reply {
    pub fn new(status: u16, body: impl Into<Vec<u8>>) -> Reply {
        Reply {
            status,
            headers: Vec::new(),
            chunks: vec![(Duration::ZERO, body.into())],
            hang: false,
        }
    }
    pub fn json(status: u16, v: &serde_json::Value) -> Reply {
        Reply::new(status, v.to_string()).header("Content-Type", "application/json")
    }
    /// A `text/event-stream` reply whose events arrive as separate chunks `gap` apart.
    pub fn sse(events: &[String], gap: Duration) -> Reply {
        Reply {
            status: 200,
            headers: vec![("Content-Type".into(), "text/event-stream".into())],
            chunks: events
                .iter()
                .map(|e| (gap, format!("data: {e}\n\n").into_bytes()))
                .collect(),
            hang: false,
        }
    }
    pub fn redirect(location: &str) -> Reply {
        Reply::new(302, "").header("Location", location)
    }
    pub fn hang() -> Reply {
        Reply {
            hang: true,
            ..Reply::new(200, "")
        }
    }
    pub fn header(mut self, k: &str, v: &str) -> Reply {
        self.headers.push((k.to_string(), v.to_string()));
        self
    }
}

type Handler = dyn Fn(&Request, usize) -> Reply + Send + Sync;

pub struct TestServer {
    pub addr: std::net::SocketAddr,
    requests: Arc<Mutex<Vec<Request>>>,
    stop: Arc<AtomicBool>,
}

impl TestServer {
    pub fn start(handler: impl Fn(&Request, usize) -> Reply + Send + Sync + 'static) -> TestServer {
        TestServer::start_at("127.0.0.1", handler)
    }

    /// A server on another loopback address (`127.0.0.2`: a second host for redirect tests).
    pub fn start_at(
        ip: &str,
        handler: impl Fn(&Request, usize) -> Reply + Send + Sync + 'static,
    ) -> TestServer {
        let listener = TcpListener::bind((ip, 0)).expect("bind a loopback address");
        let addr = listener.local_addr().unwrap();
        listener.set_nonblocking(true).unwrap();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let handler: Arc<Handler> = Arc::new(handler);
        let count = Arc::new(AtomicUsize::new(0));
        let (reqs, stop2) = (requests.clone(), stop.clone());
        std::thread::spawn(move || {
            while !stop2.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        let (h, r, s, c) =
                            (handler.clone(), reqs.clone(), stop2.clone(), count.clone());
                        std::thread::spawn(move || serve(stream, &*h, &r, &s, &c));
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(2)),
                }
            }
        });
        TestServer {
            addr,
            requests,
            stop,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    /// Requests received so far, in arrival order.
    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

fn read_request(stream: &TcpStream) -> Option<Request> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let (method, path) = (parts.next()?.to_string(), parts.next()?.to_string());
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        reader.read_line(&mut h).ok()?;
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.push((k.trim().to_string(), v.trim().to_string()));
        }
    }
    let len = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse::<usize>().ok())
        .unwrap_or(0);
    let mut body = vec![0; len];
    reader.read_exact(&mut body).ok()?;
    Some(Request {
        method,
        path,
        headers,
        body,
    })
}

fn serve(
    mut stream: TcpStream,
    handler: &Handler,
    reqs: &Mutex<Vec<Request>>,
    stop: &AtomicBool,
    count: &AtomicUsize,
) {
    let _ = stream.set_nonblocking(false);
    let Some(req) = read_request(&stream) else {
        return;
    };
    let n = count.fetch_add(1, Ordering::SeqCst);
    reqs.lock().unwrap().push(req.clone());
    let reply = handler(&req, n);
    if reply.hang {
        let deadline = Instant::now() + Duration::from_secs(60);
        while !stop.load(Ordering::Relaxed) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        return;
    }
    let chunked = reply.chunks.len() > 1;
    let mut head = format!("HTTP/1.1 {} X\r\nConnection: close\r\n", reply.status);
    for (k, v) in &reply.headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    if chunked {
        head.push_str("Transfer-Encoding: chunked\r\n\r\n");
    } else {
        let len = reply.chunks.first().map_or(0, |c| c.1.len());
        head.push_str(&format!("Content-Length: {len}\r\n\r\n"));
    }
    if stream.write_all(head.as_bytes()).is_err() {
        return;
    }
    for (delay, bytes) in &reply.chunks {
        std::thread::sleep(*delay);
        let ok = if chunked {
            stream
                .write_all(format!("{:x}\r\n", bytes.len()).as_bytes())
                .is_ok()
                && stream.write_all(bytes).is_ok()
                && stream.write_all(b"\r\n").is_ok()
        } else {
            stream.write_all(bytes).is_ok()
        };
        if !ok || stream.flush().is_err() {
            return;
        }
    }
    if chunked {
        let _ = stream.write_all(b"0\r\n\r\n");
    }
    let _ = stream.flush();
}
