//! Signals as flags: a handler (signal-hook's) only raises an atomic flag, so no thread has to
//! listen and the code that loops looks at the flag when it suits it.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// A flag that each of `signals` raises. Registering SIGINT or SIGTERM cannot fail (only the
/// signals that may not be caught, such as SIGKILL, are refused), so a refusal is ignored and
/// the flag simply never rises.
pub fn flag(signals: &[libc::c_int]) -> Arc<AtomicBool> {
    let flag = Arc::new(AtomicBool::new(false));
    for &signal in signals {
        let _ = signal_hook::flag::register(signal, flag.clone());
    }
    flag
}
