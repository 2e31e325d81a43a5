//! `fetch_mode: playwright`: a page rendered by headless Chromium, so text a script writes is
//! read too. The mode keeps its name from the JSON I/O contracts; bob runs no Playwright and
//! no Node: it starts Chromium itself, one process per page.
//!
//! What it promises:
//!
//! * **The policy is bob's, not the browser's.** Chromium starts with
//!   `--proxy-server=http://127.0.0.1:<port>` pointing at a forward proxy bob runs for this one
//!   render ([`proxy`]), `--proxy-bypass-list=<-loopback>` so loopback goes through it too,
//!   and `--host-resolver-rules` mapping every name to nothing (a second wall: the browser
//!   resolves no host itself). Every request of the page (documents, scripts, images, XHR,
//!   redirects) meets the http mode's policy there, by the same code. A refused request fails
//!   in the page and is returned as [`Rendered::blocked`]. WebRTC may not use UDP outside the
//!   proxy, QUIC is off, and the browser's background services (sync, component updates,
//!   safe browsing, metrics) are switched off; what it still tries goes through the proxy and
//!   is refused like any other request the grants do not cover.
//! * **A throwaway profile.** The user data dir (and `HOME`, `XDG_*`, `TMPDIR` of the browser,
//!   whose environment is otherwise empty) is a fresh directory under `<home>/cache/render/`,
//!   removed when the render ends, whatever the outcome. The browser gets `SIGKILL` from the
//!   kernel should bob die mid-render (parent-death signal), and a profile left by such a
//!   death is removed by a later render once it is a day old.
//! * **Bounded.** The page gets `--virtual-time-budget` ([`VIRTUAL_TIME_MS`] of script
//!   timers run at once, so text written by a `setTimeout` is there) and `--dump-dom` prints
//!   the DOM once the page has loaded. The render's time is the call's remaining budget for
//!   one fetch, at most `search.render_timeout_s`: after three quarters of it Chromium stops
//!   loading and dumps what it has (`--timeout`), at the end bob kills the browser's whole
//!   process group (it runs in one of its own) and answers `timeout`. The DOM read back is
//!   capped at [`MAX_DOM_BYTES`] (`truncated`), everything the page receives at
//!   [`proxy::MAX_RENDER_BYTES`].
//! * **The page as http mode sees it.** The main document's final URL (after redirects, each
//!   re-checked), its status (an HTTP error status gives an empty page, as in http mode; over
//!   https bob cannot see the status and takes the page as loaded) and then the same text
//!   extraction of the rendered DOM ([`super::web::page_of`]).
//! * **Chromium missing** is `upstream.error` (retryable: false) naming the path tried and
//!   what to install, before any page is fetched.
//! * **Sandbox.** Run as root (as in CI), Chromium needs `--no-sandbox`; bob passes it only
//!   then. The isolation comes from the proxy policy and the throwaway profile: bob does not
//!   run the browser under its own `shell.exec` sandbox (its seccomp filter and Landlock rules
//!   are made for short commands, not for a browser).

pub mod proxy;

use super::{Ctx, web};
use crate::error::{Code, Error, Result};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Virtual time the page's timers get before the DOM is dumped.
pub const VIRTUAL_TIME_MS: u64 = 5_000;
/// Cap on the rendered DOM read back from the browser.
pub const MAX_DOM_BYTES: usize = 4 * 1024 * 1024;
/// Cap on the browser's stderr kept (to name why a page failed).
const MAX_STDERR_BYTES: usize = 64 * 1024;
/// Default of `search.render_timeout_s`.
pub const DEFAULT_TIMEOUT_S: u64 = 30;

/// Where the browser is looked for when `search.browser` is unset: Debian's binary itself
/// (without its launcher, which adds API keys and extensions), then the usual names on `PATH`.
const CANDIDATES: &[&str] = &[
    "/usr/lib/chromium/chromium",
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
];

