//! Address classification: every IANA special-purpose IPv4 and IPv6 block, by name, class and
//! whether it is globally reachable, with the IPv4 address an IPv6 address embeds.
//!
//! The table ([`BLOCKS`]) follows the IANA IPv4 and IPv6 Special-Purpose Address Registries
//! (their "Globally Reachable" column), plus the blocks an HTTP client must not reach that those
//! registries list elsewhere: IPv4 multicast (224.0.0.0/4, and its MCAST-TEST-NET
//! 233.252.0.0/24), the deprecated IPv4-compatible (`::/96`) and SIIT IPv4-translated
//! (`::ffff:0:0:0/96`) IPv6 forms, deprecated site-local `fec0::/10`, IPv6 multicast `ff00::/8`
//! and, as the least specific IPv6 entry, everything outside the global unicast space
//! `2000::/3` (reserved by the IETF). An address belongs to the most specific block that holds
//! it (`192.0.0.9` is the globally reachable PCP anycast address inside the non-global
//! `192.0.0.0/24`); an IPv4 address in no special block is ordinary global unicast.
//!
//! Embedded IPv4: IPv4-mapped (`::ffff:a.b.c.d`), IPv4-compatible (`::a.b.c.d`),
//! IPv4-translated (`::ffff:0:a.b.c.d`), NAT64 (`64:ff9b::a.b.c.d`, and the local-use
//! `64:ff9b:1::/48` read with the /96 layout) carry their IPv4 in the low 32 bits; 6to4
//! (`2002:AABB:CCDD::/48`) in bits 16–47; Teredo (`2001:0:S:S:flags:port:C:C`) its server in
//! bits 32–63 and its client, obfuscated (bit-inverted), in the low 32 bits; an ISATAP
//! interface identifier (`…:0:5efe:a.b.c.d`, `…:200:5efe:a.b.c.d`) in any prefix in the low 32
//! bits. Each embedded IPv4 is classified too, and [`Classification::is_global`] holds only when
//! the outer block and every embedded IPv4 are globally reachable. 6to4 and Teredo are marked
//! "N/A" by IANA: here they count as global exactly when what they embed is.
//!
//! [`refusal`] is what `http.get` applies to each resolved address: a non-global address is
//! refused, except that the operator's explicit settings open *direct* loopback
//! (`allow_loopback`) and private-use addresses (`allow_private`: RFC 1918 private, shared/CGN
//! `100.64.0.0/10`, link-local, unique-local `fc00::/7` and benchmarking `198.18.0.0/15`,
//! `2001:2::/48`). An address that embeds an IPv4 is refused whenever it is not global,
//! whatever the settings: a translation or tunnel address is never the way to reach a local
//! service, only a way around the check.

use ipnet::IpNet;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::sync::OnceLock;

/// What kind of block an address is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// Ordinary unicast, in no special block.
    Global,
    /// `0.0.0.0/8`: "this network" (and `0.0.0.0`, "this host").
    ThisNetwork,
    /// `::`.
    Unspecified,
    Loopback,
    /// RFC 1918 private-use.
    Private,
    /// `100.64.0.0/10`: shared address space (carrier-grade NAT).
    Shared,
    LinkLocal,
    /// `fc00::/7`.
    UniqueLocal,
    /// `fec0::/10`, deprecated.
    SiteLocal,
    /// IETF protocol assignments (`192.0.0.0/24`, `2001::/23`, dummy addresses).
    Protocol,
    /// TEST-NETs, `2001:db8::/32`, `3fff::/20`, MCAST-TEST-NET.
    Documentation,
    Benchmarking,
    Multicast,
    Broadcast,
    /// Reserved for future use, or unassigned.
    Reserved,
    /// `100::/64`: discard-only.
    Discard,
    /// An IPv6 form of an IPv4 address (mapped, compatible, translated, NAT64), and the NAT64
    /// discovery addresses.
    Translation,
    /// 6to4 and Teredo.
    Tunnel,
    /// Globally reachable anycast services (PCP, TURN, AS112, AMT, DNS-SD SRP).
    Anycast,
    /// ORCHID, drone DETs.
    Identifier,
    /// `5f00::/16`: SRv6 segment identifiers.
    SegmentRouting,
    /// `192.88.99.0/24`: the deprecated 6to4 relay anycast.
    Deprecated,
}

