//! What a tool run may do: sandbox roots, the session's enabled tools, granted capabilities,
//! the network allowlist, shell rules and the timeout clamp.
//!
//! Tools are disabled by default (the Bob v0 runtime). A human turns them on, per session
//! (`bob tool enable --session ID NAME…`, stored in `sessions/<id>/tools.json`) or per call of
//! `bob tool run` (`--enable NAME…` / `--enable-all`). Filesystem and shell tools also need an
//! enabled sandbox with a root: `--root DIR`, or `BOB_TOOL_SANDBOX_ENABLED=1` with
//! `BOB_TOOL_ROOTS=DIR[,DIR…]`.
//!
//! Settings ([`crate::settings`], keys `tools.*`; their variables are):
//! `BOB_TOOL_SANDBOX_ENABLED`, `BOB_TOOL_ROOTS`, `BOB_NET_ALLOWLIST`,
//! `BOB_TOOL_ALLOW_LOOPBACK`, `BOB_TOOL_ALLOW_PRIVATE`, `BOB_TOOL_MAX_TIMEOUT_MS` (default
//! 120000), `BOB_SANDBOX` (`full`, the default, or `weak`: see [`crate::sandbox`]),
//! `BOB_TOOL_REQUIRE_SANDBOX` (accepted, no effect: the full sandbox is always required unless
//! `weak` is chosen), `BOB_TOOL_SHELL_RULES` (a rules file replacing the built-in one),
//! `BOB_HTTP_CACHE_TTL_S` (default 3600).
//!
//! Network grants (`net:<scope>`) and `BOB_NET_ALLOWLIST` entries are a [`NetScope`]: a domain
//! matched by whole DNS labels after IDNA normalisation, or exactly one IP address. A malformed
//! scope (`net:1`, `net:0.1`, `net:.com`) is refused where a grant is made (`bob caps grant`,
//! `bob tool run --grant`) and in `BOB_NET_ALLOWLIST` (`invalid.request`); one already stored in
//! a session allows nothing.

use super::argv::ShellRules;
use super::spec::{Kind, ToolSpec};
use crate::contracts::SessionTools;
use crate::error::{Code, Error, Result};
use crate::home::Home;
use crate::settings::Settings;
use crate::store;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Default clamp on any call's `timeout_ms`.
pub const DEFAULT_MAX_TIMEOUT_MS: u64 = 120_000;
/// Default freshness of a cached `http.get` response.
pub const DEFAULT_HTTP_CACHE_TTL_S: u64 = 3600;

/// The effective policy of one tool run.
#[derive(Debug, Clone)]
pub struct Policy {
    /// Sandbox roots (canonical absolute paths); the first is the working root.
    pub roots: Vec<PathBuf>,
    pub sandbox_enabled: bool,
    /// Canonical names of the enabled tools.
    pub enabled: BTreeSet<String>,
    /// Where the enabled set came from, for messages.
    pub session_id: Option<String>,
    pub capabilities_granted: Vec<String>,
    /// `BOB_NET_ALLOWLIST`: when set, `net` alone allows only these domains.
    pub net_allowlist: Option<Vec<String>>,
    pub allow_loopback: bool,
    pub allow_private: bool,
    /// The operator's shell rules file (`--shell-rules`, `tools.shell_rules`), read and checked
    /// when the policy is loaded so a bad file fails the run up front; `None` means the built-in
    /// rules, which [`Policy::shell_rules`] parses only when `shell.exec` runs (checking their
    /// examples was ~2.8M instructions, a third of every cached domain-tool call).
    pub custom_shell_rules: Option<ShellRules>,
    pub max_timeout_ms: u64,
    /// How `shell.exec` is confined (full unless the operator chose weak).
    pub sandbox_mode: crate::sandbox::Mode,
    pub http_cache_ttl_s: u64,
    /// The session's TURBOTIME toggle and selection ([`super::domain::turbotime`]).
    pub turbotime: super::domain::turbotime::Turbotime,
    /// The settings this policy was built from (the domain tools read their base URLs here).
    pub settings: Settings,
}

pub use crate::contracts::PolicyOverrides;