/// The switches every render starts Chromium with (besides the profile, proxy and URL).
const SWITCHES: &[&str] = &[
    "--headless",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-client-side-phishing-detection",
    "--disable-domain-reliability",
    "--disable-breakpad",
    "--disable-crash-reporter",
    "--disable-field-trial-config",
    "--metrics-recording-only",
    "--no-pings",
    "--safebrowsing-disable-auto-update",
    "--disable-features=OptimizationHints,MediaRouter,Translate,AutofillServerCommunication,CertificateTransparencyComponentUpdater,DialMediaRouteProvider,HttpsUpgrades,HttpsFirstBalancedModeAutoEnable,NetworkTimeServiceQuerying,SafeBrowsing",
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--disable-dev-shm-usage",
    "--mute-audio",
    "--proxy-bypass-list=<-loopback>",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
];

/// The browser a render runs.
#[derive(Debug, Clone)]
pub struct Browser {
    path: PathBuf,
}

fn executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// `name` itself when it is a path, else the first executable of that name in `path` (the
/// `PATH` bob was started with).
fn on_path(name: &str, path: Option<&str>) -> Option<PathBuf> {
    if name.contains('/') {
        let p = PathBuf::from(name);
        return executable(&p).then_some(p);
    }
    std::env::split_paths(path?)
        .map(|d| d.join(name))
        .find(|p| executable(p))
}

fn missing(tried: &str) -> Error {
    Error::new(
        Code::UpstreamError,
        format!(
            "fetch_mode playwright renders pages with headless Chromium, which was not found ({tried}); install it (Debian: apt-get install chromium) or set search.browser (BOB_BROWSER) to a Chromium or Chrome binary"
        ),
    )
    .retryable(false)
    .with("fetch_mode", "playwright")
    .with("browser", tried.to_string())
}

impl Browser {
    /// The browser of `search.browser`, else the first of `CANDIDATES` found; `upstream.error`
    /// naming what to install when there is none.
    pub fn find(settings: &crate::settings::Settings) -> Result<Browser> {
        let path = settings.env_var("PATH");
        if let Some(p) = settings.path("search.browser") {
            return match on_path(&p.to_string_lossy(), path) {
                Some(path) => Ok(Browser { path }),
                None => Err(missing(&p.display().to_string())),
            };
        }
        CANDIDATES
            .iter()
            .find_map(|c| on_path(c, path))
            .map(|path| Browser { path })
            .ok_or_else(|| missing(&CANDIDATES.join(", ")))
    }
}

/// A rendered page and the requests of it the proxy refused.
pub struct Rendered {
    pub page: web::Page,
    pub blocked: Vec<proxy::Blocked>,
}

/// How the browser process ended.
enum Ended {
    Exited(std::process::ExitStatus),
    Killed,
    /// Stopped once the main document turned out not to be a page.
    NotAPage,
}

/// Reads a pipe to its end on a thread of its own, keeping at most `cap` bytes; the answer
/// is `(bytes, cut)`.
fn drain(
    mut pipe: impl Read + Send + 'static,
    cap: usize,
) -> std::sync::mpsc::Receiver<(Vec<u8>, bool)> {
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    let _ = std::thread::Builder::new()
        .name("bob-render-pipe".into())
        .spawn(move || {
            let mut kept = Vec::new();
            let mut cut = false;
            let mut buf = [0u8; 64 * 1024];
            loop {
                match pipe.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        let room = cap.saturating_sub(kept.len());
                        kept.extend_from_slice(&buf[..n.min(room)]);
                        cut |= n > room;
                    }
                }
            }
            let _ = tx.send((kept, cut));
        });
    rx
}

fn kill_group(pid: u32) {
    if let Some(p) = rustix::process::Pid::from_raw(pid as i32) {
        let _ = rustix::process::kill_process_group(p, rustix::process::Signal::KILL);
    }
}

/// Profiles older than this are left over from a bob that died mid-render.
const STALE_PROFILE: Duration = Duration::from_secs(24 * 3600);

