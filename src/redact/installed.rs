//! What the settings installed for redaction, once per process: the rule file the
//! `redact.rules` setting names and the known secret values to mask by exact match.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Environment values shorter than this are not masked by exact match (too many false hits);
/// values shorter than 8 characters only when they are not a plain word (`hunter2` is masked,
/// `default` is not: it would mask every default user name).
pub const MIN_LITERAL_CHARS: usize = 6;

pub(super) fn literal_worth_masking(v: &str) -> bool {
    let n = v.trim().chars().count();
    n >= 8 || (n >= MIN_LITERAL_CHARS && !v.trim().chars().all(|c| c.is_ascii_alphabetic()))
}

/// The rule file named by the settings, and the known secret values (longest first).
type Installed = (Option<PathBuf>, Vec<String>);
static INSTALLED: OnceLock<Installed> = OnceLock::new();

/// Installs, once per process, what the settings say about redaction: the rule file
/// (`redact.rules`; `None` = `<home>/redact.rules`) and values to mask by exact match
/// ([`crate::settings::Settings::secret_values`]). Called by
/// [`crate::settings::Settings::install`]; later calls are ignored.
pub fn install(rules: Option<PathBuf>, secrets: Vec<String>) {
    let mut literals: Vec<String> = secrets
        .into_iter()
        .filter(|v| literal_worth_masking(v))
        .collect();
    // Longest first (a secret containing another is masked whole); equal ones adjacent.
    literals.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    literals.dedup();
    let _ = INSTALLED.set((rules.filter(|p| !p.as_os_str().is_empty()), literals));
}

pub(super) fn installed() -> &'static Installed {
    INSTALLED.get_or_init(|| (None, Vec::new()))
}

pub(super) fn rules_file(root: &Path) -> PathBuf {
    installed()
        .0
        .clone()
        .unwrap_or_else(|| root.join("redact.rules"))
}
