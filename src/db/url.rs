//! `database.url`: the URL parsed, its password kept out of everything shown.
//!
//! This module promises:
//!
//! * **What is read.** [`DbUrl::parse`] takes a `postgres://` or `postgresql://` URL (a host
//!   name or a unix-socket directory as `host=` or a percent-encoded host, port, user,
//!   password, dbname, `sslmode` and the other TLS keys [`super::tls`] reads, and the client's
//!   own keys such as `connect_timeout`); anything else is `invalid.request` naming the
//!   setting. A host in the query wins over the authority's (as in libpq).
//! * **The password is never shown.** [`DbUrl::shown`] and [`shown_url`] blank every password
//!   (`***`); a password written `secret:NAME` is a reference to the home's secret store.

use super::{SETTING, tls};
use crate::error::{Error, Result};
use std::str::FromStr;

/// A parsed `database.url`.
#[derive(Clone)]
pub struct DbUrl {
    pub(super) config: postgres::Config,
    shown: String,
    host: String,
    pub(super) password_ref: Option<String>,
    pub(super) tls: tls::TlsSettings,
    /// Whether a host of the URL is reached over TCP (a unix socket never uses TLS).
    pub(super) over_tcp: bool,
}

impl std::fmt::Debug for DbUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.shown)
    }
}

fn bad_url(message: impl std::fmt::Display) -> Error {
    Error::invalid(format!("{SETTING}: {message}")).with("setting", SETTING)
}

impl DbUrl {
    /// Parses a `postgres://` / `postgresql://` URL (see the module docs).
    pub fn parse(text: &str) -> Result<DbUrl> {
        let text = text.trim();
        let url = url::Url::parse(text)
            .map_err(|e| bad_url(format!("not a URL ({e}); expected postgres://…")))?;
        if !matches!(url.scheme(), "postgres" | "postgresql") {
            return Err(bad_url(format!(
                "scheme {:?} is not postgres:// or postgresql://",
                url.scheme()
            )));
        }
        let shown = blank_password(&url);
        let pairs: Vec<(String, String)> = url
            .query_pairs()
            .map(|(k, v)| (k.into(), v.into()))
            .collect();
        let tls = tls::TlsSettings::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .map_err(bad_url)?;
        // The TLS keys are read here, not by the client (which knows fewer modes).
        let text = without_query_keys(&query_host_wins(text, &url), &tls::KEYS);
        let mut config = postgres::Config::from_str(&text).map_err(bad_url)?;
        let over_tcp = config
            .get_hosts()
            .iter()
            .any(|h| matches!(h, postgres::config::Host::Tcp(_)));
        config.ssl_mode(if over_tcp {
            tls.client_mode()
        } else {
            postgres::config::SslMode::Disable
        });
        let host = match (config.get_hosts().first(), config.get_ports().first()) {
            (None, _) => {
                return Err(bad_url(
                    "names no host: give a host name or a unix-socket directory \
                     (postgres://user@host/db or postgres:///db?host=/run/postgresql)",
                ));
            }
            (Some(postgres::config::Host::Tcp(h)), port) => {
                format!("{h}:{}", port.copied().unwrap_or(5432))
            }
            (Some(postgres::config::Host::Unix(dir)), _) => dir.display().to_string(),
        };
        let password_ref = config
            .get_password()
            .and_then(|p| std::str::from_utf8(p).ok())
            .and_then(|p| p.strip_prefix(crate::sealed::REF_PREFIX))
            .map(|name| name.trim().to_string());
        Ok(DbUrl {
            config,
            shown,
            host,
            password_ref,
            tls,
            over_tcp,
        })
    }

    /// The `sslmode` asked for (`prefer` when the URL names none).
    pub fn ssl_mode(&self) -> tls::SslMode {
        self.tls.mode()
    }

    /// The URL with every password blanked: the only form bob prints.
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// The password written in the URL itself (not a `secret:NAME` reference), for the
    /// redactor's list of values never to record.
    pub fn literal_password(&self) -> Option<String> {
        if self.password_ref.is_some() {
            return None;
        }
        self.config
            .get_password()
            .map(|p| String::from_utf8_lossy(p).into_owned())
            .filter(|p| !p.is_empty())
    }

    /// The server the URL names: `host:port`, or the unix-socket directory.
    pub fn host(&self) -> &str {
        &self.host
    }
}