/// Removes the profiles (`profile-*` directories) of `dir` older than [`STALE_PROFILE`]; a
/// live render's is minutes old at most. Nothing is followed through a symlink.
fn sweep(dir: &Path) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let old = std::fs::symlink_metadata(e.path()).is_ok_and(|m| {
            m.is_dir()
                && m.modified()
                    .ok()
                    .and_then(|t| t.elapsed().ok())
                    .is_some_and(|age| age > STALE_PROFILE)
        });
        if old && e.file_name().to_string_lossy().starts_with("profile-") {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

/// Renders `url` (module docs). `deny` are the request's deny patterns.
pub fn render(ctx: &Ctx<'_>, browser: &Browser, url: &str, deny: &[String]) -> Result<Rendered> {
    // Refused up front exactly as http mode refuses it (no browser started for nothing).
    let first = crate::tools::http::check_hop(url, ctx.policy)?;
    let fetch = ctx.deadline.for_fetch();
    fetch.check()?;
    let cap_s = ctx
        .policy
        .settings
        .seconds("search.render_timeout_s")?
        .unwrap_or(DEFAULT_TIMEOUT_S as f64);
    let budget = fetch
        .remaining()
        .min(Duration::try_from_secs_f64(cap_s).unwrap_or(Duration::MAX));
    let started = Instant::now();
    let until = started + budget;
    let soft = budget * 3 / 4;

    let dir = ctx.home.cache_dir().join("render");
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    sweep(&dir);
    let profile = tempfile::Builder::new()
        .prefix("profile-")
        .tempdir_in(&dir)
        .map_err(|e| Error::io(&dir, e))?;
    let proxy = proxy::Proxy::start(proxy::Rules {
        policy: ctx.policy.clone(),
        deny: deny.to_vec(),
        main: first.url.clone(),
        until,
    })?;
    let p = profile.path();
    let mut cmd = Command::new(&browser.path);
    cmd.env_clear()
        .env("HOME", p)
        .env("XDG_CONFIG_HOME", p.join(".config"))
        .env("XDG_CACHE_HOME", p.join(".cache"))
        .env("TMPDIR", p)
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .args(SWITCHES)
        .arg(format!("--user-data-dir={}", p.join("profile").display()))
        .arg(format!("--proxy-server=http://{}", proxy.addr()))
        .arg("--dump-dom")
        .arg(format!("--virtual-time-budget={VIRTUAL_TIME_MS}"))
        .arg(format!("--timeout={}", soft.as_millis().max(1)));
    if rustix::process::geteuid().is_root() {
        cmd.arg("--no-sandbox");
    }
    cmd.arg(first.url.as_str())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    // SAFETY: one prctl between fork and exec (async-signal-safe, no allocation): should bob
    // die mid-render, the kernel kills the browser it started.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(&mut cmd, || {
            rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL))
                .map_err(std::io::Error::from)
        });
    }
    let mut child = cmd.spawn().map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound | std::io::ErrorKind::PermissionDenied => {
            missing(&browser.path.display().to_string())
        }
        _ => Error::new(
            Code::UpstreamError,
            format!("cannot start {}: {e}", browser.path.display()),
        ),
    })?;
    let pid = child.id();
    let out = child.stdout.take().map(|o| drain(o, MAX_DOM_BYTES));
    let err = child.stderr.take().map(|e| drain(e, MAX_STDERR_BYTES));
    let ended = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Ended::Exited(status),
            // Not a page (the main document's type says so): the answer is known now.
            Ok(None) if proxy.main_is_not_a_page() => {
                kill_group(pid);
                let _ = child.wait();
                break Ended::NotAPage;
            }
            Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(20)),
            // Out of time (or the process cannot be watched): the whole group goes.
            _ => {
                kill_group(pid);
                let _ = child.wait();
                break Ended::Killed;
            }
        }
    };
    // Helpers the browser left behind share its process group.
    kill_group(pid);
    let outcome = proxy.finish();
    let grace = Duration::from_secs(2);
    let (dom, cut) = out
        .and_then(|r| r.recv_timeout(grace).ok())
        .unwrap_or_default();
    let (stderr, _) = err
        .and_then(|r| r.recv_timeout(grace).ok())
        .unwrap_or_default();
    // The profile goes whatever happened (the browser is gone).
    let _ = profile.close();

    let ms = budget.as_millis() as u64;
    let stderr = String::from_utf8_lossy(&stderr);
    // Asked only when bob saw no answer of the main document.
    let net_error = || {
        stderr
            .lines()
            .find_map(|l| {
                l.split_once("Page load failed: ")
                    .map(|(_, e)| e.trim().to_string())
            })
            .or_else(|| error_page_code(&dom))
    };
    let timed_out = || {
        Error::new(
            Code::Timeout,
            format!("rendering {url} did not finish within {ms} ms; the browser was stopped"),
        )
        .retryable(false)
        .with("timeout_ms", ms)
    };
    let status = match (&ended, outcome.main) {
        (_, proxy::MainDoc::Failed(e)) => return Err(e),
        (Ended::Killed, _) => return Err(timed_out()),
        (_, proxy::MainDoc::Pending) => match net_error() {
            Some(e) => {
                return Err(Error::new(
                    Code::UpstreamError,
                    format!("the browser could not load {url}: {e}"),
                ));
            }
            None => return Err(timed_out()),
        },
        (_, proxy::MainDoc::Tunnelled { url: final_url }) => {
            if let Some(e) = net_error() {
                return Err(Error::new(
                    Code::UpstreamError,
                    format!("the browser could not load {url}: {e}"),
                ));
            }
            (final_url, 200, None, false)
        }
        (
            _,
            proxy::MainDoc::Answered {
                url,
                status,
                content_type,
                truncated,
            },
        ) => (url, status, content_type, truncated),
    };
    let (final_url, code, content_type, body_cut) = status;
    if code >= 400 {
        return Ok(Rendered {
            page: web::Page::error_status(final_url, code),
            blocked: outcome.blocked,
        });
    }
    if !web::is_text(content_type.as_deref(), b"") {
        return Err(Error::new(
            Code::UpstreamError,
            format!(
                "{final_url} is not a text page (content type {})",
                content_type.as_deref().unwrap_or("unknown")
            ),
        )
        .retryable(false));
    }
    if let Ended::Exited(s) = ended
        && !s.success()
        && dom.is_empty()
    {
        let last = stderr.lines().last().unwrap_or("").to_string();
        return Err(Error::new(
            Code::UpstreamError,
            format!("the browser exited with {s} without a page: {last}"),
        ));
    }
    let dom = String::from_utf8_lossy(&dom).into_owned();
    let page = web::page_of(
        &final_url,
        code,
        dom,
        Some("text/html"),
        "UTF-8",
        cut || body_cut,
        ctx.deadline,
    )?;
    Ok(Rendered {
        page,
        blocked: outcome.blocked,
    })
}

