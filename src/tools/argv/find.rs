//! find: its own parser (leading `-H`/`-P`, starting points, then listed primaries).

use super::builtin::{FOLLOWS_OUT, UNVETTED_NAMES};
use super::refuse;
use super::spec::Kind::ReadPath;
use super::values::Ctx;
use crate::error::Result;

pub(super) fn vet_find(args: &[String], ctx: &Ctx) -> Result<()> {
    const NO_ARG: &[&str] = &[
        "-a",
        "-and",
        "-o",
        "-or",
        "-not",
        "!",
        "(",
        ")",
        ",",
        "-true",
        "-false",
        "-prune",
        "-quit",
        "-print",
        "-print0",
        "-ls",
        "-empty",
        "-readable",
        "-writable",
        "-executable",
        "-nouser",
        "-nogroup",
        "-depth",
        "-d",
        "-mount",
        "-xdev",
        "-noleaf",
        "-ignore_readdir_race",
        "-noignore_readdir_race",
        "-daystart",
        "-warn",
        "-nowarn",
        "-help",
        "--help",
        "-version",
        "--version",
    ];
    const TEXT_ARG: &[&str] = &[
        "-name",
        "-iname",
        "-path",
        "-ipath",
        "-wholename",
        "-iwholename",
        "-regex",
        "-iregex",
        "-regextype",
        "-type",
        "-xtype",
        "-size",
        "-mtime",
        "-mmin",
        "-atime",
        "-amin",
        "-ctime",
        "-cmin",
        "-used",
        "-perm",
        "-user",
        "-group",
        "-uid",
        "-gid",
        "-links",
        "-inum",
        "-maxdepth",
        "-mindepth",
        "-lname",
        "-ilname",
        "-fstype",
        "-printf",
        "-context",
    ];
    const PATH_ARG: &[&str] = &["-newer", "-anewer", "-cnewer", "-samefile"];
    const REFUSED: &[(&str, &str)] = &[
        ("-exec", "runs a command"),
        ("-execdir", "runs a command"),
        ("-ok", "runs a command"),
        ("-okdir", "runs a command"),
        ("-delete", "deletes files"),
        ("-fprint", "writes a file"),
        ("-fprint0", "writes a file"),
        ("-fprintf", "writes a file"),
        ("-fls", "writes a file"),
        ("-follow", FOLLOWS_OUT),
        ("-L", FOLLOWS_OUT),
        ("-files0-from", UNVETTED_NAMES),
    ];
    let mut i = 0;
    // Leading options.
    while let Some(a) = args.get(i) {
        match a.as_str() {
            "-H" | "-P" => i += 1,
            "-D" => i += 2,
            s if s.starts_with("-O") && s[2..].chars().all(|c| c.is_ascii_digit()) => i += 1,
            _ => break,
        }
    }
    let refused = |a: &str| REFUSED.iter().find(|(n, _)| *n == a).map(|(_, w)| *w);
    // Starting points.
    while let Some(a) = args.get(i) {
        if a.starts_with('-') || matches!(a.as_str(), "(" | ")" | "!" | ",") {
            break;
        }
        ctx.check("find", "starting point", ReadPath, a)?;
        i += 1;
    }
    // The expression.
    while let Some(a) = args.get(i) {
        let a = a.as_str();
        i += 1;
        if let Some(why) = refused(a) {
            return Err(refuse("find", format!("{a} {why}")).with("option", a.to_string()));
        }
        if NO_ARG.contains(&a) {
            continue;
        }
        let value = |i: usize| {
            args.get(i)
                .ok_or_else(|| refuse("find", format!("{a} needs a value")))
        };
        if TEXT_ARG.contains(&a) {
            value(i)?;
            i += 1;
        } else if PATH_ARG.contains(&a) {
            ctx.check("find", &format!("{a} file"), ReadPath, value(i)?)?;
            i += 1;
        } else if let Some(xy) = a.strip_prefix("-newer")
            && xy.len() == 2
            && xy.chars().all(|c| "aBcmt".contains(c))
        {
            let v = value(i)?;
            if !xy.ends_with('t') {
                ctx.check("find", &format!("{a} file"), ReadPath, v)?;
            }
            i += 1;
        } else {
            return Err(refuse(
                "find",
                format!("{a:?} is not an allowed find primary (starting points come first)"),
            )
            .with("option", a.to_string()));
        }
    }
    Ok(())
}
