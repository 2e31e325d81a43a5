use super::builtin::builtin_specs;
use super::values::is_number;
use super::*;

fn v(s: &[&str]) -> Vec<String> {
    s.iter().map(|x| x.to_string()).collect()
}

fn p(prog: &str, args: &[&str]) -> Result<Parsed> {
    parse(builtin_spec(prog).unwrap(), &v(args))
}

fn names(r: &Parsed) -> Vec<(String, Option<String>)> {
    r.found
        .iter()
        .map(|f| (f.name.clone(), f.value.clone()))
        .collect()
}

fn syntax(argv: &[&str]) -> Result<Vetted> {
    let ctx = Ctx {
        sandbox: None,
        base: PathBuf::new(),
    };
    vet_with(&v(argv), &ctx, &ShellRules::builtin().unwrap())
}

#[test]
fn builtin_rules_load_and_decide() {
    let r = ShellRules::builtin().unwrap();
    assert!(r.decide(&v(&["ls", "-la"])).is_ok());
    assert!(r.decide(&v(&["git", "push"])).is_err());
    assert!(r.decide(&v(&["git", "branch", "-D", "x"])).is_err());
}

#[test]
fn rule_examples_are_checked() {
    let bad = r#"{"rules":[{"action":"allow","prefix":["ls"],"match":[["cat"]]}]}"#;
    assert_eq!(
        ShellRules::parse(bad, "t").unwrap_err().code,
        Code::InvalidRequest
    );
    let bad = r#"{"rules":[{"action":"allow","prefix":["ls"],"match":[["ls"]],"not_match":[["ls","-l"]]}]}"#;
    assert!(ShellRules::parse(bad, "t").is_err());
    let bad = r#"{"rules":[{"action":"allow","prefix":["ls"]}]}"#;
    assert!(ShellRules::parse(bad, "t").is_err());
    // An allow example the spec refuses refuses the file.
    let bad = r#"{"rules":[{"action":"allow","prefix":["sort"],"match":[["sort","--compress-program=sh"]]}]}"#;
    assert!(
        ShellRules::parse(bad, "t")
            .unwrap_err()
            .message
            .contains("spec")
    );
    // A file spec for a program without a built-in one, checked against its examples.
    let ok = r#"{"rules":[{"action":"allow","prefix":["printenv"],"match":[["printenv","PATH"]],"spec":{"operands":["text"]}}]}"#;
    assert!(ShellRules::parse(ok, "t").is_ok());
    let bad = r#"{"rules":[{"action":"allow","prefix":["printenv"],"match":[["printenv","-0"]],"spec":{"operands":["text"]}}]}"#;
    assert!(ShellRules::parse(bad, "t").is_err());
    let bad = r#"{"rules":[{"action":"allow","prefix":["sed"],"match":[["sed","p"]],"spec":{"operands":["text"]}}]}"#;
    assert!(
        ShellRules::parse(bad, "t")
            .unwrap_err()
            .message
            .contains("built-in")
    );
}

#[test]
fn getopt_long_abbreviations_resolve_like_gnu() {
    let r = p("sed", &["--expr=1p", "f"]).unwrap();
    assert_eq!(names(&r), vec![("--expression".into(), Some("1p".into()))]);
    let r = p("sed", &["--expr", "1p", "f"]).unwrap();
    assert_eq!(names(&r), vec![("--expression".into(), Some("1p".into()))]);
    assert_eq!(r.operands, v(&["f"]));
    // Aliases of one option are not ambiguous.
    assert_eq!(names(&p("sed", &["--qui"]).unwrap())[0].0, "--quiet");
    assert_eq!(names(&p("sed", &["--sil"]).unwrap())[0].0, "--quiet");
    // Ambiguous: --s is --sandbox, --separate or --silent.
    assert!(
        p("sed", &["--s"])
            .unwrap_err()
            .message
            .contains("ambiguous")
    );
    // Refused options are resolved by their abbreviations too.
    for a in [
        "--in-pl",
        "--in-place=.bak",
        "--i",
        "--fil=x",
        "--file",
        "-i",
        "-f",
        "-ni",
        "-nf",
        "-s",
        "-if",
    ] {
        let r = p("sed", &[a]);
        if a == "-s" {
            assert!(r.is_ok());
            continue;
        }
        assert_eq!(r.unwrap_err().code, Code::PolicyDenied, "{a}");
    }
    assert!(p("sort", &["--compress=sh"]).is_err());
    assert!(p("sort", &["--compress-prog", "sh"]).is_err());
    assert!(p("sort", &["--co=sh"]).is_err()); // --compress-program is sort's only --co…
    assert!(p("date", &["--se=2020-01-01"]).is_err());
    assert_eq!(names(&p("date", &["--ut"]).unwrap())[0].0, "--utc");
    // Unknown long option.
    assert!(
        p("cat", &["--frobnicate"])
            .unwrap_err()
            .message
            .contains("allowlist")
    );
    // A flag given a value.
    assert!(p("cat", &["--number=3"]).is_err());
    // Exact match beats a longer option sharing the prefix.
    assert_eq!(names(&p("grep", &["--color"]).unwrap())[0].0, "--color");
}

