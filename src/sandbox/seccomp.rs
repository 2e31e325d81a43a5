//! The seccomp filter of the full sandbox, built with `seccompiler` (pure Rust, no libseccomp).
//!
//! Everything is allowed except what a command-line tool never needs and a sandbox escape or a
//! host change would: those calls fail with `EPERM` (the program sees an ordinary error, it is
//! not killed). Refused: setting the clock (`settimeofday`, `clock_settime`, `adjtimex`,
//! `clock_adjtime`); mounting (`mount`, `umount2`, `pivot_root`, `chroot`, the new mount API);
//! tracing other processes (`ptrace`, `process_vm_readv/writev`, `kcmp`, `pidfd_getfd`); kernel
//! keyrings; `bpf`, `perf_event_open`, `userfaultfd`, `io_uring_*`; module loading, `reboot`,
//! `kexec_*`, swap, `acct`, quotas, `syslog`, `open_by_handle_at`, `iopl`/`ioperm`; entering or
//! making namespaces (`setns`, `unshare`, and `clone` with any `CLONE_NEW*` flag); `TIOCSTI` and
//! `TIOCLINUX` ioctls; and setting the set-user-ID or set-group-ID bit (`chmod`/`fchmod`/
//! `fchmodat`/`fchmodat2`, `open`/`openat`/`creat` with such a mode, and `mknod`/`mknodat` with
//! such a mode), since the sandbox user is bob's own user outside and a set-ID file in a root
//! would outlive the call; `mknod`/`mknodat` of a device node (`S_IFCHR`, `S_IFBLK`) is refused
//! too (the kernel already refuses it in a user namespace; the filter does not rely on that).
//! FIFOs, sockets and plain files made with `mknod` stay allowed. `clone3` and `openat2`
//! (whose flags live in a struct a filter cannot read) fail with `ENOSYS`, so libc falls back to
//! `clone`/`openat`, which are checked.
//!
//! On x86_64 the same numbers with the x32 bit set are refused too (seccompiler matches the
//! architecture but not the x32 ABI bit).

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule,
};
use std::collections::BTreeMap;

type Rules = BTreeMap<i64, Vec<SeccompRule>>;

const X32_BIT: i64 = 0x4000_0000;

fn insert(map: &mut Rules, nr: libc::c_long, rules: Vec<SeccompRule>) {
    map.insert(nr, rules.clone());
    if cfg!(target_arch = "x86_64") {
        map.insert(nr | X32_BIT, rules);
    }
}

/// A rule matching when `arg` has every bit of `bits` set.
fn bits_set(arg: u8, len: SeccompCmpArgLen, bits: u64) -> Result<SeccompRule, String> {
    let cond = SeccompCondition::new(arg, len, SeccompCmpOp::MaskedEq(bits), bits)
        .map_err(|e| e.to_string())?;
    SeccompRule::new(vec![cond]).map_err(|e| e.to_string())
}

fn eq(arg: u8, len: SeccompCmpArgLen, value: u64) -> Result<SeccompRule, String> {
    let cond =
        SeccompCondition::new(arg, len, SeccompCmpOp::Eq, value).map_err(|e| e.to_string())?;
    SeccompRule::new(vec![cond]).map_err(|e| e.to_string())
}

/// Rules matching a mode argument with the set-user-ID or set-group-ID bit.
fn setid_mode(arg: u8) -> Result<Vec<SeccompRule>, String> {
    Ok(vec![
        bits_set(arg, SeccompCmpArgLen::Dword, libc::S_ISUID as u64)?,
        bits_set(arg, SeccompCmpArgLen::Dword, libc::S_ISGID as u64)?,
    ])
}

const REFUSED: &[libc::c_long] = &[
    libc::SYS_settimeofday,
    libc::SYS_clock_settime,
    libc::SYS_adjtimex,
    libc::SYS_clock_adjtime,
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_pivot_root,
    libc::SYS_chroot,
    libc::SYS_move_mount,
    libc::SYS_open_tree,
    libc::SYS_fsopen,
    libc::SYS_fsconfig,
    libc::SYS_fsmount,
    libc::SYS_fspick,
    libc::SYS_mount_setattr,
    libc::SYS_ptrace,
    libc::SYS_process_vm_readv,
    libc::SYS_process_vm_writev,
    libc::SYS_kcmp,
    libc::SYS_pidfd_getfd,
    libc::SYS_keyctl,
    libc::SYS_add_key,
    libc::SYS_request_key,
    libc::SYS_bpf,
    libc::SYS_perf_event_open,
    libc::SYS_userfaultfd,
    libc::SYS_io_uring_setup,
    libc::SYS_io_uring_enter,
    libc::SYS_io_uring_register,
    libc::SYS_init_module,
    libc::SYS_finit_module,
    libc::SYS_delete_module,
    libc::SYS_reboot,
    libc::SYS_kexec_load,
    libc::SYS_kexec_file_load,
    libc::SYS_swapon,
    libc::SYS_swapoff,
    libc::SYS_acct,
    libc::SYS_quotactl,
    libc::SYS_quotactl_fd,
    libc::SYS_syslog,
    libc::SYS_open_by_handle_at,
    libc::SYS_name_to_handle_at,
    libc::SYS_setns,
    libc::SYS_unshare,
    libc::SYS_sethostname,
    libc::SYS_setdomainname,
    libc::SYS_vhangup,
    libc::SYS_fanotify_init,
    libc::SYS_lookup_dcookie,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_iopl,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_ioperm,
];

