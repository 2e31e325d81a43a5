//! The one-way secrets store (docs/design.md#home-layout, docs/design.md#security-model): `secrets/`, values encrypted at rest.
//!
//! * `secrets/key`: 32 random bytes, mode 0600 in a 0700 directory, made on first use (and by
//!   `bob init`). A key file readable by group or others is refused (`policy.denied`). When
//!   the chain key lives outside the home (`keys.file`, `BOB_KEY_FILE`, systemd's credential),
//!   the secrets key lives next to it as `bob-secrets.key` ([`key_path`]), so every node of one
//!   cluster can hold the same pair of keys and neither sits in the home or the database.
//! * The sealed rows: the home's `secrets/secrets.db`, or the table `secrets` of the shared
//!   database when `database.url` is set (the one place: [`Secrets::open`]), so a secret set on
//!   one node is resolved and masked on every node of that database. The key never enters the
//!   database: every node holds the same secrets key file (`bob keys export` / `import`), and a
//!   key that does not open the database's secrets is refused ([`check_shared_key`]). Only the
//!   secret the database URL's password names stays in the home's own store
//!   ([`Secrets::open_for`]): it unlocks the database, so it cannot live there.
//! * `secrets/secrets.db`: SQLite, one row per secret: name, a fresh 24-byte nonce per write,
//!   and the XChaCha20-Poly1305 ciphertext with the secret's name as associated data (a
//!   ciphertext moved to another name does not decrypt). SQLite rather than a JSON document so
//!   no text layer (the storage layer's redaction) ever rewrites ciphertext bytes.
//!
//! One-way: `bob secrets` and the HTTP API set, list (names and times only) and remove; no
//! command or endpoint returns a value. Values are read only inside the process that uses them:
//! [`resolve_ref`] for `secret:NAME` references (the backend's `api_key`, the SerpAPI key), and
//! [`Secrets::values`] so [`crate::redact::Redactor::load`] masks every stored value wherever
//! bob writes.
//!
//! Binding: each secret is sent to one origin (`scheme://host[:port]`), recorded in its row
//! (`bound_to`). `bob secrets set NAME --for URL` binds it to URL's origin; `bob secrets set
//! NAME` without `--for` leaves it unbound, and its first use binds it to the origin it is then
//! sent to (the configured base URL, which only a person at the machine can change). Setting a
//! value over HTTP keeps the binding it had. From then on [`resolve_ref`] refuses
//! (`policy.denied`, naming the setting) to hand the value to any other origin: pointing a base
//! URL elsewhere needs the secret set again at the machine, with `--for` the new URL.

mod pg;

pub use crate::sealed::{
    OUTSIDE_KEY_FILE, REF_PREFIX, SecretInfo, dir, ensure_key, holds_secrets, home_key_path,
    install_key_file, key_path, load_key,
};

use crate::error::{Error, Result};
use crate::home::Home;
use crate::sealed::{HomeSecretRows, Sealer, SecretRows};

/// Longest secret value accepted, in bytes.
pub const MAX_VALUE: usize = 64 * 1024;
/// Shortest secret value accepted, in characters: every value is masked wherever it appears
/// in anything bob writes, so a value of a few characters would mask ordinary text.
pub const MIN_VALUE: usize = crate::contracts::http::SECRET_MIN_CHARS;

pub struct Secrets {
    rows: Box<dyn SecretRows>,
    sealer: Sealer,
    /// On the shared database: the home, whose own store's values are masked too (the
    /// database password's secret).
    local_home: Option<Home>,
}

/// Secret names: 1-64 characters of `[A-Za-z0-9_.-]`.
pub fn check_name(name: &str) -> Result<&str> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'));
    if ok {
        Ok(name)
    } else {
        Err(
            Error::invalid("a secret name is 1-64 characters of letters, digits and _ . -")
                .with("field", "name"),
        )
    }
}

/// The name of the secret the shared database's password names (`secret:NAME` in
/// `database.url`): that one is kept in the home's own store.
fn node_local_name() -> Option<String> {
    crate::db::password_secret()
}

impl Secrets {
    /// Opens the store, creating the key (and the home's database) on first use: the shared
    /// database's rows when `database.url` is set, else the home's `secrets/secrets.db`.
    pub fn open(home: &Home) -> Result<Secrets> {
        match crate::db::secrets_connection()? {
            Some(db) => {
                let key = ensure_key(home)?;
                Ok(Secrets {
                    rows: Box::new(pg::PgSecretRows::new(db)),
                    sealer: Sealer::new(&key),
                    local_home: Some(home.clone()),
                })
            }
            None => Secrets::open_local(home),
        }
    }