#[test]
fn short_options_cluster_and_take_attached_values() {
    let r = p("sed", &["-ne", "p", "f"]).unwrap();
    assert_eq!(
        names(&r),
        vec![
            ("--quiet".into(), None),
            ("--expression".into(), Some("p".into()))
        ]
    );
    let r = p("sed", &["-n", "-e", "p", "-ne", "1e x", "f"]).unwrap();
    assert_eq!(r.found.len(), 4);
    assert_eq!(r.found[3].value.as_deref(), Some("1e x"));
    let r = p("head", &["-n5", "f"]).unwrap();
    assert_eq!(names(&r), vec![("--lines".into(), Some("5".into()))]);
    let r = p("head", &["-5", "f"]).unwrap();
    assert_eq!(names(&r), vec![("-NUM".into(), Some("5".into()))]);
    let r = p("date", &["-f/etc/shadow"]).unwrap();
    assert_eq!(
        names(&r),
        vec![("--file".into(), Some("/etc/shadow".into()))]
    );
    let r = p("grep", &["-rnf/etc/hostname", "x"]).unwrap();
    assert_eq!(r.found[2].value.as_deref(), Some("/etc/hostname"));
    // Optional short values are attached only.
    let r = p("date", &["-I", "+%s"]).unwrap();
    assert_eq!(names(&r), vec![("--iso-8601".into(), None)]);
    assert_eq!(r.operands, v(&["+%s"]));
    let r = p("date", &["-Iseconds"]).unwrap();
    assert_eq!(r.found[0].value.as_deref(), Some("seconds"));
    // A value-taking option at the end of a cluster takes the next argument.
    assert!(p("sort", &["-o"]).is_err());
    // Unknown short option inside a cluster.
    assert!(p("ls", &["-laL"]).is_err());
}

#[test]
fn double_dash_ends_options_and_options_permute() {
    let r = p("cat", &["a", "-n", "--", "-v", "--number"]).unwrap();
    assert_eq!(names(&r), vec![("--number".into(), None)]);
    assert_eq!(r.operands, v(&["a", "-v", "--number"]));
    let r = p("cat", &["-", "x"]).unwrap();
    assert_eq!(r.operands, v(&["-", "x"]));
    // Options after operands are still options (and still checked).
    assert!(p("sort", &["in.txt", "--compress-program=sh"]).is_err());
}

#[test]
fn git_takes_exact_long_names_only() {
    let s = builtin_spec("git branch").unwrap();
    for a in [
        &["--del", "x"][..],
        &["--delete", "--force", "x"],
        &["-q", "-D", "x"],
        &["-qD", "x"],
        &["-m", "a", "b"],
        &["--mo"],
        &["--edit-description"],
        &["-u", "origin/x"],
        &["--set-upstream-to=x"],
        &["--unset-upstream"],
        &["-c", "a", "b"],
        &["-f"],
    ] {
        let e = parse(s, &v(a)).unwrap_err();
        assert_eq!(e.code, Code::PolicyDenied, "{a:?}");
    }
    let e = parse(s, &v(&["--del"])).unwrap_err();
    assert!(
        e.message.contains("--delete") && e.message.contains("deletes"),
        "{}",
        e.message
    );
    assert!(parse(s, &v(&["--list", "-v", "ma*"])).is_ok());
    assert!(syntax(&["git", "branch", "x"]).is_err());
    assert!(syntax(&["git", "branch", "--list", "x"]).is_ok());
    assert!(syntax(&["git", "branch"]).is_ok());
    assert!(syntax(&["git", "log", "--oneline", "-5"]).is_ok());
    assert!(syntax(&["git", "log", "--outp=x"]).is_err());
    assert!(syntax(&["git", "log", "--output=x"]).is_err());
    assert!(syntax(&["git", "diff", "--ext-diff"]).is_err());
    assert!(syntax(&["git", "diff", "--no-index", "a", "b"]).is_err());
    assert!(syntax(&["git", "-c", "core.pager=id", "log"]).is_err());
    assert!(syntax(&["git", "--config-env=x=y", "status"]).is_err());
    assert!(syntax(&["git", "--exec-path=/tmp", "status"]).is_err());
    assert!(syntax(&["git", "commit"]).is_err());
    let out = syntax(&["git", "diff", "HEAD~1"]).unwrap();
    assert_eq!(
        out.argv,
        v(&[
            "git",
            "--no-pager",
            "diff",
            "--no-ext-diff",
            "--no-textconv",
            "HEAD~1"
        ])
    );
    assert!(
        out.env
            .iter()
            .any(|(k, v)| k.starts_with("GIT_CONFIG_KEY_") && v == "core.fsmonitor")
    );
}

