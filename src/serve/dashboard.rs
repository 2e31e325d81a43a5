//! The dashboard (issue 15, Deliver 8): one page and its script and style, embedded in the
//! binary (`include_str!`, no build step), served without auth at `/`, `/dashboard.js`,
//! `/dashboard.css`. The page holds no data: it signs in with a token the user pastes (kept in
//! `sessionStorage`, sent as `Authorization: Bearer`, never in a URL) and reads everything
//! through the token-authenticated API. Values are rendered with `textContent` only, and a
//! strict Content-Security-Policy allows scripts, styles and connections to this origin only
//! (no inline script), no framing.

use super::Shared;
use axum::Router;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
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
