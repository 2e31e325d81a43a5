//! Run bundles (the Openclawssy contracts): `runs/<run_id>/`, written for every run, whoever ran it (`bob
//! turn`, the scheduler's child `bob turn`, the server's workers).
//!
//! ```text
//! runs/run_3f…/request.json       what was asked: the run request (`crate::contracts::TurnRequest`)
//! runs/run_3f…/events.jsonl       the run's audit events (the run and audit event contracts), as chained in the audit log (same seq)
//! runs/run_3f…/tool_results.json  [{tool, tool_call_id, summary, output, error}] from the tool.result events
//! runs/run_3f…/record.json        the turn record (renamed last: while the machine runs, its presence means the bundle is whole)
//! ```
//!
//! The request and the record are redacted with the home's redactor; the events are copied
//! as the audit log holds them (the audit writer redacted them before hashing them): `bob turn`
//! hands over the events it kept as it wrote them ([`write_with_events`]), other writers' runs
//! are read back from the log ([`audit_events`]).
//!
//! # Durability
//!
//! A bundle is a copy: the turn record is durable in `turns.jsonl` and the events in the audit
//! log (both fsynced) before the bundle is written. So its files are replaced by a rename each
//! but not fsynced ([`store::write_files_unsynced`]; this saves five fsyncs per turn). A power
//! loss can leave a bundle missing, or with a file empty or torn. Readers treat that as
//! follows: [`record`] (and so `bob runs list` and the crash recovery of `bob serve`, which
//! then rewrites the bundle from `turns.jsonl`) reads a malformed `record.json` as no bundle;
//! [`show`] (`bob runs show`) reports a bundle with a malformed file as a `conflict` naming the
//! file and where the durable copies are.
//!
//! # The shared store
//!
//! With `database.url` set the turn records live in the database ([`crate::turn_records`]), so
//! a run another node ran has a record here but no bundle: [`list`] lists it from its latest
//! record and [`show`] shows that record with no request, events or tool results (`path` is
//! `null`; those stay on the node that ran it).

use crate::contracts::{RunBundle, RunSummary, ToolResultLine, TurnRecord, TurnRequest};
use crate::error::{Code, Error, Result};
use crate::home::Home;
use crate::ids;
use crate::store;
use serde_json::Value;
use std::path::PathBuf;
use std::sync::Arc;

/// The bundle directory of a run (`invalid.request` for an id that is not a safe file name).
pub fn dir(home: &Home, run_id: &str) -> Result<PathBuf> {
    Ok(home.runs_dir().join(ids::check("run_id", run_id)?))
}

/// The audit events of `run_id` (agent `agent_id`), from the audit file of the day the run
/// started (`started`, RFC 3339) and the next day's, in log order (with the shared store, from
/// the database, whichever node wrote them).
///
/// A day's file holds every run of the agent, so it is read from the end, in growing windows,
/// back to this run's `run.created` line: the cost follows the run's own span, not the day's
/// traffic.
pub fn audit_events(
    home: &Home,
    agent_id: &str,
    run_id: &str,
    started: &str,
) -> Result<Vec<Value>> {
    // With the shared store, the run's events are rows of its agent's chain there.
    if let Some(db) = crate::db::audit_connection()? {
        return crate::audit::pg::run_events(db, agent_id, run_id, None);
    }
    let dir = home.audit_dir(agent_id)?;
    let mut out = Vec::new();
    let Ok(day) = crate::clock::parse_rfc3339(started) else {
        return Ok(out);
    };
    for d in [day, day + chrono::Duration::days(1)] {
        let path = dir.join(format!("{}.jsonl", d.format("%Y-%m-%d")));
        out.extend(run_tail(&path, run_id)?);
    }
    Ok(out)
}