const NAMESPACE_FLAGS: &[libc::c_int] = &[
    libc::CLONE_NEWNS,
    libc::CLONE_NEWUSER,
    libc::CLONE_NEWPID,
    libc::CLONE_NEWNET,
    libc::CLONE_NEWIPC,
    libc::CLONE_NEWUTS,
    libc::CLONE_NEWCGROUP,
    0x80, // CLONE_NEWTIME, not exported by the libc crate for every target
];

/// Rules matching a `mknod` mode that makes a set-ID file or a device node (character or
/// block: the file-type field equals `S_IFCHR` or `S_IFBLK`).
fn setid_or_device_node(arg: u8) -> Result<Vec<SeccompRule>, String> {
    let mut rules = setid_mode(arg)?;
    for kind in [libc::S_IFCHR, libc::S_IFBLK] {
        let cond = SeccompCondition::new(
            arg,
            SeccompCmpArgLen::Dword,
            SeccompCmpOp::MaskedEq(libc::S_IFMT as u64),
            kind as u64,
        )
        .map_err(|e| e.to_string())?;
        rules.push(SeccompRule::new(vec![cond]).map_err(|e| e.to_string())?);
    }
    Ok(rules)
}

/// Compiles the two filters (EPERM list, ENOSYS list) for this architecture.
pub fn filters() -> Result<Vec<BpfProgram>, String> {
    let arch = std::env::consts::ARCH
        .try_into()
        .map_err(|e: seccompiler::BackendError| e.to_string())?;
    let mut eperm: Rules = BTreeMap::new();
    for &nr in REFUSED {
        insert(&mut eperm, nr, vec![]);
    }
    let clone_rules = NAMESPACE_FLAGS
        .iter()
        .map(|&f| bits_set(0, SeccompCmpArgLen::Qword, f as u64))
        .collect::<Result<Vec<_>, _>>()?;
    insert(&mut eperm, libc::SYS_clone, clone_rules);
    insert(
        &mut eperm,
        libc::SYS_ioctl,
        vec![
            eq(1, SeccompCmpArgLen::Dword, libc::TIOCSTI)?,
            eq(1, SeccompCmpArgLen::Dword, libc::TIOCLINUX)?,
        ],
    );
    insert(&mut eperm, libc::SYS_chmod, setid_mode(1)?);
    insert(&mut eperm, libc::SYS_fchmod, setid_mode(1)?);
    insert(&mut eperm, libc::SYS_fchmodat, setid_mode(2)?);
    insert(&mut eperm, libc::SYS_fchmodat2, setid_mode(2)?);
    insert(&mut eperm, libc::SYS_open, setid_mode(2)?);
    insert(&mut eperm, libc::SYS_creat, setid_mode(1)?);
    insert(&mut eperm, libc::SYS_openat, setid_mode(3)?);
    insert(&mut eperm, libc::SYS_mknod, setid_or_device_node(1)?);
    insert(&mut eperm, libc::SYS_mknodat, setid_or_device_node(2)?);
    let mut enosys: Rules = BTreeMap::new();
    insert(&mut enosys, libc::SYS_clone3, vec![]);
    insert(&mut enosys, libc::SYS_openat2, vec![]);
    let mut out = Vec::new();
    for (rules, errno) in [(eperm, libc::EPERM), (enosys, libc::ENOSYS)] {
        let filter = SeccompFilter::new(
            rules,
            SeccompAction::Allow,
            SeccompAction::Errno(errno as u32),
            arch,
        )
        .map_err(|e| e.to_string())?;
        out.push(BpfProgram::try_from(filter).map_err(|e| e.to_string())?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_filters_compile_for_this_architecture() {
        let f = super::filters().unwrap();
        assert_eq!(f.len(), 2);
        assert!(f.iter().all(|p| !p.is_empty()));
    }
}
