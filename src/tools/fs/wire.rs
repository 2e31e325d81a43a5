//! What the `fs.*` tools take and answer: their inputs (the tool registry's contract, with
//! their JSON Schemas) and their answers.

use crate::error::{Error, Result};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// `fs.read_text` input (the tool registry contract).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadTextInput {
    /// Path relative to the sandbox root.
    pub path: String,
    /// Read at most this many bytes (the output says `truncated`).
    #[serde(default = "d_max_bytes")]
    pub max_bytes: u64,
}

/// `fs.list_dir` input (the tool registry contract).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListDirInput {
    #[serde(default = "d_dot")]
    pub path: String,
    #[serde(default = "d_max_entries")]
    pub max_entries: usize,
}

/// `fs.write_text` input (the tool registry contract).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WriteTextInput {
    pub path: String,
    pub text: String,
    /// Replace an existing file; otherwise an existing file is a `conflict`.
    #[serde(default)]
    pub overwrite: bool,
}

fn d_max_bytes() -> u64 {
    20_000
}
fn d_dot() -> String {
    ".".into()
}
fn d_max_entries() -> usize {
    200
}

/// `fs.read_text`'s answer: the text (cut at the cap), its length in bytes, the file's size;
/// `lossy` only when bytes that are not UTF-8 were replaced.
#[derive(Serialize)]
pub(super) struct TextRead<'a> {
    pub(super) path: &'a str,
    pub(super) text: String,
    pub(super) bytes: usize,
    pub(super) size: u64,
    pub(super) truncated: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(super) lossy: bool,
}

/// `fs.list_dir`'s answer: the entries shown (by name), how many there are in all.
#[derive(Serialize)]
pub(super) struct DirListed<'a> {
    pub(super) path: &'a str,
    pub(super) entries: Vec<DirEntry>,
    pub(super) total: usize,
    pub(super) truncated: bool,
}

/// One entry of a listing: `file`, `dir`, `symlink` or `other`; a file's size.
#[derive(Serialize)]
pub(super) struct DirEntry {
    pub(super) name: String,
    #[serde(rename = "type")]
    pub(super) kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) size: Option<u64>,
}

/// `fs.write_text`'s answer.
#[derive(Serialize)]
pub(super) struct TextWritten<'a> {
    pub(super) path: &'a str,
    pub(super) bytes: usize,
    pub(super) created: bool,
}

pub(super) fn answer<T: Serialize>(v: &T) -> Result<Value> {
    serde_json::to_value(v).map_err(|e| Error::internal(e.to_string()))
}