#[test]
fn sed_scripts() {
    for ok in [
        "1,5p",
        "s/a/b/g",
        "/x/!d",
        "$!N;P;D",
        "1{p;p}",
        "y/abc/xyz/",
        ":a;N;ba",
        "1a hello; e not a command",
        "s|a|b|2p",
        "\\%re%p",
        "0,/x/d",
        "1~2p",
        "#n\np",
        "l 5",
        "q5",
    ] {
        assert!(
            sed_script_check(ok).is_ok(),
            "{ok}: {:?}",
            sed_script_check(ok)
        );
    }
    for bad in [
        "s/a/b/e",
        "s|a|b|w out",
        "1e id",
        "/x/w out",
        "e",
        "1{e touch X\n}",
        "\\%re%e id",
        "p;e id",
        "1!e id",
        "r /etc/passwd",
        "R x",
        "W out",
        "s/a/b/;1e id",
        "1a x\n2e id",
        "bx}e id",
        "1{bx};e id",
        ":a e id",
        "y/a/b/;e",
        "$e",
        "/a/,/b/{\n  e id\n}",
        "s/x/y/ge",
        "k",
    ] {
        assert!(sed_script_check(bad).is_err(), "{bad}");
    }
    assert!(syntax(&["sed", "--expr=1e touch X", "f"]).is_err());
    assert!(syntax(&["sed", "-n", "-e", "p", "-ne", "1e touch X", "f"]).is_err());
    // Pieces are joined by newlines, as sed joins them.
    assert!(syntax(&["sed", "-e", "1{", "-e", "e id", "-e", "}"]).is_err());
    let out = syntax(&["sed", "-n", "1,5p", "f"]).unwrap();
    assert_eq!(out.argv, v(&["sed", "--sandbox", "-n", "1,5p", "f"]));
}

#[test]
fn date_prints_only() {
    assert!(syntax(&["date", "-u", "+%Y"]).is_ok());
    assert!(syntax(&["date", "-d", "2020-01-01", "--rfc-3339=seconds"]).is_ok());
    for bad in [
        &["date", "-s", "2020-01-01"][..],
        &["date", "--set=x"],
        &["date", "--s", "x"],
        &["date", "01010000"],
        &["date", "010100002020"],
        &["date", "+%s", "+%Y"],
        &["date", "--", "0101"],
    ] {
        assert!(syntax(bad).is_err(), "{bad:?}");
    }
}

#[test]
fn lexical_paths_without_a_sandbox() {
    assert!(syntax(&["cat", "/etc/shadow"]).is_err());
    assert!(syntax(&["date", "-f/etc/shadow"]).is_err());
    assert!(syntax(&["grep", "-f/etc/hostname", "x"]).is_err());
    assert!(syntax(&["cat", "../x"]).is_err());
    assert!(syntax(&["cat", "a/../b"]).is_ok());
    assert!(
        syntax(&[
            "sort",
            "-S",
            "1K",
            "-T",
            ".",
            "--compress-program=sh",
            "cmds.txt"
        ])
        .is_err()
    );
    assert!(syntax(&["find", ".", "-name", "*.rs", "-exec", "id", ";"]).is_err());
    assert!(syntax(&["find", "-L", "."]).is_err());
    assert!(syntax(&["find", ".", "-newer", "/etc/passwd"]).is_err());
    assert!(syntax(&["find", ".", "-type", "f", "-name", "*.rs"]).is_ok());
    assert!(syntax(&["rg", "--pre=x", "y"]).is_err());
    assert!(syntax(&["rg", "-z", "y"]).is_err());
    assert!(syntax(&["rg", "-n", "fn main"]).is_ok());
    assert!(syntax(&["echo", "/etc/passwd"]).is_ok());
    assert!(syntax(&["pwd", "x"]).is_err());
    assert!(syntax(&["sleep", "1"]).is_ok());
    assert!(syntax(&["sleep", "x"]).is_err());
    let out = syntax(&["diff", "-r", "a", "b"]).unwrap();
    assert_eq!(out.argv, v(&["diff", "--no-dereference", "-r", "a", "b"]));
}

