//! Connection limits of `bob serve`: the open connections of each client address.
//!
//! A client address may hold `serve.max_connections_per_ip` connections at once (128); one
//! more is answered [`TOO_MANY_FROM_IP`] and closed before anything is read, so a single client
//! (1,030 idle sockets, say) cannot hold every one of the server's `serve.max_connections`
//! slots and keep others, `/healthz` included, waiting. The count is taken per accepted
//! connection, never per request: nothing is added to a request's path.

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
        let mut m = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let n = m.entry(ip).or_insert(0);
        if *n >= self.cap {
            return None;
        }
        *n += 1;
        Some(Held(self.clone(), ip))
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