/// The session's enabled-tools file; empty when absent.
pub fn load_session_tools(home: &Home, session_id: &str) -> Result<SessionTools> {
    let path = home.session_dir(session_id)?.join("tools.json");
    Ok(store::read_json(&path)?.unwrap_or_default())
}

impl Policy {
    /// The shell allow/deny rules `shell.exec` checks: the operator's file, else the built-in
    /// rules (parsed and checked on first use, then kept for the process).
    pub fn shell_rules(&self) -> Result<ShellRules> {
        match &self.custom_shell_rules {
            Some(r) => Ok(r.clone()),
            None => ShellRules::builtin(),
        }
    }

    /// The working root, if the sandbox is usable.
    pub fn root(&self) -> Option<&Path> {
        if self.sandbox_enabled {
            self.roots.first().map(PathBuf::as_path)
        } else {
            None
        }
    }

    /// Clamps a request's timeout.
    pub fn clamp_timeout(&self, timeout_ms: u64) -> u64 {
        timeout_ms.clamp(1, self.max_timeout_ms.max(1))
    }

    /// Refuses a tool that is not enabled, or a fs/shell tool without a sandbox root.
    pub fn check_tool(&self, requested: &str, spec: &ToolSpec) -> Result<()> {
        if !self.enabled.contains(spec.name) && !self.turbotime_selected(spec.name) {
            let how = match &self.session_id {
                Some(s) => format!(
                    "a human enables it with `bob tool enable --session {s} {}`",
                    spec.name
                ),
                None => format!(
                    "a human enables it with `bob tool run --enable {}` (or `--enable-all`)",
                    spec.name
                ),
            };
            return Err(Error::denied(format!(
                "tool {requested} is not enabled (tools are disabled by default); {how}"
            ))
            .with("tool", requested.to_string()));
        }
        if matches!(spec.kind, Kind::Fs | Kind::Shell) && self.root().is_none() {
            let why = if self.sandbox_enabled {
                "the sandbox has no root"
            } else {
                "the sandbox is not enabled"
            };
            return Err(Error::new(
                Code::SandboxRequired,
                format!("{requested} needs the tool sandbox, but {why}: pass `--root DIR` to `bob tool run`, or set BOB_TOOL_SANDBOX_ENABLED=1 and BOB_TOOL_ROOTS=DIR[,DIR...]"),
            )
            .with("tool", requested.to_string()));
        }
        Ok(())
    }

    /// Whether TURBOTIME is on for the session and `tool` (canonical) is selected: the tool is
    /// then enabled, and may reach its own API host (the Bob v0 runtime).
    pub fn turbotime_selected(&self, tool: &str) -> bool {
        self.turbotime.on && self.turbotime.selected.iter().any(|t| t == tool)
    }

    /// Whether `net` capabilities allow fetching from `host` (the tool registry contract): `net:<scope>` (see
    /// [`NetScope`]: the domain and its subdomains by whole labels, or exactly one IP address)
    /// always does; `net` does when no global allowlist is set, or when an allowlist entry
    /// covers the host by the same rules. A grant that is not a valid scope (`net:1`,
    /// `net:0.1`, `net:.com`) allows nothing.
    pub fn net_allows(&self, host: &str) -> bool {
        let Some(host) = NetScope::of_host(host) else {
            return false;
        };
        let covers = |scope: &str| NetScope::parse(scope).is_ok_and(|s| s.covers(&host));
        if self
            .capabilities_granted
            .iter()
            .filter_map(|c| c.strip_prefix("net:"))
            .any(covers)
        {
            return true;
        }
        if self.capabilities_granted.iter().any(|c| c == "net") {
            return match &self.net_allowlist {
                None => true,
                Some(list) => list.iter().any(|d| covers(d)),
            };
        }
        false
    }
}

