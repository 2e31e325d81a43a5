//! `http.get`'s entry in the registry and its typed input.

use crate::tools::spec::{Kind, ToolSpec};
use schemars::JsonSchema;
use serde::Deserialize;

/// The `http.get` tool.
pub const SPEC: ToolSpec = ToolSpec {
    name: "http.get",
    description: "GET a URL the session's net capabilities allow (redirects re-checked, private addresses refused), cached with a TTL.",
    kind: Kind::Net,
    mutating: false,
    schema: || schemars::schema_for!(HttpGetInput),
};

/// `http.get` input (the tool registry contract).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HttpGetInput {
    pub url: String,
    #[serde(default = "yes")]
    pub use_cache: bool,
}

fn yes() -> bool {
    true
}
