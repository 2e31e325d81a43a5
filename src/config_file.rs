//! A `config.toml` as a file a person edits: the commented file `bob init` writes into a new
//! home, and setting or removing one key (`bob config set` / `unset`). An edit keeps the
//! file's comments and layout (toml_edit), is checked exactly as the file is read
//! ([`Settings::check_config_text`]: a known key, a value of its type) before anything is
//! written, and replaces the file atomically, so a refused edit leaves the file as it was.

use crate::error::{Error, Result};
use crate::settings::{Kind, Settings, spec_of};
use std::path::Path;

/// What `bob init` writes as a new home's `config.toml`: every line a comment, so it changes
/// nothing until a person uncomments a line.
pub const TEMPLATE: &str = r#"# bob's settings for this home. Every key is optional: uncomment a line to use it.
# `bob config show` lists every setting with the value in force and where it came from;
# `bob config set chat.model gpt-4o-mini` edits this file (checked before it is written).
# Flags beat environment variables (BOB_CHAT_MODEL, ...), which beat this file, which beats
# your own ~/.config/bob/config.toml ($XDG_CONFIG_HOME/bob/config.toml).

[chat]
# An OpenAI-compatible Chat Completions endpoint: OpenAI, llama.cpp's llama-server, vLLM,
# Ollama (http://127.0.0.1:11434/v1), ...
# base_url = "https://api.openai.com/v1"
# model = "gpt-4o-mini"
# The API key: better a stored secret (`bob secrets set chat_key`) than the key itself.
# api_key = "secret:chat_key"
# Or the name of an environment variable that holds it.
# api_key_env = "OPENAI_API_KEY"
# timeout_s = 120
# max_retries = 3
"#;

/// Writes [`TEMPLATE`] to `path` unless a file is there; returns whether it wrote.
pub fn write_template(path: &Path) -> Result<bool> {
    if path.exists() {
        return Ok(false);
    }
    replace(path, TEMPLATE)?;
    Ok(true)
}

/// Sets `key` (`table.key`, as `bob config show` names it) to `value`, read as the setting's
/// type (a number, true/false, a comma-separated list, else text). Returns the value written,
/// as TOML.
pub fn set(path: &Path, key: &str, value: &str) -> Result<String> {
    let (table, name) = file_key(key)?;
    let item = typed_value(key, value)?;
    let shown = item.to_string().trim().to_string();
    let mut doc = read(path)?;
    if !doc.contains_table(table) {
        doc[table] = toml_edit::table();
    }
    let Some(t) = doc[table].as_table_like_mut() else {
        return Err(Error::invalid(format!(
            "{}: {table} is not a table",
            path.display()
        )));
    };
    t.insert(name, toml_edit::value(item));
    check_and_write(path, &doc.to_string())?;
    Ok(shown)
}

/// Removes `key` from the file; returns whether it was there.
pub fn unset(path: &Path, key: &str) -> Result<bool> {
    let (table, name) = file_key(key)?;
    let mut doc = read(path)?;
    let removed = doc
        .get_mut(table)
        .and_then(|t| t.as_table_like_mut())
        .and_then(|t| t.remove(name))
        .is_some();
    if removed {
        check_and_write(path, &doc.to_string())?;
    }
    Ok(removed)
}

/// `table.key` split, when `key` is a setting a config file may hold.
fn file_key(key: &str) -> Result<(&str, &str)> {
    let known = spec_of(key).is_some_and(|s| s.file);
    match key.split_once('.') {
        Some(parts) if known => Ok(parts),
        _ => Err(Error::invalid(format!(
            "{key:?} is not a setting config.toml can hold (`bob config show` lists them; the \
             home itself is chosen by --home or BOB_HOME)"
        ))
        .with("key", key.to_string())),
    }
}

/// `value` as the TOML value of `key`'s type.
fn typed_value(key: &str, value: &str) -> Result<toml_edit::Value> {
    let kind = spec_of(key).map(|s| s.kind).unwrap_or(Kind::Text);
    let bad = |what: &str| {
        Error::invalid(format!("{key} must be {what}, got {value:?}")).with("key", key.to_string())
    };
    Ok(match kind {
        Kind::Bool => match value {
            "true" => true.into(),
            "false" => false.into(),
            _ => return Err(bad("true or false")),
        },
        Kind::Count => value
            .parse::<i64>()
            .ok()
            .filter(|n| *n >= 0)
            .ok_or_else(|| bad("a non-negative integer"))?
            .into(),
        Kind::Seconds => match value.parse::<i64>() {
            Ok(n) if n > 0 => n.into(),
            _ => value
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite() && *x > 0.0)
                .ok_or_else(|| bad("a number of seconds"))?
                .into(),
        },
        Kind::List => value
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect::<toml_edit::Array>()
            .into(),
        _ => value.into(),
    })
}

fn read(path: &Path) -> Result<toml_edit::DocumentMut> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(Error::io(path, e)),
    };
    text.parse::<toml_edit::DocumentMut>()
        .map_err(|e| Error::invalid(format!("{}: {}", path.display(), e.message())))
}

/// Checks `text` as the settings read a config file, then replaces the file with it.
fn check_and_write(path: &Path, text: &str) -> Result<()> {
    Settings::check_config_text(text).map_err(|e| e.with("path", path.display().to_string()))?;
    replace(path, text)
}

/// Replaces `path` with `text` atomically (a temporary file renamed over it), creating its
/// directory.
fn replace(path: &Path, text: &str) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let tmp = dir.join(".config.toml.tmp");
    std::fs::write(&tmp, text).map_err(|e| Error::io(&tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| Error::io(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_template_reads_as_an_empty_config() {
        Settings::check_config_text(TEMPLATE).unwrap();
    }

    #[test]
    fn set_keeps_comments_and_checks_types() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        assert!(write_template(&path).unwrap());
        assert!(!write_template(&path).unwrap());
        assert_eq!(set(&path, "chat.model", "tiny").unwrap(), "\"tiny\"");
        assert_eq!(set(&path, "chat.max_retries", "5").unwrap(), "5");
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("# bob's settings"), "{text}");
        assert!(text.contains("model = \"tiny\""), "{text}");
        assert!(text.contains("max_retries = 5"), "{text}");
        Settings::check_config_text(&text).unwrap();
        // Refused edits leave the file as it was.
        assert!(set(&path, "chat.max_retries", "many").is_err());
        assert!(set(&path, "chat.modle", "x").is_err());
        assert!(set(&path, "home", "/tmp").is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        assert!(unset(&path, "chat.model").unwrap());
        assert!(!unset(&path, "chat.model").unwrap());
        assert!(!std::fs::read_to_string(&path).unwrap().contains("\"tiny\""));
    }
}