/// Every prefix of a refused long option (of every built-in spec) is refused, whether it
/// resolves to it, is ambiguous, or is an abbreviation a spec does not accept; and so is
/// every cluster that contains a refused short option.
#[test]
fn every_abbreviation_of_a_refused_option_is_refused() {
    let mut checked = 0;
    for spec in builtin_specs().values() {
        for o in spec.opts.iter().filter(|o| o.deny.is_some()) {
            for l in &o.longs {
                for end in 1..=l.len() {
                    let a = format!("--{}", &l[..end]);
                    // An exact name of another option wins (`--text` vs `--textconv`).
                    let exact = spec
                        .opts
                        .iter()
                        .any(|x| x.longs.iter().any(|n| *n == l[..end]));
                    if exact && o.longs.iter().all(|n| *n != l[..end]) {
                        continue;
                    }
                    for args in [
                        vec![a.clone(), "x".into()],
                        vec![format!("{a}=x")],
                        vec!["-q".into(), a.clone()],
                    ] {
                        let r = parse(spec, &args);
                        assert!(r.is_err(), "{} {args:?} -> {r:?}", spec.name);
                        checked += 1;
                    }
                }
            }
            for c in &o.shorts {
                let allowed: Vec<char> = spec
                    .opts
                    .iter()
                    .filter(|o| o.deny.is_none() && o.takes == Takes::No)
                    .flat_map(|o| o.shorts.iter().copied())
                    .take(2)
                    .collect();
                let cluster: String = allowed.iter().chain(std::iter::once(c)).collect();
                let r = parse(spec, &v(&[&format!("-{cluster}"), "x"]));
                assert!(r.is_err(), "{} -{cluster} -> {r:?}", spec.name);
                checked += 1;
            }
        }
    }
    eprintln!("refused-option abbreviation and cluster cases: {checked}");
    assert!(checked > 500, "{checked}");
}

proptest::proptest! {
    /// The parser never panics, and whatever it accepts is in the spec and not refused.
    #[test]
    fn parse_accepts_only_allowed_options(
        prog in proptest::sample::select(vec!["sed", "sort", "date", "grep", "ls", "git branch", "git log", "rg", "head"]),
        args in proptest::collection::vec("(-{0,2}[a-zA-Z0-9=./%-]{0,8})", 0..6),
    ) {
        let spec = builtin_spec(prog).unwrap();
        if let Ok(parsed) = parse(spec, &args) {
            for f in &parsed.found {
                if f.idx == usize::MAX {
                    proptest::prop_assert!(spec.numeric);
                    continue;
                }
                proptest::prop_assert!(spec.opts[f.idx].deny.is_none(), "{:?}", f);
            }
            for o in &parsed.operands {
                proptest::prop_assert!(args.contains(o));
            }
        }
    }
}

unsafe extern "C" {
    static mut optind: libc::c_int;
    static mut opterr: libc::c_int;
    static mut optarg: *mut libc::c_char;
}

type Resolved = (Vec<(usize, Option<String>)>, Vec<String>);