impl Class {
    /// The class as a short word, for messages and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Class::Global => "global",
            Class::ThisNetwork => "this-network",
            Class::Unspecified => "unspecified",
            Class::Loopback => "loopback",
            Class::Private => "private",
            Class::Shared => "shared",
            Class::LinkLocal => "link-local",
            Class::UniqueLocal => "unique-local",
            Class::SiteLocal => "site-local",
            Class::Protocol => "protocol-assignment",
            Class::Documentation => "documentation",
            Class::Benchmarking => "benchmarking",
            Class::Multicast => "multicast",
            Class::Broadcast => "broadcast",
            Class::Reserved => "reserved",
            Class::Discard => "discard",
            Class::Translation => "translation",
            Class::Tunnel => "tunnel",
            Class::Anycast => "anycast",
            Class::Identifier => "identifier",
            Class::SegmentRouting => "segment-routing",
            Class::Deprecated => "deprecated",
        }
    }
}

/// Where an IPv6 block carries an IPv4 address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Embed {
    None,
    /// The low 32 bits.
    Low32,
    /// 6to4: bits 16–47.
    SixToFour,
    /// Teredo: server in bits 32–63, client bit-inverted in the low 32 bits.
    Teredo,
}

/// One row of the table.
#[derive(Debug)]
pub struct Block {
    pub prefix: &'static str,
    /// The registry's name for it.
    pub name: &'static str,
    pub class: Class,
    /// The registry's "Globally Reachable" (N/A counted as true; see the module doc).
    pub global: bool,
    pub embeds: Embed,
}

const fn b(prefix: &'static str, name: &'static str, class: Class, global: bool) -> Block {
    Block {
        prefix,
        name,
        class,
        global,
        embeds: Embed::None,
    }
}

const fn e(
    prefix: &'static str,
    name: &'static str,
    class: Class,
    global: bool,
    embeds: Embed,
) -> Block {
    Block {
        prefix,
        name,
        class,
        global,
        embeds,
    }
}

use Class::*;