    /// The store secret `name` lives in: the home's own for the database password's secret,
    /// else [`Secrets::open`]'s.
    pub fn open_for(home: &Home, name: &str) -> Result<Secrets> {
        if node_local_name().as_deref() == Some(name) {
            return Secrets::open_local(home);
        }
        Secrets::open(home)
    }

    /// [`Secrets::open_for`] only if that store exists (nothing is created).
    pub fn open_existing_for(home: &Home, name: &str) -> Result<Option<Secrets>> {
        if node_local_name().as_deref() == Some(name) {
            return Secrets::open_local_existing(home);
        }
        Secrets::open_existing(home)
    }

    /// Opens the store only if one exists (readers: nothing is created). On the shared
    /// database: when it holds a secret (which this node must then be able to open: a node
    /// without the cluster's secrets key is `conflict`, never a new key) or the home has a
    /// store of its own.
    pub fn open_existing(home: &Home) -> Result<Option<Secrets>> {
        let Some(db) = crate::db::secrets_connection()? else {
            return Secrets::open_local_existing(home);
        };
        let rows = pg::PgSecretRows::new(db);
        if !rows.any()? && !HomeSecretRows::exists(home) {
            return Ok(None);
        }
        let key = match load_key(home)? {
            Some(k) => k,
            None if !rows.any()? => ensure_key(home)?,
            None => {
                return Err(Error::conflict(format!(
                    "the shared database holds secrets but this node has no secrets key ({}): \
                     install the cluster's keys with `bob keys import`",
                    key_path(home).display()
                ))
                .retryable(false));
            }
        };
        Ok(Some(Secrets {
            rows: Box::new(rows),
            sealer: Sealer::new(&key),
            local_home: Some(home.clone()),
        }))
    }

    /// The home's own store (`secrets/secrets.db`), whatever `database.url` says.
    pub fn open_local(home: &Home) -> Result<Secrets> {
        let key = ensure_key(home)?;
        Ok(Secrets {
            rows: Box::new(HomeSecretRows::open(home)?),
            sealer: Sealer::new(&key),
            local_home: None,
        })
    }

    /// [`Secrets::open_local`] only if the home has a store (nothing is created).
    pub fn open_local_existing(home: &Home) -> Result<Option<Secrets>> {
        if !HomeSecretRows::exists(home) {
            return Ok(None);
        }
        Secrets::open_local(home).map(Some)
    }

    /// Stores (or replaces) a secret; a replaced one keeps its binding, a new one is unbound.
    pub fn set(&mut self, name: &str, value: &str, now: &str) -> Result<SecretInfo> {
        self.store(name, value, now, None)
    }

    /// Stores (or replaces) a secret at the machine, bound to `origin` (from [`origin_of`]),
    /// or unbound (bound at its first use) when `None`.
    pub fn set_for(
        &mut self,
        name: &str,
        value: &str,
        now: &str,
        origin: Option<&str>,
    ) -> Result<SecretInfo> {
        self.store(name, value, now, Some(origin))
    }

    /// `binding`: `None` keeps the row's binding, `Some(b)` sets it to `b`.
    fn store(
        &mut self,
        name: &str,
        value: &str,
        now: &str,
        binding: Option<Option<&str>>,
    ) -> Result<SecretInfo> {
        check_name(name)?;
        if value.chars().count() < MIN_VALUE {
            return Err(Error::invalid(format!(
                "the secret value must be at least {MIN_VALUE} characters"
            ))
            .with("field", "value"));
        }
        if value.len() > MAX_VALUE {
            return Err(Error::invalid(format!(
                "the secret value is longer than {MAX_VALUE} bytes"
            ))
            .with("field", "value"));
        }
        let (nonce, ct) = self.sealer.seal(name, value)?;
        self.rows.upsert(name, &nonce, &ct, now, binding)?;
        self.rows
            .info(name)?
            .ok_or_else(|| Error::internal("the secret vanished after it was written"))
    }

    /// Names and times, sorted by name.
    pub fn list(&self) -> Result<Vec<SecretInfo>> {
        self.rows.list()
    }