/// glibc's own `getopt_long` over the same option table: the options it reported (by spec
/// index) and the operands, or `None` when it reported an error.
fn glibc(spec: &ProgramSpec, args: &[String]) -> Option<Resolved> {
    use std::ffi::{CStr, CString};
    let mut optstring = String::new();
    let mut by_char = std::collections::HashMap::new();
    let has = |t: Takes| match t {
        Takes::No => 0,
        Takes::Required(_) => 1,
        Takes::Optional(_) => 2,
    };
    for (i, o) in spec.opts.iter().enumerate() {
        for &c in &o.shorts {
            optstring.push(c);
            optstring.push_str(["", ":", "::"][has(o.takes) as usize]);
            by_char.insert(c as libc::c_int, i);
        }
    }
    let optstring = CString::new(optstring).unwrap();
    let names: Vec<(CString, usize)> = spec
        .opts
        .iter()
        .enumerate()
        .flat_map(|(i, o)| {
            o.longs
                .iter()
                .map(move |l| (CString::new(l.as_str()).unwrap(), i))
        })
        .collect();
    let mut longs: Vec<libc::option> = names
        .iter()
        .map(|(n, i)| libc::option {
            name: n.as_ptr(),
            has_arg: has(spec.opts[*i].takes),
            flag: std::ptr::null_mut(),
            val: 1000 + *i as libc::c_int,
        })
        .collect();
    longs.push(libc::option {
        name: std::ptr::null(),
        has_arg: 0,
        flag: std::ptr::null_mut(),
        val: 0,
    });
    let owned: Vec<CString> = std::iter::once("prog".to_string())
        .chain(args.iter().cloned())
        .map(|a| CString::new(a).unwrap())
        .collect();
    let mut argv: Vec<*mut libc::c_char> = owned.iter().map(|a| a.as_ptr() as *mut _).collect();
    argv.push(std::ptr::null_mut());
    let argc = owned.len() as libc::c_int;
    let mut found = Vec::new();
    // SAFETY: getopt_long's globals are used by this test alone (one thread); every
    // pointer outlives the calls.
    unsafe {
        optind = 0;
        opterr = 0;
        loop {
            let r = libc::getopt_long(
                argc,
                argv.as_ptr(),
                optstring.as_ptr(),
                longs.as_ptr(),
                std::ptr::null_mut(),
            );
            if r == -1 {
                break;
            }
            if r == '?' as libc::c_int || r == ':' as libc::c_int {
                return None;
            }
            let idx = if r >= 1000 {
                (r - 1000) as usize
            } else {
                by_char[&r]
            };
            let val =
                (!optarg.is_null()).then(|| CStr::from_ptr(optarg).to_string_lossy().into_owned());
            found.push((idx, val));
        }
        let operands = (optind as usize..owned.len())
            .map(|k| CStr::from_ptr(argv[k]).to_string_lossy().into_owned())
            .collect();
        Some((found, operands))
    }
}

fn ours(spec: &ProgramSpec, args: &[String]) -> Option<Resolved> {
    let p = parse(spec, args).ok()?;
    Some((
        p.found.iter().map(|f| (f.idx, f.value.clone())).collect(),
        p.operands,
    ))
}

/// Tokens that exercise a spec: every long name, its prefixes, `=value` forms, every
/// short option alone, with an attached value and clustered, operands, `-` and `--`.
fn tokens(spec: &ProgramSpec) -> Vec<String> {
    let mut t: Vec<String> = ["a", "b", "-", "--", "v", "--x", "-%"]
        .map(String::from)
        .to_vec();
    let shorts: Vec<char> = spec.opts.iter().flat_map(|o| o.shorts.clone()).collect();
    for o in &spec.opts {
        for l in &o.longs {
            for end in [1, 2, 3, l.len() / 2, l.len()] {
                if end >= 1 && end <= l.len() {
                    t.push(format!("--{}", &l[..end]));
                    t.push(format!("--{}=v", &l[..end]));
                }
            }
        }
        for c in &o.shorts {
            t.push(format!("-{c}"));
            t.push(format!("-{c}v"));
            for d in shorts.iter().take(3) {
                t.push(format!("-{c}{d}"));
                t.push(format!("-{d}{c}"));
            }
        }
    }
    t
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(400))]
    /// The parser agrees with glibc's getopt_long, given the same option table, on which
    /// options argv holds (abbreviations, ambiguity, clusters, attached and separate values,
    /// optional values, `--`, permutation) and on the operands, or both refuse.
    #[test]
    fn parser_agrees_with_glibc_getopt_long(
        which in 0usize..1000,
        picks in proptest::collection::vec(0usize..100_000, 0..6),
    ) {
        if std::env::var_os("POSIXLY_CORRECT").is_some() {
            return Ok(());
        }
        let gnu: Vec<&ProgramSpec> = builtin_specs().values().filter(|s| s.abbrev).collect();
        let mut spec = gnu[which % gnu.len()].clone();
        for o in spec.opts.iter_mut() {
            o.deny = None; // compare resolution, not policy
        }
        let t = tokens(&spec);
        let args: Vec<String> = picks.iter().map(|&k| t[k % t.len()].clone()).collect();
        let numeric_token = spec.numeric
            && args.iter().any(|a| a.len() > 1 && a.starts_with('-') && a[1..].chars().all(|c| c.is_ascii_digit()));
        proptest::prop_assume!(!numeric_token);
        let g = glibc(&spec, &args);
        let o = ours(&spec, &args);
        proptest::prop_assert_eq!(o, g, "{} {:?}", spec.name, args);
    }
}

#[test]
fn numbers() {
    for ok in ["5", "-5", "+5", "1K", "50%", "1.5", "10MB"] {
        assert!(is_number(ok), "{ok}");
    }
    for bad in ["", "x", "-", "1.2.3", "5abcd", ".5", "1;2"] {
        assert!(!is_number(bad), "{bad}");
    }
}