fn run_tail(path: &std::path::Path, run_id: &str) -> Result<Vec<Value>> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io(path, e)),
    };
    let len = f.metadata().map_err(|e| Error::io(path, e))?.len();
    let id_field = format!("\"run_id\":\"{run_id}\"");
    let mut window = 64 * 1024u64;
    loop {
        let start = len.saturating_sub(window);
        let mut buf = Vec::new();
        f.seek(SeekFrom::Start(start))
            .and_then(|_| f.read_to_end(&mut buf))
            .map_err(|e| Error::io(path, e))?;
        // Past the first (partial) line unless this is the whole file.
        let body = if start == 0 {
            &buf[..]
        } else {
            match memchr::memchr(b'\n', &buf) {
                Some(i) => &buf[i + 1..],
                None => &[][..],
            }
        };
        let found = start == 0
            || body.split(|b| *b == b'\n').any(|l| {
                let l = String::from_utf8_lossy(l);
                l.contains(&id_field) && l.contains("\"event_type\":\"run.created\"")
            });
        if found {
            return Ok(store::parse_jsonl(body)
                .records
                .into_iter()
                .map(|(_, v)| v)
                .filter(|ev| ev.get("run_id").and_then(Value::as_str) == Some(run_id))
                .collect());
        }
        window = window.saturating_mul(4);
    }
}

/// Openclawssy `trace.tool_execution_results` from a run's audit events.
pub fn tool_results(events: &[Value]) -> Vec<ToolResultLine> {
    events
        .iter()
        .filter(|e| e["event_type"] == "tool.result")
        .map(|e| {
            let p = &e["payload"];
            let tool = p["tool"].as_str().unwrap_or_default();
            let error = match &p["error"] {
                Value::Null => String::new(),
                err => format!(
                    "{}: {}",
                    err["code"].as_str().unwrap_or("error"),
                    err["message"].as_str().unwrap_or_default()
                ),
            };
            let output = match &p["output"] {
                Value::Null => String::new(),
                Value::String(s) => s.clone(),
                o => o.to_string(),
            };
            ToolResultLine {
                tool: tool.to_string(),
                tool_call_id: p["request_id"].clone(),
                summary: summary(tool, &p["output"], &error),
                output,
                error,
            }
        })
        .collect()
}

/// A short, display-friendly line for one tool result.
pub fn summary(tool: &str, output: &Value, error: &str) -> String {
    if !error.is_empty() {
        return cut(&format!("{tool} failed: {error}"), 160);
    }
    let count = |k: &str| output.get(k).and_then(Value::as_array).map(Vec::len);
    let path = output.get("path").and_then(Value::as_str);
    let s = match tool {
        "fs.list_dir" => format!(
            "listed {} entr{} in {}",
            count("entries").unwrap_or(0),
            if count("entries") == Some(1) {
                "y"
            } else {
                "ies"
            },
            path.unwrap_or(".")
        ),
        "fs.read_text" | "fs.read" => {
            let n = output
                .get("content")
                .and_then(Value::as_str)
                .map_or(0, |c| c.lines().count());
            format!("read {n} line(s) from {}", path.unwrap_or("?"))
        }
        "fs.write_text" | "fs.write" => match output.get("bytes").and_then(Value::as_u64) {
            Some(b) => format!("wrote {b} byte(s) to {}", path.unwrap_or("?")),
            None => format!("wrote {}", path.unwrap_or("?")),
        },
        "shell.exec" => format!(
            "exit {}",
            output
                .get("exit_code")
                .map_or_else(|| "?".into(), Value::to_string)
        ),
        "http.get" => format!(
            "HTTP {}",
            output
                .get("status")
                .map_or_else(|| "?".into(), Value::to_string)
        ),
        _ => format!("{tool} ok"),
    };
    cut(&s, 160)
}

fn cut(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        return s.to_string();
    }
    let mut t: String = s.chars().take(n - 1).collect();
    t.push('…');
    t
}

/// Writes the bundle of a finished run; `request` is what was asked. Returns its directory.
/// The run's events are read back from the audit log ([`audit_events`]); a caller that kept
/// them as they were written passes them to [`write_with_events`] instead.
pub fn write(home: &Home, request: &TurnRequest, record: &TurnRecord) -> Result<PathBuf> {
    write_with_events(home, request, record, None)
}

