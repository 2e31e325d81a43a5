//! `bob secrets`: the one-way secrets store (set, list, rm; never get).

use super::Ctx;
use crate::contracts::{SecretRemoved, SecretStored};
use crate::error::{Error, Result};
use crate::secrets::{self, Secrets};
use std::io::{IsTerminal, Read, Write};

/// Store, list and remove secrets (one-way: values are never shown)
///
/// Values are encrypted at rest (XChaCha20-Poly1305) and never shown again. The key is the
/// home's secrets/key (mode 0600); when the chain key lives outside the home (setting
/// keys.file, BOB_KEY_FILE, or systemd's bob-chain.key credential), it is bob-secrets.key
/// next to that file instead. Config refers to secrets by name: `api_key = "secret:NAME"` in
/// config.toml's [chat] table (or BOB_CHAT_API_KEY=secret:NAME). Every stored value is
/// redacted wherever bob writes (audit, traces, ledger, run bundles). A secret is sent to
/// one origin only (scheme://host[:port]): the one named by `set --for URL`, else the one it
/// is first sent to; sending it anywhere else is refused (policy.denied) until it is set
/// again with --for. With database.url set the sealed values live in the database (every
/// node must hold the same key), except the secret the database URL's password names,
/// which stays in this home.
#[derive(Debug, clap::Subcommand)]
pub enum Args {
    /// Store a secret; the value is read from stdin (one trailing newline dropped), never argv
    ///
    /// Typed at a terminal, the value is not echoed and is asked for twice; the two entries
    /// must match, else nothing is stored (invalid.request).
    Set {
        /// Secret name: 1-64 characters of letters, digits and _ . -
        name: String,
        /// Bind the secret to this URL's origin (scheme://host[:port]): it is sent there and
        /// nowhere else. Without it the secret is bound to the origin of its first use
        #[arg(long = "for", value_name = "URL")]
        for_url: Option<String>,
    },
    /// List secret names (JSON Lines {name, created_at, updated_at, bound_to?}; never values)
    List,
    /// Remove a secret
    Rm {
        /// Secret name
        name: String,
    },
}

pub fn run(args: Args, ctx: &Ctx) -> Result<()> {
    match args {
        Args::Set { name, for_url } => {
            secrets::check_name(&name)?;
            let origin = for_url
                .as_deref()
                .map(|u| secrets::origin_of(u).map_err(|e| e.with("field", "for")))
                .transpose()?;
            let value = if std::io::stdin().is_terminal() {
                let first = read_hidden(&format!("value of secret {name}: "))?;
                let again = read_hidden("again, to confirm: ")?;
                if first != again {
                    return Err(Error::invalid("the two entries differ: nothing was stored"));
                }
                first
            } else {
                read_value(std::io::stdin().lock())?
            };
            let now = crate::clock::rfc3339(crate::clock::now()?);
            let info = Secrets::open_for(&ctx.home, &name)?.set_for(
                &name,
                &value,
                &now,
                origin.as_deref(),
            )?;
            ctx.out.doc(&SecretStored {
                name: info.name,
                created_at: info.created_at,
                updated_at: info.updated_at,
                bound_to: info.bound_to,
                stored: true,
            })
        }
        Args::List => {
            for i in secrets::list(&ctx.home)? {
                ctx.out.line(&i)?;
            }
            Ok(())
        }
        Args::Rm { name } => {
            let mut s = Secrets::open_existing_for(&ctx.home, &name)?
                .ok_or_else(|| Error::not_found(format!("no secret named {name:?}")))?;
            s.remove(&name)?;
            ctx.out.doc(&SecretRemoved {
                name,
                removed: true,
            })
        }
    }
}

/// A value read from `input`: at most the store's cap, UTF-8, one trailing newline dropped.
fn read_value(input: impl Read) -> Result<String> {
    let mut buf = Vec::new();
    input
        .take(secrets::MAX_VALUE as u64 + 3)
        .read_to_end(&mut buf)
        .map_err(|e| Error::internal(format!("reading stdin: {e}")))?;
    let mut value =
        String::from_utf8(buf).map_err(|_| Error::invalid("the secret value must be UTF-8"))?;
    if value.ends_with('\n') {
        value.pop();
        if value.ends_with('\r') {
            value.pop();
        }
    }
    Ok(value)
}

/// Terminal echo turned off on stdin while it lives; restored when dropped.
struct NoEcho(libc::termios);

impl NoEcho {
    fn new() -> Result<NoEcho> {
        // SAFETY: tcgetattr/tcsetattr on fd 0 with a termios this function owns; each result
        // is checked.
        unsafe {
            let mut t: libc::termios = std::mem::zeroed();
            if libc::tcgetattr(0, &mut t) != 0 {
                return Err(Error::internal(format!(
                    "reading the terminal's mode: {}",
                    std::io::Error::last_os_error()
                )));
            }
            let saved = t;
            t.c_lflag &= !libc::ECHO;
            t.c_lflag |= libc::ECHONL;
            if libc::tcsetattr(0, libc::TCSANOW, &t) != 0 {
                return Err(Error::internal(format!(
                    "turning off the terminal's echo: {}",
                    std::io::Error::last_os_error()
                )));
            }
            Ok(NoEcho(saved))
        }
    }
}

impl Drop for NoEcho {
    fn drop(&mut self) {
        // SAFETY: restores the mode saved from fd 0 in `new`.
        unsafe {
            libc::tcsetattr(0, libc::TCSANOW, &self.0);
        }
    }
}

/// Asks for one line on stderr and reads it from the terminal on stdin without echo.
fn read_hidden(prompt: &str) -> Result<String> {
    // Echo goes off before the prompt shows, so nothing typed after it is ever echoed.
    let _quiet = NoEcho::new()?;
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(prompt.as_bytes());
    let _ = err.flush();
    let mut line = String::new();
    std::io::stdin()
        .read_line(&mut line)
        .map_err(|e| Error::internal(format!("reading the terminal: {e}")))?;
    if line.len() > secrets::MAX_VALUE + 2 {
        return Err(Error::invalid("the secret value is too long"));
    }
    read_value(line.as_bytes())
}
