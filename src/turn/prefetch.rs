//! The turn's retrieval started early ([`Prefetch`]): the memory store is opened and queried
//! for the user's message on its own thread while the turn sets itself up.

use super::options::TurnOptions;
use crate::error::{Error, Result};
use crate::home::Home;
use crate::memory::Memory;

/// What the retrieval thread brings back: the opened store and the query's result.
pub(super) struct Prefetched {
    pub(super) memory: Option<Memory>,
    pub(super) found: Result<super::mem::Retrieved>,
    /// The live short-term entries relevant to the message (read only; the turn touches them).
    pub(super) stm: Result<Vec<crate::contracts::StmEntry>>,
}

/// The turn's retrieval, started on its own thread as soon as the message is known: every
/// role that retrieves queries the user's message, so the memory store can be opened and
/// queried while the turn sets itself up (backend, runtime, audit, checkpoint). Without a
/// memory store, or for a profile whose roles never retrieve, nothing is started.
pub struct Prefetch {
    pub(super) query: String,
    pub(super) handle: Option<std::thread::JoinHandle<Prefetched>>,
}

impl Prefetch {
    /// Starts the retrieval of `message` for `opts.user_id` (else `default`).
    pub fn start(home: &Home, opts: &TurnOptions, message: &str) -> Prefetch {
        if !opts.profile.roles().iter().any(|r| r.wants_retrieval) || !home.memory_db().exists() {
            return Prefetch {
                query: message.to_string(),
                handle: None,
            };
        }
        let home = home.clone();
        let pool = opts.memory_pool.clone();
        let user = opts.user_id.clone().unwrap_or_else(|| "default".into());
        let query = message.to_string();
        let spawned = std::thread::Builder::new()
            .name("bob-retrieval".into())
            .spawn(
                move || match pool.map_or_else(|| Memory::open_fast(&home), |p| p.take()) {
                    Ok(m) => {
                        let found = super::mem::retrieve(&m, &user, &query);
                        let stm = super::mem::relevant_stm(&m, &user, &query);
                        Prefetched {
                            memory: Some(m),
                            found,
                            stm,
                        }
                    }
                    Err(e) => Prefetched {
                        memory: None,
                        found: Err(e.clone()),
                        stm: Err(e),
                    },
                },
            );
        // A thread that cannot start leaves the retrieval to the role, as without a prefetch.
        Prefetch {
            query: message.to_string(),
            handle: spawned.ok(),
        }
    }

    /// The prefetched result for `query`, waiting for it; `None` when nothing was started
    /// for that query.
    pub(super) fn take(&mut self, query: &str) -> Option<Prefetched> {
        if query != self.query {
            return None;
        }
        let h = self.handle.take()?;
        Some(h.join().unwrap_or_else(|_| Prefetched {
            memory: None,
            found: Err(Error::internal("the retrieval thread panicked")),
            stm: Err(Error::internal("the retrieval thread panicked")),
        }))
    }
}

impl Drop for Prefetch {
    /// A turn that ended before it retrieved still waits for the thread (it only reads).
    fn drop(&mut self) {
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}