    /// Removes a secret (`not_found` if there is none).
    pub fn remove(&mut self, name: &str) -> Result<()> {
        check_name(name)?;
        if !self.rows.remove(name)? {
            return Err(Error::not_found(format!("no secret named {name:?}")).with("name", name));
        }
        Ok(())
    }

    /// The values of this store's own rows.
    fn shared_values(&self) -> Result<Vec<String>> {
        self.rows
            .all_sealed()?
            .iter()
            .map(|(n, nonce, ct)| self.sealer.open(n, nonce, ct))
            .collect()
    }

    /// The value of one secret, for the process that uses it. Never print or return it.
    pub fn value(&self, name: &str) -> Result<String> {
        check_name(name)?;
        let (nonce, ct) = self.rows.sealed(name)?.ok_or_else(|| {
            Error::not_found(format!("no secret named {name:?} (bob secrets set {name})"))
                .with("name", name)
        })?;
        self.sealer.open(name, &nonce, &ct)
    }

    /// Every stored value (for the redactor's exact-match literals); on the shared database
    /// also those of the home's own store (the database password's secret).
    pub fn values(&self) -> Result<Vec<String>> {
        let mut values = self.shared_values()?;
        if let Some(home) = &self.local_home
            && let Some(local) = Secrets::open_local_existing(home)?
        {
            values.extend(local.values()?);
        }
        Ok(values)
    }
}

/// Every secret `bob secrets list` shows, sorted by name: the store's, and on the shared
/// database also the database password's secret from the home's own store.
pub fn list(home: &Home) -> Result<Vec<SecretInfo>> {
    let mut all = match Secrets::open_existing(home)? {
        Some(s) => s.list()?,
        None => Vec::new(),
    };
    if crate::db::is_configured()
        && let Some(name) = node_local_name()
        && let Some(local) = Secrets::open_local_existing(home)?
        && let Some(info) = local.rows.info(&name)?
        && !all.iter().any(|i| i.name == name)
    {
        all.push(info);
        all.sort_by(|a, b| a.name.cmp(&b.name));
    }
    Ok(all)
}

/// Every value the redactor masks by exact match: the store's (on the shared database, the
/// copy [`follow_shared`] keeps when this process follows it, so no database call is made) and
/// the home's own store's.
pub fn values_to_mask(home: &Home) -> Result<Vec<String>> {
    let followed = FOLLOWED
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .as_ref()
        .map(|f| f.values.clone());
    match followed {
        Some(mut values) => {
            if let Some(local) = Secrets::open_local_existing(home)? {
                values.extend(local.values()?);
            }
            Ok(values)
        }
        None => match Secrets::open_existing(home)? {
            Some(store) => store.values(),
            None => Ok(Vec::new()),
        },
    }
}

/// The shared database's secrets as a following process last read them.
struct Followed {
    /// The database's count of changes to its secrets when they were read.
    changes: i64,
    values: Vec<String>,
}

static FOLLOWED: std::sync::RwLock<Option<Followed>> = std::sync::RwLock::new(None);

/// How often a following process asks the shared database whether its secrets changed.
const FOLLOW_EVERY: std::time::Duration = std::time::Duration::from_millis(500);

/// For a long-lived process on the shared database (`bob serve`): reads the database's secrets
/// now, then from a thread of its own every [`FOLLOW_EVERY`] reads the database's count of
/// changes to them and, when it moved, the values again, so a secret set or removed on another
/// node is masked here within a second ([`shared_generation`] says when to reload). Nothing to
/// do when `database.url` is unset; started once per process.
pub fn follow_shared(home: &Home) -> Result<()> {
    static STARTED: std::sync::Once = std::sync::Once::new();
    if !crate::db::is_configured() || STARTED.is_completed() {
        return Ok(());
    }
    let first = read_followed(home)?;
    let mut started = false;
    STARTED.call_once(|| started = true);
    if !started {
        return Ok(());
    }
    *FOLLOWED.write().unwrap_or_else(|e| e.into_inner()) = Some(first);
    let home = home.clone();
    std::thread::Builder::new()
        .name("bob-secrets-follow".into())
        .spawn(move || {
            loop {
                std::thread::sleep(FOLLOW_EVERY);
                let seen = FOLLOWED
                    .read()
                    .unwrap_or_else(|e| e.into_inner())
                    .as_ref()
                    .map(|f| f.changes);
                let Ok(Some(db)) = crate::db::secrets_connection() else {
                    continue;
                };
                // A database that does not answer keeps the last values until it does.
                if matches!(pg::changes(db), Ok(c) if Some(c) != seen)
                    && let Ok(now) = read_followed(&home)
                {
                    *FOLLOWED.write().unwrap_or_else(|e| e.into_inner()) = Some(now);
                }
            }
        })
        .map_err(|e| Error::internal(format!("starting the secrets follower failed: {e}")))?;
    Ok(())
}

