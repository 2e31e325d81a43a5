//! Reports CI systems read: JUnit XML and a self-contained HTML page.

use super::metrics::Metrics;
use super::runner::CaseResult;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Escapes text for XML and HTML (element content and quoted attributes). Characters XML 1.0
/// cannot carry (most C0 controls) become U+FFFD.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\n' | '\t' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

fn case_name(r: &CaseResult, repeat: bool) -> String {
    if repeat {
        format!("{}#{}", r.id, r.repeat)
    } else {
        r.id.clone()
    }
}

/// JUnit XML: one `<testsuite>` per suite, one `<testcase>` per case run; a failed run has a
/// `<failure>`, a case that could not run an `<error>`, a deferred one `<skipped>`.
pub fn junit(results: &[CaseResult], suites: &[String], backend: &str) -> String {
    let repeat = results.iter().any(|r| r.repeat > 0);
    let mut x = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let fails = results.iter().filter(|r| r.status == "fail").count();
    let errors = results.iter().filter(|r| r.status == "error").count();
    let skipped = results.iter().filter(|r| r.status == "deferred").count();
    let time: u64 = results.iter().map(|r| r.latency_ms).sum();
    let _ = writeln!(
        x,
        "<testsuites name=\"bob eval ({})\" tests=\"{}\" failures=\"{fails}\" errors=\"{errors}\" skipped=\"{skipped}\" time=\"{:.3}\">",
        escape(backend),
        results.len(),
        time as f64 / 1000.0
    );
    for s in suites {
        let rs: Vec<&CaseResult> = results.iter().filter(|r| &r.suite == s).collect();
        let f = rs.iter().filter(|r| r.status == "fail").count();
        let e = rs.iter().filter(|r| r.status == "error").count();
        let k = rs.iter().filter(|r| r.status == "deferred").count();
        let t: u64 = rs.iter().map(|r| r.latency_ms).sum();
        let _ = writeln!(
            x,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{f}\" errors=\"{e}\" skipped=\"{k}\" time=\"{:.3}\">",
            escape(s),
            rs.len(),
            t as f64 / 1000.0
        );
        for r in rs {
            let _ = write!(
                x,
                "    <testcase classname=\"bob.eval.{}\" name=\"{}\" time=\"{:.3}\"",
                escape(s),
                escape(&case_name(r, repeat)),
                r.latency_ms as f64 / 1000.0
            );
            let detail = || escape(&r.failures.join("\n"));
            match r.status.as_str() {
                "pass" => x.push_str("/>\n"),
                "deferred" => {
                    let _ = writeln!(
                        x,
                        ">\n      <skipped message=\"deferred (the Spectator test suite): logged, never a failure\">{}</skipped>\n    </testcase>",
                        detail()
                    );
                }
                "error" => {
                    let _ = writeln!(
                        x,
                        ">\n      <error message=\"{}\">{}</error>\n    </testcase>",
                        escape(r.failures.first().map_or("", String::as_str)),
                        detail()
                    );
                }
                _ => {
                    let _ = writeln!(
                        x,
                        ">\n      <failure message=\"{}\">{}</failure>\n      <system-out>{}</system-out>\n    </testcase>",
                        escape(r.failures.first().map_or("", String::as_str)),
                        detail(),
                        escape(&r.output)
                    );
                }
            }
        }
        x.push_str("  </testsuite>\n");
    }
    x.push_str("</testsuites>\n");
    x
}

fn pct(v: Option<f64>) -> String {
    v.map_or("–".into(), |v| format!("{:.1}%", v * 100.0))
}

fn bar(v: Option<f64>, class: &str) -> String {
    let w = v.map_or(0.0, |v| (v * 100.0).clamp(0.0, 100.0));
    format!(
        "<div class=\"bar\"><div class=\"fill {class}\" style=\"width:{w:.1}%\"></div><span>{}</span></div>",
        pct(v)
    )
}