/// [`write`], with the run's audit events as written (chain fields included, in log order) when
/// the caller kept them ([`crate::audit::Audit::keep_written`]): `bob turn` does, so the bundle
/// costs no read of the day's audit log, whose size grows with the day's traffic.
pub fn write_with_events(
    home: &Home,
    request: &TurnRequest,
    record: &TurnRecord,
    events: Option<Vec<Value>>,
) -> Result<PathBuf> {
    let dir = dir(home, &record.run_id)?;
    // The request and the record are redacted here (known secrets by exact match, the rules),
    // with the home's cached redactor (reloaded when a rule or secret changes). The events
    // were redacted by the audit writer, with the same redactor, before they were hashed, and
    // are copied as the log holds them; the tool results are cut from their payloads.
    let redactor = crate::redact::for_home(home)?;
    let mut request = serde_json::to_value(request).map_err(|e| Error::internal(e.to_string()))?;
    redactor.redact_value(&mut request, "request");
    let mut record = serde_json::to_value(record).map_err(|e| Error::internal(e.to_string()))?;
    redactor.redact_value(&mut record, "record");
    let events = match events {
        Some(events) => events,
        None => {
            let (agent, run, ts) = (&record["agent_id"], &record["run_id"], &record["ts"]);
            audit_events(
                home,
                agent.as_str().unwrap_or_default(),
                run.as_str().unwrap_or_default(),
                ts.as_str().unwrap_or_default(),
            )?
        }
    };
    // The storage layer would redact everything once more with the process home's redactor:
    // when that is this home's (every CLI command), that pass could mask nothing new.
    let same = Arc::ptr_eq(&redactor, &crate::redact::for_storage()?);
    let pretty = |v: &Value| -> Result<Vec<u8>> {
        if !same {
            return store::json_bytes(v);
        }
        let mut b = serde_json::to_vec_pretty(v).map_err(|e| Error::internal(e.to_string()))?;
        b.push(b'\n');
        Ok(b)
    };
    let mut lines = Vec::new();
    for event in &events {
        if same {
            lines.extend_from_slice(&store::jsonl_line_verbatim(event)?);
        } else {
            lines.extend_from_slice(store::jsonl_line(event)?.as_bytes());
        }
    }
    // The bundle repeats what is durable already (the turn record in turns.jsonl, the events in
    // the audit log), so it is written without fsyncs (see the module docs): each file by a
    // rename, record.json last (its presence means the bundle is whole).
    store::write_files_unsynced(
        &dir,
        &[
            ("request.json", pretty(&request)?),
            ("events.jsonl", lines),
            (
                "tool_results.json",
                pretty(
                    &serde_json::to_value(tool_results(&events))
                        .map_err(|e| Error::internal(e.to_string()))?,
                )?,
            ),
            ("record.json", pretty(&record)?),
        ],
    )?;
    Ok(dir)
}

/// The turn record of a run's bundle, if the bundle is whole. A `record.json` that does not
/// parse (torn by a power loss, see the module docs) reads as no bundle.
pub fn record(home: &Home, run_id: &str) -> Result<Option<TurnRecord>> {
    match store::read_json(&dir(home, run_id)?.join("record.json")) {
        Err(e) if e.code == Code::InvalidRequest => Ok(None),
        other => other,
    }
}

/// A file of a bundle, `conflict` when it does not parse (torn by a power loss).
fn bundle_json(dir: &std::path::Path, run_id: &str, name: &str) -> Result<Option<Value>> {
    store::read_json(&dir.join(name)).map_err(|e| {
        if e.code != Code::InvalidRequest {
            return e;
        }
        Error::conflict(format!(
            "run bundle {run_id:?} is torn ({name} does not parse; a crash while it was \
             written?): its turn record is in turns.jsonl and its events in the audit log"
        ))
        .with("run_id", run_id)
        .with("path", dir.join(name).display().to_string())
    })
}

/// One bundle, read back: `{run_id, path, request, record, events, tool_results}`.
pub fn show(home: &Home, run_id: &str) -> Result<RunBundle> {
    let dir = dir(home, run_id)?;
    let Some(record) = bundle_json(&dir, run_id, "record.json")? else {
        // On the shared store a run another node ran has its record here but no bundle: its
        // request, events and tool results stay on that node.
        if let Some(record) = crate::turn_records::log(home)?.latest_of_run(run_id)? {
            return Ok(RunBundle {
                run_id: run_id.to_string(),
                path: None,
                request: None,
                record: serde_json::to_value(record).map_err(|e| Error::internal(e.to_string()))?,
                events: Vec::new(),
                tool_results: Value::Array(Vec::new()),
            });
        }
        return Err(Error::not_found(format!("no run bundle {run_id:?}")).with("run_id", run_id));
    };
    let request = bundle_json(&dir, run_id, "request.json")?;
    let log = store::read_jsonl(&dir.join("events.jsonl"))?;
    if let Some(bad) = log.bad.first() {
        return Err(Error::conflict(format!(
            "run bundle {run_id:?} is torn (events.jsonl line {} is {}; a crash while it was \
             written?): its events are in the audit log",
            bad.line, bad.kind
        ))
        .with("run_id", run_id)
        .with("path", dir.join("events.jsonl").display().to_string()));
    }
    let events: Vec<Value> = log.records.into_iter().map(|(_, v)| v).collect();
    let tools = bundle_json(&dir, run_id, "tool_results.json")?;
    Ok(RunBundle {
        run_id: run_id.to_string(),
        path: Some(dir.display().to_string()),
        request,
        record,
        events,
        tool_results: tools.unwrap_or_else(|| Value::Array(Vec::new())),
    })
}

