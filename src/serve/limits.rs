//! Connection limits of `bob serve`: the open connections of each client address.
//!
//! A client address may hold `serve.max_connections_per_ip` connections at once (128); one
//! more is answered [`TOO_MANY_FROM_IP`] and closed before anything is read, so a single client
//! (1,030 idle sockets, say) cannot hold every one of the server's `serve.max_connections`
//! slots and keep others, `/healthz` included, waiting. The count is taken per accepted
//! connection, never per request: nothing is added to a request's path. An IPv6 client counts
//! by its /64 ([`client_of`]).

use std::sync::Arc;

/// What a client over its connection cap gets before its connection is closed.
pub(super) const TOO_MANY_FROM_IP: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 2\r\nConnection: close\r\nContent-Length: 113\r\n\r\n{\"error\":{\"code\":\"queue.full\",\"message\":\"too many connections from this address (serve.max_connections_per_ip)\"}}";

/// Open connections per client address.
pub(super) struct PerIp {
    pub(super) open: std::sync::Mutex<std::collections::HashMap<std::net::IpAddr, usize>>,
    pub(super) cap: usize,
}

/// One open connection of an address; counted down when dropped.
pub(super) struct Held(Arc<PerIp>, std::net::IpAddr);

impl PerIp {
    pub(super) fn take(self: &Arc<Self>, ip: std::net::IpAddr) -> Option<Held> {
        let ip = client_of(ip);
        let mut m = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let n = m.entry(ip).or_insert(0);
        if *n >= self.cap {
            return None;
        }
        *n += 1;
        Some(Held(self.clone(), ip))
    }
}

/// The address a connection counts against: an IPv4 address as it is (an IPv4-mapped IPv6
/// one as the IPv4 address), an IPv6 address as its /64, the block one client is given and
/// picks addresses from at will.
pub(super) fn client_of(ip: std::net::IpAddr) -> std::net::IpAddr {
    use std::net::{IpAddr, Ipv6Addr};
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6(Ipv6Addr::from(u128::from(v6) & !((1u128 << 64) - 1))),
        },
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        let mut m = self.0.open.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = m.get_mut(&self.1) {
            *n -= 1;
            if *n == 0 {
                m.remove(&self.1);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_ipv6_client_counts_by_its_64_and_a_mapped_ipv4_one_as_ipv4() {
        let ip = |s: &str| s.parse::<std::net::IpAddr>().unwrap();
        assert_eq!(
            super::client_of(ip("2001:db8:1:2:aaaa::1")),
            super::client_of(ip("2001:db8:1:2:ffff::9"))
        );
        assert_ne!(
            super::client_of(ip("2001:db8:1:2::1")),
            super::client_of(ip("2001:db8:1:3::1"))
        );
        assert_eq!(super::client_of(ip("::ffff:10.0.0.1")), ip("10.0.0.1"));
        assert_eq!(super::client_of(ip("10.0.0.1")), ip("10.0.0.1"));
    }

    #[test]
    fn an_address_holds_at_most_its_cap_and_gets_a_slot_back_when_one_closes() {
        let per = std::sync::Arc::new(super::PerIp {
            open: Default::default(),
            cap: 2,
        });
        let a = "127.0.0.1".parse().unwrap();
        let (x, _y) = (per.take(a).unwrap(), per.take(a).unwrap());
        assert!(per.take(a).is_none());
        assert!(per.take("127.0.0.2".parse().unwrap()).is_some());
        drop(x);
        assert!(per.take(a).is_some());
    }

    #[test]
    fn the_canned_answer_to_a_client_over_its_cap_is_well_formed() {
        let text = std::str::from_utf8(super::TOO_MANY_FROM_IP).unwrap();
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        let len: usize = head
            .lines()
            .find_map(|l| l.strip_prefix("Content-Length: "))
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(len, body.len());
        let v: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(v["error"]["code"], "queue.full");
    }
}