/// The HTML page: the overall figures, one row of bars per suite, and every failing run with
/// its transcript (message, planted history, answer, tool calls, why it failed). Everything
/// from a case or a model is HTML-escaped; the page loads nothing from anywhere.
pub fn html(
    results: &[CaseResult],
    overall: &Metrics,
    suites: &BTreeMap<String, Metrics>,
    order: &[String],
    backend: &str,
    profile: &str,
) -> String {
    let mut h = String::new();
    h.push_str("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>bob eval report</title>\n<style>\nbody{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}\ntable{border-collapse:collapse;margin:1em 0}td,th{padding:4px 8px;border-bottom:1px solid #ddd;text-align:left}\n.bar{position:relative;width:180px;height:18px;background:#eee;border-radius:3px}\n.fill{height:100%;border-radius:3px}.good{background:#4a9}.bad{background:#d65}\n.bar span{position:absolute;left:6px;top:0;font-size:12px}\npre{background:#f6f6f6;padding:8px;white-space:pre-wrap;word-break:break-word;max-height:24em;overflow:auto}\n.zero{color:#2a7}.nonzero{color:#c22;font-weight:bold}\ndetails{margin:0.5em 0;border:1px solid #ddd;padding:4px 8px;border-radius:4px}\n</style></head><body>\n");
    let _ = writeln!(
        h,
        "<h1>bob eval</h1>\n<p>backend <code>{}</code>, profile <code>{}</code>, {} runs: {} passed, {} failed, {} deferred, {} errors.</p>",
        escape(backend),
        escape(profile),
        overall.runs,
        overall.passed,
        overall.failed,
        overall.deferred,
        overall.errors
    );
    h.push_str("<table><tr><th>suite</th><th>runs</th><th>benign utility</th><th>utility under attack</th><th>targeted ASR</th><th>ungranted side effects</th><th>scaffold leaks</th><th>self-grants</th></tr>\n");
    let guard = |n: usize| {
        format!(
            "<td class=\"{}\">{n}</td>",
            if n == 0 { "zero" } else { "nonzero" }
        )
    };
    let row = |h: &mut String, name: &str, m: &Metrics| {
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>{}{}{}</tr>",
            escape(name),
            m.runs,
            bar(m.benign_utility, "good"),
            bar(m.utility_under_attack, "good"),
            bar(m.targeted_asr, "bad"),
            guard(m.ungranted_side_effects),
            guard(m.scaffold_leaks),
            guard(m.self_grants)
        );
    };
    for s in order {
        if let Some(m) = suites.get(s) {
            row(&mut h, s, m);
        }
    }
    row(&mut h, "overall", overall);
    h.push_str("</table>\n");
    h.push_str("<h2>Runs</h2>\n<table><tr><th>case</th><th>suite</th><th>run</th><th>status</th><th>time (s)</th></tr>\n");
    for r in results {
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.3}</td></tr>",
            escape(&r.id),
            escape(&r.suite),
            r.repeat,
            escape(&r.status),
            r.latency_ms as f64 / 1000.0
        );
    }
    h.push_str("</table>\n");
    let failing: Vec<&CaseResult> = results
        .iter()
        .filter(|r| r.status == "fail" || r.status == "error")
        .collect();
    let _ = writeln!(h, "<h2>Failing runs ({})</h2>", failing.len());
    for r in failing {
        let _ = writeln!(
            h,
            "<details><summary><b>{}</b> ({}, run {}): {}</summary>",
            escape(&r.id),
            escape(&r.suite),
            r.repeat,
            escape(r.failures.first().map_or("", String::as_str))
        );
        let _ = writeln!(
            h,
            "<p>Why:</p><pre>{}</pre>",
            escape(&r.failures.join("\n"))
        );
        if !r.history.is_empty() {
            let hist = serde_json::to_string_pretty(&r.history).unwrap_or_default();
            let _ = writeln!(h, "<p>History:</p><pre>{}</pre>", escape(&hist));
        }
        let _ = writeln!(
            h,
            "<p>User:</p><pre>{}</pre><p>Answer (turn {}; nonce <code>{}</code>):</p><pre>{}</pre>",
            escape(&r.message),
            escape(&r.turn_status),
            escape(&r.nonce),
            escape(&r.output)
        );
        if !r.tools.is_empty() {
            let tools = serde_json::to_string_pretty(&r.tools).unwrap_or_default();
            let _ = writeln!(h, "<p>Tool calls:</p><pre>{}</pre>", escape(&tools));
        }
        h.push_str("</details>\n");
    }
    h.push_str("</body></html>\n");
    h
}
