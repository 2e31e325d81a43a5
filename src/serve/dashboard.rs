//! The dashboard (issue 15, Deliver 8): one page and its script and style, embedded in the
//! binary (`include_str!`, no build step), served without auth at `/`, `/dashboard.js`,
//! `/dashboard.css`. The page holds no data: it signs in with a token the user pastes (kept in
//! `sessionStorage`, sent as `Authorization: Bearer`, never in a URL) and reads everything
//! through the token-authenticated API. Values are rendered with `textContent` only, and a
//! strict Content-Security-Policy allows scripts, styles and connections to this origin only
//! (no inline script), no framing. [`welcome`] is what `bob serve` tells the person who
//! started it: the page's address and how to get a token.

use super::shared::Shared;
use crate::home::Home;
use axum::Router;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use std::net::SocketAddr;
use std::sync::Arc;

const INDEX: &str = include_str!("dashboard/index.html");
const SCRIPT: &str = include_str!("dashboard/dashboard.js");
const STYLE: &str = include_str!("dashboard/dashboard.css");

const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; \
img-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

fn page(body: &'static str, content_type: &'static str) -> Response {
    let mut r = body.into_response();
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

pub(super) fn routes() -> Router<Arc<Shared>> {
    Router::new()
        .route(
            "/",
            get(|| async { page(INDEX, "text/html; charset=utf-8") }),
        )
        .route(
            "/dashboard.js",
            get(|| async { page(SCRIPT, "text/javascript; charset=utf-8") }),
        )
        .route(
            "/dashboard.css",
            get(|| async { page(STYLE, "text/css; charset=utf-8") }),
        )
}

/// What a person starting the server needs to know, for stderr: the dashboard's URL and how
/// to get a token for it (whether this home has one that works yet). A wildcard bind (`0.0.0.0`,
/// `::`) is shown as the loopback address a browser on this machine can open.
pub fn welcome(home: &Home, addr: SocketAddr) -> String {
    let mut shown = addr;
    if addr.ip().is_unspecified() {
        shown.set_ip(match addr {
            SocketAddr::V4(_) => std::net::Ipv4Addr::LOCALHOST.into(),
            SocketAddr::V6(_) => std::net::Ipv6Addr::LOCALHOST.into(),
        });
    }
    let active = super::auth::list(&super::shared::serve_dir(home))
        .map(|ts| ts.iter().filter(|t| t.revoked_at.is_none()).count())
        .unwrap_or(0);
    let root = home.root().display().to_string();
    let home_arg = shlex::try_quote(&root)
        .map(|q| q.into_owned())
        .unwrap_or_else(|_| root.clone());
    let have = match active {
        0 => "this home has no token yet".to_string(),
        1 => "this home has 1 active token (a token is shown only when it is made)".to_string(),
        n => format!("this home has {n} active tokens (a token is shown only when it is made)"),
    };
    format!(
        "bob serve: dashboard at http://{shown}/\n\
         bob serve: sign in with a token; {have}. Make one with:\n\
         \x20   bob --home {home_arg} serve token create --name dashboard --scope admin"
    )
}