/// The count of changes first, then the values: a change in between is read again next time.
fn read_followed(home: &Home) -> Result<Followed> {
    let Some(db) = crate::db::secrets_connection()? else {
        return Ok(Followed {
            changes: 0,
            values: Vec::new(),
        });
    };
    let changes = pg::changes(db)?;
    let values = match Secrets::open_existing(home)? {
        Some(store) => store.shared_values()?,
        None => Vec::new(),
    };
    Ok(Followed { changes, values })
}

/// The generation of the shared database's secrets this process follows (`None` when it does
/// not follow them): a redactor loaded at another generation is out of date.
pub fn shared_generation() -> Option<i64> {
    FOLLOWED
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .as_ref()
        .map(|f| f.changes)
}

/// Refuses (`conflict`) a secrets key that does not open every secret of the shared database
/// (nothing to check when `database.url` is unset or the database holds none): a node with
/// such a key could neither resolve nor mask the cluster's secrets.
pub fn check_shared_key(key: &[u8; 32], key_id: &str) -> Result<()> {
    let Some(db) = crate::db::secrets_connection()? else {
        return Ok(());
    };
    let sealer = Sealer::new(key);
    for (name, nonce, ct) in pg::PgSecretRows::new(db).all_sealed()? {
        if sealer.open(&name, &nonce, &ct).is_err() {
            return Err(Error::conflict(format!(
                "the secrets key {key_id} does not open the shared database's secret {name:?}: \
                 the database's secrets were sealed with another key; import the bundle \
                 exported from a node of this database"
            ))
            .with("secret", name)
            .with("imported_key_id", key_id.to_string())
            .retryable(false));
        }
    }
    Ok(())
}

/// The origin (`scheme://host[:port]`, the port only when not the scheme's default) a secret
/// sent to `url` is bound to. `invalid.request` for anything but an http(s) URL with a host.
pub fn origin_of(url: &str) -> Result<String> {
    let parsed = url::Url::parse(url.trim())
        .map_err(|e| Error::invalid(format!("{url:?} is not a URL: {e}")))?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host().is_none() {
        return Err(Error::invalid(format!(
            "{url:?} must be an http(s) URL with a host"
        )));
    }
    Ok(parsed.origin().ascii_serialization())
}

impl Secrets {
    /// Binds an unbound secret to `origin`, then checks that it is bound there: the origin it
    /// is bound to otherwise.
    fn bind_or_check(&self, name: &str, origin: &str) -> Result<std::result::Result<(), String>> {
        let bound = self.rows.bind(name, origin)?;
        Ok(match bound {
            Some(b) if b == origin => Ok(()),
            Some(b) => Err(b),
            None => Err(String::new()),
        })
    }
}

/// Resolves a config value that is sent to `url` (setting `setting` names it): `secret:NAME`
/// becomes the secret's value if the secret is bound to `url`'s origin (an unbound one is
/// bound to it now), else `policy.denied`; anything else is returned as is. Returns the value
/// and whether it came from the store.
pub fn resolve_ref(home: &Home, value: &str, url: &str, setting: &str) -> Result<(String, bool)> {
    match value.strip_prefix(REF_PREFIX) {
        Some(name) => {
            let name = name.trim();
            let store = Secrets::open_existing_for(home, name)?.ok_or_else(|| {
                Error::not_found(format!(
                    "config names secret {name:?} but this home has no secrets (bob secrets set {name})"
                ))
            })?;
            let secret = store.value(name)?;
            let origin = origin_of(url).map_err(|e| e.with("setting", setting))?;
            if let Err(bound) = store.bind_or_check(name, &origin)? {
                return Err(Error::denied(format!(
                    "secret {name:?} is bound to {bound}, not {origin} ({setting}); to send it \
                     there, set it again at the machine: bob secrets set {name} --for {origin}"
                ))
                .with("setting", setting)
                .with("secret", name)
                .with("bound_to", bound)
                .with("origin", origin));
            }
            Ok((secret, true))
        }
        None => Ok((value.to_string(), false)),
    }
}