/// Every classified block. The two catch-alls (`0.0.0.0/0`, `::/0`) come first.
pub static BLOCKS: &[Block] = &[
    b("0.0.0.0/0", "Global unicast", Global, true),
    b("0.0.0.0/8", "This network", ThisNetwork, false),
    b(
        "0.0.0.0/32",
        "This host on this network",
        ThisNetwork,
        false,
    ),
    b("10.0.0.0/8", "Private-Use", Private, false),
    b("100.64.0.0/10", "Shared Address Space", Shared, false),
    b("127.0.0.0/8", "Loopback", Loopback, false),
    b("169.254.0.0/16", "Link Local", LinkLocal, false),
    b("172.16.0.0/12", "Private-Use", Private, false),
    b("192.0.0.0/24", "IETF Protocol Assignments", Protocol, false),
    b(
        "192.0.0.0/29",
        "IPv4 Service Continuity Prefix",
        Protocol,
        false,
    ),
    b("192.0.0.8/32", "IPv4 dummy address", Protocol, false),
    b(
        "192.0.0.9/32",
        "Port Control Protocol Anycast",
        Anycast,
        true,
    ),
    b(
        "192.0.0.10/32",
        "Traversal Using Relays around NAT Anycast",
        Anycast,
        true,
    ),
    b(
        "192.0.0.170/32",
        "NAT64/DNS64 Discovery",
        Translation,
        false,
    ),
    b(
        "192.0.0.171/32",
        "NAT64/DNS64 Discovery",
        Translation,
        false,
    ),
    b(
        "192.0.2.0/24",
        "Documentation (TEST-NET-1)",
        Documentation,
        false,
    ),
    b("192.31.196.0/24", "AS112-v4", Anycast, true),
    b("192.52.193.0/24", "AMT", Anycast, true),
    b(
        "192.88.99.0/24",
        "Deprecated (6to4 Relay Anycast)",
        Deprecated,
        false,
    ),
    b("192.168.0.0/16", "Private-Use", Private, false),
    b(
        "192.175.48.0/24",
        "Direct Delegation AS112 Service",
        Anycast,
        true,
    ),
    b("198.18.0.0/15", "Benchmarking", Benchmarking, false),
    b(
        "198.51.100.0/24",
        "Documentation (TEST-NET-2)",
        Documentation,
        false,
    ),
    b(
        "203.0.113.0/24",
        "Documentation (TEST-NET-3)",
        Documentation,
        false,
    ),
    b("224.0.0.0/4", "Multicast", Multicast, false),
    b("233.252.0.0/24", "MCAST-TEST-NET", Documentation, false),
    b("240.0.0.0/4", "Reserved", Reserved, false),
    b("255.255.255.255/32", "Limited Broadcast", Broadcast, false),
    // IPv6.
    b(
        "::/0",
        "Reserved by IETF (outside 2000::/3)",
        Reserved,
        false,
    ),
    b("2000::/3", "Global unicast", Global, true),
    b("::/128", "Unspecified Address", Unspecified, false),
    b("::1/128", "Loopback Address", Loopback, false),
    e(
        "::/96",
        "IPv4-compatible (deprecated)",
        Translation,
        false,
        Embed::Low32,
    ),
    e(
        "::ffff:0:0/96",
        "IPv4-mapped Address",
        Translation,
        false,
        Embed::Low32,
    ),
    e(
        "::ffff:0:0:0/96",
        "IPv4-translated Address (SIIT)",
        Translation,
        false,
        Embed::Low32,
    ),
    e(
        "64:ff9b::/96",
        "IPv4-IPv6 Translat. (NAT64)",
        Translation,
        true,
        Embed::Low32,
    ),
    e(
        "64:ff9b:1::/48",
        "IPv4-IPv6 Translat. (local-use NAT64)",
        Translation,
        false,
        Embed::Low32,
    ),
    b("100::/64", "Discard-Only Address Block", Discard, false),
    b("100:0:0:1::/64", "Dummy IPv6 Prefix", Protocol, false),
    b("2001::/23", "IETF Protocol Assignments", Protocol, false),
    e("2001::/32", "TEREDO", Tunnel, true, Embed::Teredo),
    b(
        "2001:1::1/128",
        "Port Control Protocol Anycast",
        Anycast,
        true,
    ),
    b(
        "2001:1::2/128",
        "Traversal Using Relays around NAT Anycast",
        Anycast,
        true,
    ),
    b(
        "2001:1::3/128",
        "DNS-SD Service Registration Protocol Anycast",
        Anycast,
        true,
    ),
    b("2001:2::/48", "Benchmarking", Benchmarking, false),
    b("2001:3::/32", "AMT", Anycast, true),
    b("2001:4:112::/48", "AS112-v6", Anycast, true),
    b(
        "2001:10::/28",
        "Deprecated (previously ORCHID)",
        Identifier,
        false,
    ),
    b("2001:20::/28", "ORCHIDv2", Identifier, true),
    b(
        "2001:30::/28",
        "Drone Remote ID Protocol Entity Tags (DETs)",
        Identifier,
        true,
    ),
    b("2001:db8::/32", "Documentation", Documentation, false),
    e("2002::/16", "6to4", Tunnel, true, Embed::SixToFour),
    b(
        "2620:4f:8000::/48",
        "Direct Delegation AS112 Service",
        Anycast,
        true,
    ),
    b("3fff::/20", "Documentation", Documentation, false),
    b(
        "5f00::/16",
        "Segment Routing (SRv6) SIDs",
        SegmentRouting,
        false,
    ),
    b("fc00::/7", "Unique-Local", UniqueLocal, false),
    b("fe80::/10", "Link-Local Unicast", LinkLocal, false),
    b("fec0::/10", "Site-Local (deprecated)", SiteLocal, false),
    b("ff00::/8", "Multicast", Multicast, false),
];

fn parsed() -> &'static [(IpNet, &'static Block)] {
    static NETS: OnceLock<Vec<(IpNet, &'static Block)>> = OnceLock::new();
    NETS.get_or_init(|| {
        BLOCKS
            .iter()
            .map(|blk| {
                let net: IpNet = blk.prefix.parse().expect("the block table parses");
                assert_eq!(net, net.trunc(), "{} has host bits set", blk.prefix);
                (net, blk)
            })
            .collect()
    })
}

/// The parsed prefix of a block of [`BLOCKS`].
pub fn net_of(blk: &Block) -> IpNet {
    parsed()
        .iter()
        .find(|(_, b)| std::ptr::eq(*b, blk))
        .map(|(n, _)| *n)
        .expect("a block of the table")
}

/// The most specific block holding `ip`.
pub fn block_of(ip: IpAddr) -> &'static Block {
    parsed()
        .iter()
        .filter(|(net, _)| net.contains(&ip))
        .max_by_key(|(net, _)| net.prefix_len())
        .map(|(_, blk)| *blk)
        .expect("the catch-all blocks hold every address")
}

