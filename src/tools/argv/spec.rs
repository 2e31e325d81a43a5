//! Program specs: the option language, the kinds of values, and compiling a spec.

use serde::{Deserialize, Serialize};

/// What an option value or an operand is, and so how it is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A file or directory the program reads: inside the roots, symlinks resolved.
    ReadPath,
    /// A file the program creates or replaces: inside the roots, not a symlink, not protected.
    WritePath,
    /// A directory the program writes temporary files into: inside the roots, not protected.
    WriteDir,
    /// Colon-separated read paths (`file -m`).
    ReadPathList,
    /// A file of NUL-separated names (`--files0-from`): the file and every name in it are read
    /// paths (read and vetted before the program runs; at most 1 MiB).
    NameList0,
    /// An integer or decimal, optionally signed and with a unit suffix (`-5`, `+3`, `1K`, `50%`).
    Number,
    /// A number of seconds with an optional `s`/`m`/`h`/`d` suffix, or `inf`.
    Duration,
    /// A regular expression or glob.
    Pattern,
    /// A format string.
    Format,
    /// Free text.
    Text,
    /// A keyword (an enumerated value such as `--color=auto`): no `/`, no whitespace.
    Word,
    /// A sed script, checked command by command.
    SedScript,
    /// `+FORMAT` (date's only operand).
    DateFormat,
    /// A git revision or a path: a path-like one must be inside the roots.
    GitArg,
}

impl Kind {
    fn parse(s: &str) -> Option<Kind> {
        Some(match s {
            "read" | "read_path" => Kind::ReadPath,
            "write" | "write_path" => Kind::WritePath,
            "wdir" | "write_dir" => Kind::WriteDir,
            "readlist" | "read_path_list" => Kind::ReadPathList,
            "names0" | "name_list0" => Kind::NameList0,
            "num" | "number" => Kind::Number,
            "dur" | "duration" => Kind::Duration,
            "pat" | "pattern" => Kind::Pattern,
            "fmt" | "format" => Kind::Format,
            "text" => Kind::Text,
            "word" => Kind::Word,
            "sed" | "sed_script" => Kind::SedScript,
            "datefmt" | "date_format" => Kind::DateFormat,
            "git" | "git_arg" => Kind::GitArg,
            _ => return None,
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Takes {
    No,
    Required(Kind),
    Optional(Kind),
}

/// One option (a short letter and/or long names that are the same option).
#[derive(Debug, Clone)]
pub(super) struct Opt {
    pub(super) shorts: Vec<char>,
    pub(super) longs: Vec<String>,
    pub(super) takes: Takes,
    /// Why it is refused, when it is.
    pub(super) deny: Option<String>,
}

impl Opt {
    pub(super) fn name(&self) -> String {
        match (self.longs.first(), self.shorts.first()) {
            (Some(l), _) => format!("--{l}"),
            (None, Some(c)) => format!("-{c}"),
            _ => "?".into(),
        }
    }
    pub(super) fn is(&self, key: &str) -> bool {
        self.longs.iter().any(|l| l == key)
            || (key.chars().count() == 1
                && self.shorts.contains(&key.chars().next().unwrap_or(' ')))
    }
}

/// What one program (or git subcommand) may do.
#[derive(Debug, Clone)]
pub struct ProgramSpec {
    pub(super) name: String,
    pub(super) opts: Vec<Opt>,
    /// Kinds of the operands by position; the last one repeats. Empty: no operands.
    pub(super) operands: Vec<Kind>,
    /// Long options may be abbreviated to a unique prefix (GNU getopt_long).
    pub(super) abbrev: bool,
    /// `-NUM` is an option (head, tail, git log).
    pub(super) numeric: bool,
}

/// Parses the option language shared by the built-in specs and the rules file.
///
/// Whitespace-separated entries; each is `NAMES`, `NAMES=KIND` (required value) or
/// `NAMES?=KIND` (optional value), where `NAMES` is `|`-separated: one character is a short
/// option, longer is a long option (without the dashes). A leading `!` marks the option as
/// refused; `deny` gives the reasons, keyed by any of the option's names.
pub(super) fn compile_opts(
    dsl: &str,
    deny: &[(&str, &str)],
) -> std::result::Result<Vec<Opt>, String> {
    let mut out = Vec::new();
    for tok in dsl.split_whitespace() {
        let (refused, tok) = match tok.strip_prefix('!') {
            Some(t) => (true, t),
            None => (false, tok),
        };
        let (names, takes) = match tok.split_once('=') {
            Some((n, k)) => {
                let kind =
                    Kind::parse(k).ok_or_else(|| format!("unknown kind {k:?} in {tok:?}"))?;
                match n.strip_suffix('?') {
                    Some(n) => (n, Takes::Optional(kind)),
                    None => (n, Takes::Required(kind)),
                }
            }
            None => (tok, Takes::No),
        };
        let mut opt = Opt {
            shorts: Vec::new(),
            longs: Vec::new(),
            takes,
            deny: None,
        };
        for n in names.split('|') {
            let mut cs = n.chars();
            match (cs.next(), cs.next()) {
                (Some(c), None) => opt.shorts.push(c),
                (Some(_), Some(_)) => opt.longs.push(n.to_string()),
                _ => return Err(format!("empty option name in {tok:?}")),
            }
        }
        if refused {
            opt.deny = Some("is not allowed".into());
        }
        for (k, why) in deny {
            if opt.is(k) {
                opt.deny = Some(why.to_string());
            }
        }
        out.push(opt);
    }
    Ok(out)
}

pub(super) fn spec(
    name: &str,
    dsl: &str,
    deny: &[(&str, &str)],
    operands: &[Kind],
    abbrev: bool,
    numeric: bool,
) -> ProgramSpec {
    let opts = match compile_opts(dsl, deny) {
        Ok(o) => o,
        Err(e) => panic!("built-in spec {name}: {e}"),
    };
    ProgramSpec {
        name: name.to_string(),
        opts,
        operands: operands.to_vec(),
        abbrev,
        numeric,
    }
}

/// Programs that take no options at all: every argument is text.
pub(super) const TEXT_ONLY: &[&str] = &["echo", "printf", "true", "false"];