/// What a `net:<scope>` grant or a `BOB_NET_ALLOWLIST` entry names.
///
/// * A domain (`example.com`, `bücher.example`, `EXAMPLE.com.`): compared after IDNA
///   (punycode) normalisation, lower-cased, with one trailing dot removed; it covers the host
///   itself and every subdomain, by whole labels: `example.com` covers `a.example.com`, never
///   `badexample.com`. Every label must be non-empty letters, digits, `-` or `_`, and the last
///   label must not be numeric (a URL host whose last label is a number is an IPv4 address).
/// * An IP address: a dotted-quad IPv4 or an IPv6 (bracketed or not, any spelling): it covers
///   exactly that address (`127.0.0.1` ≠ `127.0.0.10`; `::1` = `0:0::1`) and no domain.
///
/// Anything else is refused: partial or shorthand IPv4 (`1`, `0.1`, `127.1`, `0x7f.1`), empty
/// labels (`.com`, `a..b`), wildcards, ports, paths.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NetScope {
    Domain(String),
    Ip(std::net::IpAddr),
}

impl NetScope {
    /// Parses a grant's scope or an allowlist entry (strictly).
    pub fn parse(scope: &str) -> Result<NetScope> {
        let bad = |why: &str| {
            Error::invalid(format!(
                "net scope {scope:?} is not valid: {why} (a domain such as example.com, or one IP address)"
            ))
            .with("scope", scope.to_string())
        };
        let s = scope.trim();
        if let Some(inner) = s.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
            return inner
                .parse::<std::net::Ipv6Addr>()
                .map(|a| NetScope::Ip(a.into()))
                .map_err(|_| bad("not an IPv6 address in brackets"));
        }
        if let Ok(ip) = s.parse::<std::net::IpAddr>() {
            return Ok(NetScope::Ip(ip));
        }
        let s = s.strip_suffix('.').unwrap_or(s);
        if s.is_empty() {
            return Err(bad("empty"));
        }
        if s.parse::<std::net::IpAddr>().is_ok() {
            return Err(bad("an IP address with a trailing dot"));
        }
        match url::Host::parse(s) {
            Ok(url::Host::Domain(d)) => {
                if d.len() > 253 {
                    return Err(bad("longer than 253 characters"));
                }
                let labels: Vec<&str> = d.split('.').collect();
                if labels.iter().any(|l| l.is_empty()) {
                    return Err(bad("an empty label (a partial name such as .com)"));
                }
                if labels.iter().any(|l| {
                    l.len() > 63
                        || !l
                            .bytes()
                            .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_')
                }) {
                    return Err(bad(
                        "a label is not letters, digits, '-' or '_' (at most 63)",
                    ));
                }
                if labels
                    .last()
                    .is_some_and(|l| l.bytes().all(|c| c.is_ascii_digit()))
                {
                    return Err(bad("the last label is a number (a partial IPv4 address)"));
                }
                Ok(NetScope::Domain(d.to_ascii_lowercase()))
            }
            Ok(_) => Err(bad(
                "a partial or shorthand IPv4 address (write all four decimal parts)",
            )),
            Err(e) => Err(bad(&e.to_string())),
        }
    }

    /// The scope of a URL's host (as `url` parses it: IDNA-normalised, shorthand IPv4 resolved,
    /// IPv6 with or without brackets); `None` when it is not a host.
    pub fn of_host(host: &str) -> Option<NetScope> {
        let h = host.trim();
        let h = h
            .strip_prefix('[')
            .and_then(|r| r.strip_suffix(']'))
            .unwrap_or(h);
        if let Ok(ip) = h.parse::<std::net::IpAddr>() {
            return Some(NetScope::Ip(ip));
        }
        let h = h.strip_suffix('.').unwrap_or(h);
        match url::Host::parse(h).ok()? {
            url::Host::Domain(d) if !d.is_empty() => Some(NetScope::Domain(d.to_ascii_lowercase())),
            url::Host::Domain(_) => None,
            url::Host::Ipv4(a) => Some(NetScope::Ip(a.into())),
            url::Host::Ipv6(a) => Some(NetScope::Ip(a.into())),
        }
    }

    /// Whether this scope covers `host` (a scope from [`NetScope::of_host`]).
    pub fn covers(&self, host: &NetScope) -> bool {
        match (self, host) {
            (NetScope::Ip(a), NetScope::Ip(b)) => a == b,
            (NetScope::Domain(d), NetScope::Domain(h)) => {
                h == d
                    || (h.len() > d.len()
                        && h.ends_with(d.as_str())
                        && h.as_bytes()[h.len() - d.len() - 1] == b'.')
            }
            _ => false,
        }
    }
}