/// One IPv4 address found inside an IPv6 address.
#[derive(Debug, Clone)]
pub struct Embedded {
    /// `ipv4`, `6to4`, `teredo-server`, `teredo-client`, `isatap`.
    pub role: &'static str,
    pub addr: Ipv4Addr,
    pub block: &'static Block,
}

/// An address, its block and what it embeds.
#[derive(Debug, Clone)]
pub struct Classification {
    pub addr: IpAddr,
    pub block: &'static Block,
    pub embedded: Vec<Embedded>,
}

impl Classification {
    /// Whether the block and every embedded IPv4 are globally reachable.
    pub fn is_global(&self) -> bool {
        self.block.global && self.embedded.iter().all(|e| e.block.global)
    }

    /// The first non-global part: the block itself, else an embedded IPv4.
    pub fn offending(&self) -> Option<(IpAddr, &'static Block, Option<&'static str>)> {
        if !self.block.global {
            return Some((self.addr, self.block, None));
        }
        self.embedded
            .iter()
            .find(|e| !e.block.global)
            .map(|e| (IpAddr::V4(e.addr), e.block, Some(e.role)))
    }
}

fn v4_at(v6: &Ipv6Addr, bit: u32) -> Ipv4Addr {
    Ipv4Addr::from((u128::from(*v6) >> (96 - bit)) as u32)
}

/// Classifies an address (an IPv4-mapped IPv6 stays IPv6, with its IPv4 embedded).
pub fn classify(ip: IpAddr) -> Classification {
    let block = block_of(ip);
    let mut embedded = Vec::new();
    if let IpAddr::V6(v6) = ip {
        let mut add = |role, addr: Ipv4Addr| {
            embedded.push(Embedded {
                role,
                addr,
                block: block_of(IpAddr::V4(addr)),
            })
        };
        match block.embeds {
            Embed::None => {}
            Embed::Low32 => add("ipv4", v4_at(&v6, 96)),
            Embed::SixToFour => add("6to4", v4_at(&v6, 16)),
            Embed::Teredo => {
                add("teredo-server", v4_at(&v6, 32));
                add("teredo-client", Ipv4Addr::from(!u32::from(v4_at(&v6, 96))));
            }
        }
        let s = v6.segments();
        if block.global && block.embeds == Embed::None && s[4] & 0xfdff == 0 && s[5] == 0x5efe {
            add("isatap", v4_at(&v6, 96));
        }
    }
    Classification {
        addr: ip,
        block,
        embedded,
    }
}

/// What the operator's settings open.
#[derive(Debug, Clone, Copy, Default)]
pub struct Allow {
    pub loopback: bool,
    pub private: bool,
}

/// Why `ip` may not be reached under `allow`, or `None` when it may. The text names the
/// address, its block and the setting that would open it, if one would.
pub fn refusal(ip: IpAddr, allow: Allow) -> Option<Refusal> {
    let c = classify(ip);
    let (addr, block, role) = c.offending()?;
    if c.embedded.is_empty() {
        let opened = match block.class {
            Loopback => allow.loopback,
            Private | Shared | LinkLocal | UniqueLocal | Benchmarking => allow.private,
            _ => false,
        };
        if opened {
            return None;
        }
    }
    Some(Refusal {
        addr: ip,
        offending: addr,
        block,
        role,
    })
}

/// A refused address.
#[derive(Debug, Clone)]
pub struct Refusal {
    pub addr: IpAddr,
    /// The address or the embedded IPv4 that is not global.
    pub offending: IpAddr,
    pub block: &'static Block,
    /// The embedded role, when the offending part is an embedded IPv4.
    pub role: Option<&'static str>,
}