/// The network error of a page the browser could not load, read from the error page it
/// printed instead (`net::ERR_…`): Chromium up to ~130 said `Page load failed: net::ERR_…` on
/// stderr, later ones print only their error page, whose body is `class="neterror"` and whose
/// data names the code. Asked only when bob saw no answer of the main document (refused, or
/// inside an https tunnel), so a site's own page is never read as one.
fn error_page_code(dom: &[u8]) -> Option<String> {
    let dom = String::from_utf8_lossy(dom);
    if !dom.contains("<body class=\"neterror\"") {
        return None;
    }
    let code = dom
        .split_once("\"errorCode\":\"")
        .and_then(|(_, rest)| rest.split_once('"'))
        .map(|(code, _)| code)
        .filter(|c| {
            c.starts_with("ERR_")
                && c.bytes()
                    .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
        })
        .unwrap_or("ERR_FAILED");
    Some(format!("net::{code}"))
}

#[cfg(test)]
mod tests {
    use super::error_page_code;

    #[test]
    fn a_browser_error_page_names_its_network_error() {
        let page = br#"<html><head><script>var loadTimeDataRaw = {"errorCode":"ERR_CONNECTION_CLOSED","title":"x"};</script></head><body class="neterror"><div class="error-code">ERR_CONNECTION_CLOSED</div></body></html>"#;
        assert_eq!(
            error_page_code(page).as_deref(),
            Some("net::ERR_CONNECTION_CLOSED")
        );
        // An error page whose data names no code is still a failure.
        let bare = br#"<html><body class="neterror"><p>no data</p></body></html>"#;
        assert_eq!(error_page_code(bare).as_deref(), Some("net::ERR_FAILED"));
        // A page of the site's own is none, whatever its text says.
        let own = br#"<html><body class="article"><p>"errorCode":"ERR_X"</p></body></html>"#;
        assert_eq!(error_page_code(own), None);
    }
}