/// Summaries of every whole bundle (and, on the shared store, of the runs other nodes ran),
/// newest first: `{run_id, session_id, agent_id, status, ts,
/// tools, output_chars}`.
pub fn list(home: &Home) -> Result<Vec<RunSummary>> {
    let mut out = bundled(home)?;
    // On the shared store, the runs other nodes ran (no bundle here) are listed from their
    // records.
    if let Some(records) = crate::turn_records::log(home)?.latest_of_every_run()? {
        let bundled: std::collections::HashSet<String> =
            out.iter().map(|s| s.run_id.clone()).collect();
        out.extend(
            records
                .iter()
                .filter(|r| !bundled.contains(&r.run_id))
                .map(summary_of),
        );
    }
    out.sort_by(|a, b| b.ts.cmp(&a.ts).then_with(|| b.run_id.cmp(&a.run_id)));
    Ok(out)
}

/// The summaries of the whole bundles under the home, in no order.
fn bundled(home: &Home) -> Result<Vec<RunSummary>> {
    let dir = home.runs_dir();
    let entries = match std::fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io(&dir, e)),
    };
    let mut out = Vec::new();
    for e in entries {
        let e = e.map_err(|err| Error::io(&dir, err))?;
        let name = e.file_name().to_string_lossy().into_owned();
        if !ids::is_valid(&name) {
            continue;
        }
        let Ok(Some(r)) = record(home, &name) else {
            continue;
        };
        out.push(summary_of(&r));
    }
    Ok(out)
}

fn summary_of(r: &TurnRecord) -> RunSummary {
    RunSummary {
        run_id: r.run_id.clone(),
        session_id: r.session_id.clone(),
        agent_id: r.agent_id.clone(),
        status: r.status.clone(),
        ts: r.ts.clone(),
        tools: r.tools.len() as u64,
        output_chars: r.output.chars().count() as u64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn line(run: &str, ty: &str, n: usize) -> String {
        format!(
            "{}\n",
            json!({"event_id": format!("e{n}"), "event_type": ty, "run_id": run, "seq": n,
                   "payload": {"pad": "x".repeat(80)}})
        )
    }

    #[test]
    fn the_tail_scan_finds_exactly_the_runs_events_however_far_back_it_started() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("day.jsonl");
        let mut text = String::new();
        let mut n = 0;
        let mut push = |text: &mut String, run: &str, ty: &str| {
            text.push_str(&line(run, ty, n));
            n += 1;
        };
        // Our run starts first, then 3,000 events of other runs (several windows) interleave.
        push(&mut text, "run_me", "run.created");
        for i in 0..3000 {
            push(&mut text, &format!("run_o{}", i % 7), "tool.call");
            if i % 1000 == 0 {
                push(&mut text, "run_me", "tool.result");
            }
        }
        push(&mut text, "run_me", "run.completed");
        std::fs::write(&path, &text).unwrap();
        assert!(text.len() > 4 * 64 * 1024);
        let got = run_tail(&path, "run_me").unwrap();
        let types: Vec<&str> = got
            .iter()
            .map(|e| e["event_type"].as_str().unwrap())
            .collect();
        assert_eq!(
            types,
            [
                "run.created",
                "tool.result",
                "tool.result",
                "tool.result",
                "run.completed"
            ]
        );
        // With no run.created line the whole file is read; an absent run reads as empty.
        assert_eq!(run_tail(&path, "run_o3").unwrap().len(), 3000 / 7 + 1);
        assert!(run_tail(&path, "run_absent").unwrap().is_empty());
        assert!(
            run_tail(&dir.path().join("none.jsonl"), "x")
                .unwrap()
                .is_empty()
        );
    }
}