/// The capabilities a grant may name: the ones some check of bob reads.
pub const GRANTABLE: [&str; 4] = [
    "net",
    "net:<domain or IP>",
    "fs:dotfiles",
    "mtg:<game>:p1|p2",
];

/// Whether a canonical capability is one bob checks somewhere ([`GRANTABLE`]).
fn grantable(cap: &str) -> bool {
    cap == "net"
        || cap.starts_with("net:")
        || cap == super::fs::DOTFILES_CAP
        || cap.strip_prefix("mtg:").is_some_and(|rest| {
            rest.rsplit_once(':')
                .is_some_and(|(game, seat)| !game.is_empty() && (seat == "p1" || seat == "p2"))
        })
}

/// Checks a capability a human grants (`bob caps grant`, `bob tool run|search --grant`,
/// a human's `grant_permission:`): well formed, a `net:` scope a whole domain or one IP, and
/// one of [`GRANTABLE`]. Capability names are case-sensitive, as bob's checks compare them
/// exactly: `NET` would be stored and allow nothing, so any other name is `invalid.request`
/// listing the grantable ones (and the lower-case form when that is one). Requesting and
/// revoking take any well-formed token (a model may ask for anything; revoking cleans up).
pub fn check_grant(cap: &str) -> Result<()> {
    let canon = crate::checkpoint::parse_capability(cap)?;
    if grantable(&canon) {
        return check_net_capability(&canon);
    }
    let (name, rest) = cap.split_once(':').map_or((cap, ""), |(n, r)| (n, r));
    let lower_name = if rest.is_empty() {
        name.to_ascii_lowercase()
    } else {
        format!("{}:{rest}", name.to_ascii_lowercase())
    };
    let meant = [lower_name, cap.to_ascii_lowercase()]
        .into_iter()
        .filter(|c| c != cap)
        .find_map(|c| {
            crate::checkpoint::parse_capability(&c)
                .ok()
                .filter(|c| grantable(c))
        });
    let hint = meant
        .as_ref()
        .map(|m| format!(" (did you mean {m:?}? capability names are case-sensitive)"))
        .unwrap_or_default();
    let mut e = Error::invalid(format!(
        "capability {cap:?} is not one bob checks, so granting it would allow nothing{hint}; \
         grantable: {}",
        GRANTABLE.join(", ")
    ))
    .with("capability", cap.to_string())
    .with("known", GRANTABLE.to_vec());
    if let Some(m) = meant {
        e = e.with("did_you_mean", m);
    }
    Err(e)
}

