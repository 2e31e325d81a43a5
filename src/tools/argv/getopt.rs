//! argv parsing with each program's own option semantics (GNU `getopt_long` or exact names).

use super::refuse;
use super::spec::{ProgramSpec, Takes};
use crate::error::Result;

/// One option occurrence in argv.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The option's canonical name (`--expression`, or `-e` when it has no long name).
    pub name: String,
    /// As written (`--expr`, `-ne`).
    pub written: String,
    pub value: Option<String>,
    pub(super) idx: usize,
}

/// argv after the options were taken out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Parsed {
    pub found: Vec<Found>,
    pub operands: Vec<String>,
}

impl Parsed {
    pub(super) fn has(&self, spec: &ProgramSpec, key: &str) -> bool {
        self.found
            .iter()
            .any(|f| spec.opts.get(f.idx).is_some_and(|o| o.is(key)))
    }
    pub(super) fn values<'a>(
        &'a self,
        spec: &'a ProgramSpec,
        key: &'a str,
    ) -> impl Iterator<Item = &'a str> {
        self.found
            .iter()
            .filter(move |f| spec.opts.get(f.idx).is_some_and(|o| o.is(key)))
            .filter_map(|f| f.value.as_deref())
    }
}

impl ProgramSpec {
    fn long(&self, name: &str) -> Result<usize> {
        if let Some(i) = self
            .opts
            .iter()
            .position(|o| o.longs.iter().any(|l| l == name))
        {
            return Ok(i);
        }
        let mut hits: Vec<usize> = self
            .opts
            .iter()
            .enumerate()
            .filter(|(_, o)| o.longs.iter().any(|l| l.starts_with(name)))
            .map(|(i, _)| i)
            .collect();
        hits.dedup();
        let names = |hits: &[usize]| {
            hits.iter()
                .flat_map(|&i| {
                    self.opts[i]
                        .longs
                        .iter()
                        .filter(|l| l.starts_with(name))
                        .map(|l| format!("--{l}"))
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        match hits.len() {
            0 => Err(refuse(
                &self.name,
                format!("option --{name} is not on the allowlist for {}", self.name),
            )
            .with("option", format!("--{name}"))),
            1 if self.abbrev => Ok(hits[0]),
            1 => {
                let o = &self.opts[hits[0]];
                let why = match &o.deny {
                    Some(d) => format!("; {} {d}", o.name()),
                    None => String::new(),
                };
                Err(refuse(
                    &self.name,
                    format!(
                        "option --{name} abbreviates {}: write long options in full for {}{why}",
                        names(&hits),
                        self.name
                    ),
                )
                .with("option", format!("--{name}")))
            }
            _ => Err(refuse(
                &self.name,
                format!("option --{name} is ambiguous ({})", names(&hits)),
            )
            .with("option", format!("--{name}"))),
        }
    }

    fn short(&self, c: char) -> Result<usize> {
        self.opts
            .iter()
            .position(|o| o.shorts.contains(&c))
            .ok_or_else(|| {
                refuse(
                    &self.name,
                    format!("option -{c} is not on the allowlist for {}", self.name),
                )
                .with("option", format!("-{c}"))
            })
    }

    fn denied(&self, idx: usize, written: &str) -> Result<()> {
        match &self.opts[idx].deny {
            Some(why) => {
                let canon = self.opts[idx].name();
                let shown = if written == canon {
                    canon
                } else {
                    format!("{written} ({canon})")
                };
                Err(refuse(&self.name, format!("{shown} {why}"))
                    .with("option", written.to_string()))
            }
            None => Ok(()),
        }
    }
}

/// Parses argv (without the program name) with the program's option semantics: GNU
/// `getopt_long` with permutation, or exact long names only when the spec says so.
pub fn parse(spec: &ProgramSpec, args: &[String]) -> Result<Parsed> {
    let mut out = Parsed::default();
    let mut i = 0;
    let mut only_operands = false;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if only_operands || a == "-" || !a.starts_with('-') {
            out.operands.push(a.clone());
            continue;
        }
        if a == "--" {
            only_operands = true;
            continue;
        }
        if let Some(body) = a.strip_prefix("--") {
            let (name, inline) = match body.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (body, None),
            };
            let idx = spec.long(name)?;
            spec.denied(idx, a)?;
            let opt = &spec.opts[idx];
            let value = match opt.takes {
                Takes::No => {
                    if inline.is_some() {
                        return Err(refuse(
                            &spec.name,
                            format!("option {} takes no value", opt.name()),
                        ));
                    }
                    None
                }
                Takes::Optional(_) => inline,
                Takes::Required(_) => match inline {
                    Some(v) => Some(v),
                    None => {
                        let v = args.get(i).cloned().ok_or_else(|| {
                            refuse(&spec.name, format!("option {} needs a value", opt.name()))
                        })?;
                        i += 1;
                        Some(v)
                    }
                },
            };
            out.found.push(Found {
                name: opt.name(),
                written: a.clone(),
                value,
                idx,
            });
            continue;
        }
        let body = &a[1..];
        if spec.numeric && body.chars().all(|c| c.is_ascii_digit()) {
            out.found.push(Found {
                name: "-NUM".into(),
                written: a.clone(),
                value: Some(body.to_string()),
                idx: usize::MAX,
            });
            continue;
        }
        for (pos, c) in body.char_indices() {
            let idx = spec.short(c)?;
            spec.denied(idx, &format!("-{c}"))?;
            let opt = &spec.opts[idx];
            let rest = &body[pos + c.len_utf8()..];
            let value = match opt.takes {
                Takes::No => None,
                Takes::Optional(_) => (!rest.is_empty()).then(|| rest.to_string()),
                Takes::Required(_) if !rest.is_empty() => Some(rest.to_string()),
                Takes::Required(_) => {
                    let v = args
                        .get(i)
                        .cloned()
                        .ok_or_else(|| refuse(&spec.name, format!("option -{c} needs a value")))?;
                    i += 1;
                    Some(v)
                }
            };
            let done = value.is_some() || !matches!(opt.takes, Takes::No);
            out.found.push(Found {
                name: opt.name(),
                written: format!("-{c}"),
                value,
                idx,
            });
            if done {
                break;
            }
        }
    }
    Ok(out)
}
