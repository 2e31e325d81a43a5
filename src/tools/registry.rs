//! The tool registry: every tool's name, description, typed input (whose `schemars` schema is
//! what `bob tool schema` prints and what input is validated against), and aliases from the
//! other seeds with their field renames.

use super::fs::{self, ListDirInput, ReadTextInput, WriteTextInput};
use super::http::input::{self as http, HttpGetInput};
use super::shell::{self, ShellExecInput};
pub use super::spec::{Alias, Kind, ToolSpec};
use crate::error::{Code, Error, Result};
use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// A seat a model may view the game as: `p1` or `p2` (never the engine's full view).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MtgSeat {
    P1,
    P2,
}

impl MtgSeat {
    pub fn seat(self) -> crate::mtg::Seat {
        match self {
            MtgSeat::P1 => crate::mtg::Seat::P1,
            MtgSeat::P2 => crate::mtg::Seat::P2,
        }
    }
}

/// `mtg.state` input.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MtgStateInput {
    /// The game id (`mtg/<game_id>/`).
    pub game: String,
    /// The seat to view the game as (default: the player who must decide now); hidden zones
    /// are counts only.
    #[serde(default, rename = "as")]
    pub viewer: Option<MtgSeat>,
}

/// `mtg.actions` input.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MtgGameInput {
    /// The game id (`mtg/<game_id>/`).
    pub game: String,
}

/// `mtg.act` input.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MtgActInput {
    /// The game id (`mtg/<game_id>/`).
    pub game: String,
    /// One action `{decision_id, type, …}` (see `bob mtg schema`).
    pub action: crate::mtg::ActionRequest,
}

static TOOLS: &[ToolSpec] = &[
    fs::READ_TEXT,
    fs::LIST_DIR,
    fs::WRITE_TEXT,
    shell::SPEC,
    http::SPEC,
    super::domain::scryfall::SPEC,
    super::domain::steam::SPEC,
    super::domain::knowledge::SPEC,
    super::domain::news::SPEC,
    super::domain::web::SPEC,
    super::domain::bom::SPEC,
    super::domain::commerce::SPEC,
    super::domain::spreadsheet::SPEC,
    super::domain::bom_build::SPEC,
    super::domain::search::SPEC,
    ToolSpec {
        name: "mtg.state",
        description: "MTG: the visible state of a game ({game, as?: p1|p2}, default the granted seat that decides): only seats a human granted the session (`mtg:<game>:<seat>`); hidden zones as counts, never the other seat's hand or any library order.",
        kind: Kind::Game,
        mutating: false,
        schema: || schemars::schema_for!(MtgStateInput),
    },
    ToolSpec {
        name: "mtg.actions",
        description: "MTG: the ActionSurface of a game ({game}) → {decision_id, player, kind, options}; every option is a complete legal action or the per-object choices to combine; options only when a granted seat decides (else `waiting_for`).",
        kind: Kind::Game,
        mutating: false,
        schema: || schemars::schema_for!(MtgGameInput),
    },
    ToolSpec {
        name: "mtg.act",
        description: "MTG: take one action ({game, action: {decision_id, type, …}}, see `bob mtg schema`) for a granted seat that decides now; validated against the current ActionSurface (illegal or stale → error, nothing changes); journaled; returns the events and the next decision.",
        kind: Kind::Game,
        mutating: true,
        schema: || schemars::schema_for!(MtgActInput),
    },
];

static ALIASES: &[Alias] = &[
    Alias {
        name: "fs.read",
        target: "fs.read_text",
        renames: &[],
        from: "Openclawssy",
    },
    Alias {
        name: "fs.write",
        target: "fs.write_text",
        renames: &[("content", "text")],
        from: "Openclawssy",
    },
    Alias {
        name: "file.create",
        target: "fs.write_text",
        renames: &[("file_path", "path"), ("content", "text")],
        from: "JSON I/O",
    },
    Alias {
        name: "run_command",
        target: "shell.exec",
        renames: &[("requires_confirm", "")],
        from: "JSON I/O",
    },
];

/// Every registered tool, in listing order.
pub fn registry() -> &'static [ToolSpec] {
    TOOLS
}

/// Every alias.
pub fn aliases() -> &'static [Alias] {
    ALIASES
}

/// The tool a name (canonical or alias) refers to.
pub fn resolve(name: &str) -> Option<&'static ToolSpec> {
    let canonical = ALIASES
        .iter()
        .find(|a| a.name == name)
        .map_or(name, |a| a.target);
    TOOLS.iter().find(|t| t.name == canonical)
}

/// The alias entry of a name, if it is one.
pub fn alias(name: &str) -> Option<&'static Alias> {
    ALIASES.iter().find(|a| a.name == name)
}