impl Refusal {
    /// The setting that would open this address, if one would.
    pub fn setting(&self) -> Option<&'static str> {
        if self.role.is_some() {
            return None;
        }
        match self.block.class {
            Loopback => Some("--allow-loopback / BOB_TOOL_ALLOW_LOOPBACK=1"),
            Private | Shared | LinkLocal | UniqueLocal | Benchmarking => {
                Some("--allow-private / BOB_TOOL_ALLOW_PRIVATE=1")
            }
            _ => None,
        }
    }

    /// `the loopback address 127.0.0.1 (127.0.0.0/8 Loopback)`, or for an embedding address
    /// `the address ::ffff:127.0.0.1, which embeds (ipv4) the loopback address 127.0.0.1 (…)`.
    pub fn describe(&self) -> String {
        let part = format!(
            "the {} address {} ({} {})",
            self.block.class.name(),
            self.offending,
            self.block.prefix,
            self.block.name
        );
        match self.role {
            None => part,
            Some(role) => format!("the address {}, which embeds ({role}) {part}", self.addr),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cls(s: &str) -> Classification {
        classify(s.parse().unwrap())
    }

    fn step(ip: IpAddr, up: bool) -> Option<IpAddr> {
        match ip {
            IpAddr::V4(a) => {
                let n = u32::from(a);
                let m = if up {
                    n.checked_add(1)
                } else {
                    n.checked_sub(1)
                }?;
                Some(IpAddr::V4(m.into()))
            }
            IpAddr::V6(a) => {
                let n = u128::from(a);
                let m = if up {
                    n.checked_add(1)
                } else {
                    n.checked_sub(1)
                }?;
                Some(IpAddr::V6(m.into()))
            }
        }
    }

    /// Block by block: an address inside (the first, last or middle address not taken by a
    /// more specific block) classifies to the block; the addresses just below and just above
    /// it do not.
    #[test]
    fn every_block_holds_an_inside_address_and_not_its_neighbours() {
        let mut checked = 0;
        for blk in BLOCKS {
            let net = net_of(blk);
            if net.prefix_len() == 0 {
                continue;
            }
            let (first, last) = (net.network(), net.broadcast());
            let mid = match (first, last) {
                (IpAddr::V4(a), IpAddr::V4(z)) => IpAddr::V4(Ipv4Addr::from(
                    ((u64::from(u32::from(a)) + u64::from(u32::from(z))) / 2) as u32,
                )),
                (IpAddr::V6(a), IpAddr::V6(z)) => {
                    IpAddr::V6((u128::from(a) / 2 + u128::from(z) / 2).into())
                }
                _ => unreachable!(),
            };
            let inside = [first, last, mid]
                .into_iter()
                .find(|ip| std::ptr::eq(block_of(*ip), blk))
                .unwrap_or_else(|| panic!("no address of {} classifies to it", blk.prefix));
            assert!(net.contains(&inside));
            assert_eq!(
                classify(inside).block.global,
                blk.global,
                "{} {inside}",
                blk.prefix
            );
            for out in [step(first, false), step(last, true)].into_iter().flatten() {
                assert!(!net.contains(&out), "{} {out}", blk.prefix);
                assert!(
                    !std::ptr::eq(block_of(out), blk),
                    "{out} is just outside {} but classifies to it",
                    blk.prefix
                );
            }
            checked += 1;
        }
        assert_eq!(checked, BLOCKS.len() - 2);
    }

    /// The same, spelled out: one address inside and one just outside each block, with the
    /// class and reachability expected of each.
    #[test]
    fn hand_written_inside_and_outside_addresses() {
        // (address, class, globally reachable including what it embeds)
        let cases: &[(&str, Class, bool)] = &[
            ("0.0.0.0", ThisNetwork, false),
            ("0.255.255.255", ThisNetwork, false),
            ("1.0.0.0", Global, true),
            ("10.0.0.1", Private, false),
            ("9.255.255.255", Global, true),
            ("11.0.0.0", Global, true),
            ("100.64.0.1", Shared, false),
            ("100.127.255.255", Shared, false),
            ("100.63.255.255", Global, true),
            ("100.128.0.0", Global, true),
            ("127.0.0.1", Loopback, false),
            ("127.255.255.255", Loopback, false),
            ("126.255.255.255", Global, true),
            ("128.0.0.0", Global, true),
            ("169.254.169.254", LinkLocal, false),
            ("169.253.255.255", Global, true),
            ("169.255.0.0", Global, true),
            ("172.16.0.1", Private, false),
            ("172.31.255.255", Private, false),
            ("172.15.255.255", Global, true),
            ("172.32.0.0", Global, true),
            ("192.0.0.1", Protocol, false),
            ("192.0.0.8", Protocol, false),
            ("192.0.0.9", Anycast, true),
            ("192.0.0.10", Anycast, true),
            ("192.0.0.11", Protocol, false),
            ("192.0.0.170", Translation, false),
            ("192.0.0.171", Translation, false),
            ("192.0.0.255", Protocol, false),
            ("191.255.255.255", Global, true),
            ("192.0.1.0", Global, true),
            ("192.0.2.1", Documentation, false),
            ("192.0.3.0", Global, true),
            ("192.31.196.1", Anycast, true),
            ("192.52.193.1", Anycast, true),
            ("192.88.99.1", Deprecated, false),
            ("192.88.100.0", Global, true),
            ("192.168.1.1", Private, false),
            ("192.167.255.255", Global, true),
            ("192.169.0.0", Global, true),
            ("192.175.48.1", Anycast, true),
            ("198.18.0.1", Benchmarking, false),
            ("198.19.255.255", Benchmarking, false),
            ("198.17.255.255", Global, true),
            ("198.20.0.0", Global, true),
            ("198.51.100.7", Documentation, false),
            ("198.51.101.0", Global, true),
            ("203.0.113.9", Documentation, false),
            ("203.0.114.0", Global, true),
            ("224.0.0.1", Multicast, false),
            ("239.255.255.255", Multicast, false),
            ("223.255.255.255", Global, true),
            ("233.252.0.1", Documentation, false),
            ("240.0.0.1", Reserved, false),
            ("255.255.255.254", Reserved, false),
            ("255.255.255.255", Broadcast, false),
            ("8.8.8.8", Global, true),
            // IPv6.
            ("::", Unspecified, false),
            ("::1", Loopback, false),
            ("::2", Translation, false),
            ("::127.0.0.1", Translation, false),
            ("::8.8.8.8", Translation, false),
            ("::1:0:0", Reserved, false),
            ("::ffff:8.8.8.8", Translation, false),
            ("::ffff:127.0.0.1", Translation, false),
            ("::fffe:ffff:ffff", Reserved, false),
            ("::ffff:0:8.8.8.8", Translation, false),
            ("::ffff:0:127.0.0.1", Translation, false),
            ("64:ff9b::8.8.8.8", Translation, true),
            ("64:ff9b::127.0.0.1", Translation, false),
            ("64:ff9b::10.1.2.3", Translation, false),
            ("64:ff9b::1:0:0", Reserved, false),
            ("64:ff9b:1::8.8.8.8", Translation, false),
            ("64:ff9b:2::", Reserved, false),
            ("100::1", Discard, false),
            ("100:0:0:1::1", Protocol, false),
            ("100:0:0:2::", Reserved, false),
            ("2001:4::1", Protocol, false),
            ("2001:1::1", Anycast, true),
            ("2001:1::2", Anycast, true),
            ("2001:1::3", Anycast, true),
            ("2001:1::4", Protocol, false),
            ("2001:2::1", Benchmarking, false),
            ("2001:2:1::", Protocol, false),
            ("2001:3::1", Anycast, true),
            ("2001:4:112::1", Anycast, true),
            ("2001:10::1", Identifier, false),
            ("2001:20::1", Identifier, true),
            ("2001:30::1", Identifier, true),
            ("2001:200::", Global, true),
            ("2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff", Protocol, false),
            ("2001:db8::1", Documentation, false),
            ("2001:db9::", Global, true),
            ("2002:0808:0808::1", Tunnel, true),
            ("2002:7f00:1::1", Tunnel, false),
            ("2002:c0a8:101::1", Tunnel, false),
            ("2003::", Global, true),
            ("2620:4f:8000::1", Anycast, true),
            ("2620:4f:8001::", Global, true),
            ("3fff::1", Documentation, false),
            ("3fff:1000::", Global, true),
            ("5f00::1", SegmentRouting, false),
            ("fc00::1", UniqueLocal, false),
            (
                "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
                UniqueLocal,
                false,
            ),
            ("fe80::1", LinkLocal, false),
            ("febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", LinkLocal, false),
            ("fec0::1", SiteLocal, false),
            ("ff02::1", Multicast, false),
            ("fe00::", Reserved, false),
            ("4000::1", Reserved, false),
            ("1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", Reserved, false),
            ("2606:4700::1111", Global, true),
            // Teredo: server 65.54.227.120, client 192.0.2.45 obfuscated → not global.
            ("2001:0:4136:e378:8000:63bf:3fff:fdd2", Tunnel, false),
            // Teredo with a global client (8.8.8.8 inverted: f7f7:f7f7).
            ("2001:0:4136:e378:8000:63bf:f7f7:f7f7", Tunnel, true),
            // Teredo whose client is loopback (127.0.0.1 inverted).
            ("2001:0:4136:e378:8000:63bf:80ff:fffe", Tunnel, false),
            // Teredo whose server is private.
            ("2001:0:a00:1:8000:63bf:f7f7:f7f7", Tunnel, false),
            // ISATAP identifiers in a global prefix.
            ("2001:4860:1::5efe:10.0.0.1", Global, false),
            ("2001:4860:1::200:5efe:127.0.0.1", Global, false),
            ("2001:4860:1::200:5efe:8.8.8.8", Global, true),
        ];
        for (addr, class, global) in cases {
            let c = cls(addr);
            assert_eq!(
                (c.block.class, c.is_global()),
                (*class, *global),
                "{addr}: {c:?}"
            );
        }
    }

    #[test]
    fn embedded_ipv4_is_extracted() {
        let emb = |s: &str| -> Vec<(&str, String)> {
            cls(s)
                .embedded
                .iter()
                .map(|e| (e.role, e.addr.to_string()))
                .collect()
        };
        assert_eq!(emb("::ffff:1.2.3.4"), [("ipv4", "1.2.3.4".into())]);
        assert_eq!(emb("::1.2.3.4"), [("ipv4", "1.2.3.4".into())]);
        assert_eq!(emb("::ffff:0:1.2.3.4"), [("ipv4", "1.2.3.4".into())]);
        assert_eq!(emb("64:ff9b::1.2.3.4"), [("ipv4", "1.2.3.4".into())]);
        assert_eq!(emb("2002:102:304::"), [("6to4", "1.2.3.4".into())]);
        assert_eq!(
            emb("2001:0:4136:e378:8000:63bf:3fff:fdd2"),
            [
                ("teredo-server", "65.54.227.120".into()),
                ("teredo-client", "192.0.2.45".into())
            ]
        );
        // Not global anyway: no ISATAP reading.
        assert!(emb("2001:db8::5efe:1.2.3.4").is_empty());
        assert_eq!(emb("2a00::5efe:1.2.3.4"), [("isatap", "1.2.3.4".into())]);
        assert!(emb("2a00::1").is_empty());
    }

    #[test]
    fn settings_open_direct_loopback_and_private_only() {
        let none = Allow::default();
        let lo = Allow {
            loopback: true,
            private: false,
        };
        let all = Allow {
            loopback: true,
            private: true,
        };
        let r = |s: &str, a| refusal(s.parse().unwrap(), a).map(|r| r.describe());
        assert!(r("8.8.8.8", none).is_none());
        assert!(r("64:ff9b::8.8.8.8", none).is_none());
        assert!(r("127.0.0.1", none).unwrap().contains("loopback"));
        assert!(r("127.0.0.1", lo).is_none());
        assert!(r("::1", lo).is_none());
        assert!(r("10.0.0.1", lo).is_some());
        for open in [
            "10.0.0.1",
            "100.64.0.1",
            "169.254.1.1",
            "fd00::1",
            "fe80::1",
            "198.18.0.1",
        ] {
            assert!(r(open, all).is_none(), "{open}");
            assert!(r(open, none).is_some(), "{open}");
        }
        for shut in [
            "0.0.0.0",
            "192.0.0.1",
            "192.0.2.1",
            "224.0.0.1",
            "255.255.255.255",
            "240.0.0.1",
            "::",
            "::127.0.0.1",
            "::ffff:127.0.0.1",
            "::ffff:0:127.0.0.1",
            "64:ff9b::127.0.0.1",
            "64:ff9b:1::8.8.8.8",
            "2002:7f00:1::1",
            "2001:0:4136:e378:8000:63bf:80ff:fffe",
            "2001:db8::1",
            "ff02::1",
        ] {
            assert!(r(shut, all).is_some(), "{shut}");
        }
        let msg = r("::ffff:127.0.0.1", all).unwrap();
        assert!(msg.contains("::ffff:0:0/96"), "{msg}");
        let msg = r("64:ff9b::7f00:1", all).unwrap();
        assert!(
            msg.contains("embeds (ipv4) the loopback address 127.0.0.1"),
            "{msg}"
        );
    }
}