/// `text` without the host of its authority when its query names `host` too and the authority
/// names no port (`postgresql://bob@localhost/db?host=/run/postgresql`): the query's host
/// wins, as in libpq, so the client never tries (and waits on) a server the URL did not mean.
fn query_host_wins(text: &str, url: &url::Url) -> String {
    if !url.query_pairs().any(|(k, _)| k == "host") || url.port().is_some() {
        return text.to_string();
    }
    let Some(host) = url.host_str().filter(|h| !h.is_empty()) else {
        return text.to_string();
    };
    let Some((scheme, rest)) = text.split_once("://") else {
        return text.to_string();
    };
    let end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    let (user, at) = match authority.rfind('@') {
        Some(i) => (&authority[..i], "@"),
        None => ("", ""),
    };
    let host_part = &authority[user.len() + at.len()..];
    if !host_part.eq_ignore_ascii_case(host) {
        return text.to_string();
    }
    format!("{scheme}://{user}{at}{tail}")
}

/// `text` without the query pairs named `keys`.
fn without_query_keys(text: &str, keys: &[&str]) -> String {
    let Some((head, query)) = text.split_once('?') else {
        return text.to_string();
    };
    let kept: Vec<&str> = query
        .split('&')
        .filter(|pair| !keys.contains(&pair.split_once('=').map_or(*pair, |(k, _)| k)))
        .collect();
    if kept.is_empty() {
        head.to_string()
    } else {
        format!("{head}?{}", kept.join("&"))
    }
}

/// `text` with its password blanked, for `bob config show`: the URL with `***` for the
/// password when it parses as a URL, else `***` whole (a malformed value may hold anything).
pub fn shown_url(text: &str) -> String {
    url::Url::parse(text.trim())
        .map(|u| blank_password(&u))
        .unwrap_or_else(|_| "***".to_string())
}

fn blank_password(url: &url::Url) -> String {
    let mut u = url.clone();
    if u.password().is_some() {
        let _ = u.set_password(Some("***"));
    }
    if u.query_pairs().any(|(k, _)| k == "password") {
        let pairs: Vec<(String, String)> = u
            .query_pairs()
            .map(|(k, v)| {
                let v = if k == "password" {
                    "***".to_string()
                } else {
                    v.into_owned()
                };
                (k.into_owned(), v)
            })
            .collect();
        u.query_pairs_mut().clear().extend_pairs(pairs);
    }
    u.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_host_in_the_query_wins_over_the_authoritys() {
        let u = DbUrl::parse("postgresql://bob@localhost/bob?host=/run/pg").unwrap();
        assert_eq!(u.host(), "/run/pg");
        assert_eq!(u.config.get_hosts().len(), 1);
        assert_eq!(u.config.get_user(), Some("bob"));
        assert_eq!(u.config.get_dbname(), Some("bob"));
        let u = DbUrl::parse("postgresql://bob:pw@LOCALHOST/bob?host=/run/pg").unwrap();
        assert_eq!(u.host(), "/run/pg");
        assert_eq!(u.literal_password().as_deref(), Some("pw"));
        // With a port, or without a host in the query, the URL is read as written.
        let u = DbUrl::parse("postgresql://bob@db:5433/bob?host=/run/pg").unwrap();
        assert_eq!(u.host(), "db:5433");
        let u = DbUrl::parse("postgresql://bob@db/bob").unwrap();
        assert_eq!(u.host(), "db:5432");
    }

    #[test]
    fn the_tls_keys_are_read_by_bob_and_the_rest_by_the_client() {
        let u = DbUrl::parse(
            "postgresql://bob@db:5433/bob?sslmode=verify-full&sslrootcert=/etc/ca.pem&application_name=x",
        )
        .unwrap();
        assert_eq!(u.ssl_mode(), tls::SslMode::VerifyFull);
        assert_eq!(u.config.get_application_name(), Some("x"));
        assert_eq!(u.config.get_ssl_mode(), postgres::config::SslMode::Require);
        // Over a unix socket no TLS is negotiated, whatever the mode.
        let u = DbUrl::parse("postgresql:///bob?host=/run/pg&sslmode=require").unwrap();
        assert_eq!(u.ssl_mode(), tls::SslMode::Require);
        assert_eq!(u.config.get_ssl_mode(), postgres::config::SslMode::Disable);
        assert!(DbUrl::parse("postgresql://db/bob?sslmode=allow").is_err());
        assert_eq!(
            without_query_keys("postgres://h/d?sslmode=require", &tls::KEYS),
            "postgres://h/d"
        );
    }
}