/// Refuses a malformed `net:<scope>` capability (other capabilities pass): used where a grant
/// is made (`bob caps grant|request`, `bob tool run --grant`).
pub fn check_net_capability(cap: &str) -> Result<()> {
    match cap.strip_prefix("net:") {
        Some(scope) => NetScope::parse(scope)
            .map(|_| ())
            .map_err(|e| e.with("capability", cap.to_string())),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(grants: &[&str], allowlist: Option<&[&str]>) -> Policy {
        Policy {
            roots: Vec::new(),
            sandbox_enabled: false,
            enabled: BTreeSet::new(),
            session_id: None,
            capabilities_granted: grants.iter().map(|s| s.to_string()).collect(),
            net_allowlist: allowlist.map(|l| l.iter().map(|s| s.to_string()).collect()),
            allow_loopback: false,
            allow_private: false,
            custom_shell_rules: None,
            max_timeout_ms: DEFAULT_MAX_TIMEOUT_MS,
            sandbox_mode: crate::sandbox::Mode::Full,
            http_cache_ttl_s: DEFAULT_HTTP_CACHE_TTL_S,
            turbotime: Default::default(),
            settings: Settings::default(),
        }
    }

    #[test]
    fn domain_grants_match_whole_labels() {
        let p = policy(&["net:example.com"], None);
        for ok in [
            "example.com",
            "a.example.com",
            "a.b.example.com",
            "EXAMPLE.COM",
            "example.com.",
            "A.Example.Com.",
        ] {
            assert!(p.net_allows(ok), "{ok}");
        }
        for no in [
            "badexample.com",
            "example.com.evil",
            "example.co",
            "xample.com",
            "com",
            "example.org",
            "",
        ] {
            assert!(!p.net_allows(no), "{no}");
        }
        // A trailing dot or capitals on the grant side too.
        assert!(policy(&["net:Example.COM."], None).net_allows("a.example.com"));
    }

    #[test]
    fn hosts_and_grants_are_idna_normalised() {
        let p = policy(&["net:bücher.example"], None);
        assert!(p.net_allows("xn--bcher-kva.example"));
        assert!(p.net_allows("www.BÜCHER.example"));
        assert!(!p.net_allows("bucher.example"));
        let p = policy(&["net:xn--bcher-kva.example"], None);
        assert!(p.net_allows("bücher.example"));
    }

    #[test]
    fn ip_grants_allow_exactly_that_address() {
        let p = policy(&["net:127.0.0.1"], None);
        assert!(p.net_allows("127.0.0.1"));
        // The url crate's shorthand forms are the same address.
        assert!(p.net_allows("127.1"));
        assert!(p.net_allows("2130706433"));
        for no in [
            "127.0.0.10",
            "127.0.0.11",
            "27.0.0.1",
            "1",
            "0.1",
            "::ffff:127.0.0.1",
        ] {
            assert!(!p.net_allows(no), "{no}");
        }
        let p = policy(&["net:2001:db8::1"], None);
        for ok in [
            "2001:db8::1",
            "[2001:db8::1]",
            "2001:DB8:0:0:0:0:0:1",
            "2001:db8:0::0:1",
        ] {
            assert!(p.net_allows(ok), "{ok}");
        }
        assert!(!p.net_allows("2001:db8::11"));
        assert!(!p.net_allows("2001:db8::"));
        assert!(policy(&["net:[::1]"], None).net_allows("0:0::1"));
        // An IP grant never covers a domain, a domain grant never an IP.
        assert!(!policy(&["net:1.2.3.4"], None).net_allows("a.1.2.3.4.example"));
        assert!(!policy(&["net:example.com"], None).net_allows("93.184.215.14"));
    }

    #[test]
    fn partial_labels_allow_nothing_and_are_refused() {
        for bad in [
            "1",
            "0.1",
            ".1",
            "0.0.1",
            "127.1",
            "0x7f.1",
            ".com",
            "com.",
            "",
            ".",
            "a..b",
            "*.example.com",
            "example.com:443",
            "example.com/x",
            "exa mple.com",
            "1.2.3.4.",
            "[127.0.0.1]",
            "example.123",
        ] {
            if bad == "com." {
                // A single label with a trailing dot is a (top-level) domain, not partial.
                assert_eq!(
                    NetScope::parse(bad).unwrap(),
                    NetScope::Domain("com".into())
                );
                continue;
            }
            assert!(NetScope::parse(bad).is_err(), "{bad}");
            assert!(
                check_net_capability(&format!("net:{bad}")).is_err(),
                "{bad}"
            );
            let p = policy(&[&format!("net:{bad}")], None);
            for host in ["127.0.0.1", "0.0.0.1", "example.com", "a.com", "1"] {
                assert!(!p.net_allows(host), "net:{bad} allowed {host}");
            }
        }
        assert!(check_net_capability("net").is_ok());
        assert!(check_net_capability("fs:whatever").is_ok());
    }

    #[test]
    fn the_allowlist_follows_the_same_rules() {
        let p = policy(&["net"], Some(&["example.com", "127.0.0.1", "1"]));
        assert!(p.net_allows("api.example.com"));
        assert!(p.net_allows("127.0.0.1"));
        assert!(!p.net_allows("badexample.com"));
        assert!(!p.net_allows("127.0.0.10"));
        assert!(!p.net_allows("0.0.0.1"));
        assert!(policy(&["net"], None).net_allows("anything.example"));
        assert!(!policy(&[], None).net_allows("example.com"));
    }
}