/// A validated input, ready to execute.
#[derive(Debug, Clone)]
pub enum Input {
    ReadText(ReadTextInput),
    ListDir(ListDirInput),
    WriteText(WriteTextInput),
    ShellExec(ShellExecInput),
    HttpGet(HttpGetInput),
    Scryfall(crate::tools::domain::scryfall::ScryfallInput),
    Steam(crate::tools::domain::steam::SteamInput),
    Knowledge(crate::tools::domain::knowledge::KnowledgeInput),
    News(crate::tools::domain::news::NewsInput),
    FetchText(crate::tools::domain::web::FetchTextInput),
    BomNormalize(crate::tools::domain::bom::NormalizeInput),
    Offers(crate::tools::domain::commerce::OffersInput),
    Spreadsheet(crate::tools::domain::spreadsheet::SpreadsheetInput),
    BomBuild(crate::tools::domain::bom_build::BuildInput),
    Search(crate::tools::domain::search::SearchRequest),
    MtgState(MtgStateInput),
    MtgActions(MtgGameInput),
    MtgAct(MtgActInput),
}

fn parse<T: DeserializeOwned>(tool: &str, v: Value) -> Result<T> {
    serde_json::from_value(v).map_err(|e| {
        Error::new(Code::ToolInputInvalid, format!("{tool}: {e}")).with("tool", tool.to_string())
    })
}

/// Maps an alias's field names onto the canonical tool's and validates the input by
/// deserializing it into the tool's typed input (unknown fields refused):
/// `tool.input_invalid` with serde's message.
pub fn validate(requested: &str, spec: &ToolSpec, input: &Value) -> Result<Input> {
    let mut obj: Map<String, Value> = match input {
        Value::Object(m) => m.clone(),
        Value::Null => Map::new(),
        Value::String(s) => {
            return Err(Error::new(
                Code::ToolInputInvalid,
                format!(
                    "{requested}: input must be a JSON object; got a string (arguments that are not valid JSON?): {}",
                    crate::redact::before_cut(s)
                        .chars()
                        .take(200)
                        .collect::<String>()
                ),
            ));
        }
        other => {
            return Err(Error::new(
                Code::ToolInputInvalid,
                format!("{requested}: input must be a JSON object, not {other}"),
            ));
        }
    };
    if let Some(a) = alias(requested) {
        for (from, to) in a.renames {
            if let Some(v) = obj.shift_remove(*from)
                && !to.is_empty()
            {
                obj.insert((*to).to_string(), v);
            }
        }
    }
    let v = Value::Object(obj);
    Ok(match spec.name {
        "fs.read_text" => Input::ReadText(parse(requested, v)?),
        "fs.list_dir" => Input::ListDir(parse(requested, v)?),
        "fs.write_text" => Input::WriteText(parse(requested, v)?),
        "shell.exec" => Input::ShellExec(parse(requested, v)?),
        "http.get" => Input::HttpGet(parse(requested, v)?),
        "scryfall.lookup" => Input::Scryfall(parse(requested, v)?),
        "steam.game_lookup" => Input::Steam(parse(requested, v)?),
        "game.knowledge_search" => Input::Knowledge(parse(requested, v)?),
        "news.headline_search" => Input::News(parse(requested, v)?),
        "web.fetch_text" => Input::FetchText(parse(requested, v)?),
        "bom.normalize" => Input::BomNormalize(parse(requested, v)?),
        "commerce.search_offers" => Input::Offers(parse(requested, v)?),
        "docs.write_spreadsheet" => Input::Spreadsheet(parse(requested, v)?),
        "bom.build" => Input::BomBuild(parse(requested, v)?),
        "web.search" => Input::Search(parse(requested, v)?),
        "mtg.state" => Input::MtgState(parse(requested, v)?),
        "mtg.actions" => Input::MtgActions(parse(requested, v)?),
        "mtg.act" => Input::MtgAct(parse(requested, v)?),
        other => return Err(Error::internal(format!("no executor for {other}"))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn aliases_resolve_and_rename_fields() {
        let spec = resolve("file.create").unwrap();
        assert_eq!(spec.name, "fs.write_text");
        let Input::WriteText(w) = validate(
            "file.create",
            spec,
            &json!({"file_path": "a.txt", "content": "hi"}),
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(
            (w.path.as_str(), w.text.as_str(), w.overwrite),
            ("a.txt", "hi", false)
        );
        let spec = resolve("run_command").unwrap();
        assert!(
            validate(
                "run_command",
                spec,
                &json!({"cmd": "ls", "cwd": ".", "requires_confirm": true})
            )
            .is_ok()
        );
        assert!(resolve("fs.delete").is_none());
    }

    #[test]
    fn unknown_fields_and_wrong_types_are_input_invalid() {
        let spec = resolve("fs.read_text").unwrap();
        for bad in [
            json!({"path": 1}),
            json!({"path": "a", "x": 1}),
            json!([1]),
            json!({}),
        ] {
            assert_eq!(
                validate("fs.read_text", spec, &bad).unwrap_err().code,
                Code::ToolInputInvalid,
                "{bad}"
            );
        }
    }
}
