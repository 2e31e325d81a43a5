//! The argv policy of `shell.exec`: which programs may run, and what each may do.
//!
//! The command line is split into argv with `shlex` (POSIX word rules); shell operators outside
//! quotes are refused. Then [`vet`] decides, in this order:
//!
//! 1. **Program name** (a short denylist kept as a second line with clear messages): no program
//!    paths, no wrappers that run other programs (`env`, `xargs`, `timeout`, `sudo`…), no
//!    always-dangerous programs (`awk`, `dd`, `tee`…), no interpreter inline code (`sh -c`).
//! 2. **The rules file** (`policy/shell-rules.json`, or `BOB_TOOL_SHELL_RULES` /
//!    `--shell-rules`) chooses *which* programs and git subcommands are allowed: allow/deny argv
//!    prefix rules, deny wins, each rule carrying `match`/`not_match` examples verified when the
//!    file loads (an allow rule's `match` examples must also parse under the program's spec).
//! 3. **The program's spec** says *what* it may do: its short options (flag or with a value),
//!    long options (flag, required or optional value), and the kind of every option value and
//!    operand. The built-in specs ([`builtin_spec`]) cover ls, cat, head, tail, wc, grep, rg,
//!    find, echo, printf, pwd, stat, file, du, sort, uniq, cut, tr, diff, sed, date, true,
//!    false, sleep, sha256sum and the git subcommands status, log, diff, show, ls-files,
//!    rev-parse, branch and blame. A program the file allows but that has no built-in spec is
//!    refused unless its allow rule carries a `spec` (same option language, see
//!    [`FileSpec`]); a file may not replace a built-in spec. Anything not in the spec is
//!    refused: it is an allowlist.
//!
//! ## Option semantics
//!
//! argv is parsed the way the program itself parses it ([`parse`]): GNU `getopt_long` for
//! coreutils, grep, sed, diff and file — a unique prefix of a long option stands for it
//! (`--expr` is `--expression`, `--in-pl` is `--in-place`), an ambiguous or unknown one is
//! refused, `--opt=value` and `--opt value` for required values, `--opt=value` only for
//! optional ones; short options cluster (`-ne`, `-qD`) and take attached values (`-n5`,
//! `-f/etc/x`); `--` ends options and options may follow operands (GNU permutation). Every
//! long option the program has — the refused ones included — is in its spec, so an
//! abbreviation resolves exactly as the program resolves it. ripgrep and git do not accept
//! abbreviations the same way (git's revision parser, its diff options and `rg` differ), so
//! for them only exact long option names are accepted.
//!
//! ## Kinds
//!
//! - `read_path` / `write_path` / `write_dir`: must be inside a sandbox root, lexically *and*
//!   after the kernel resolved every symlink beneath the root (`cat link` with
//!   `link -> /etc/shadow` is refused here, whatever the OS sandbox does). Relative paths are
//!   relative to the command's `cwd` under the root. A write path may not be a symlink, nor a
//!   protected path (VCS internals and program dotfiles, see [`super::fs`]) unless a human
//!   granted `fs:dotfiles`.
//! - `name_list0` (`--files0-from`): the file is a read path, and so is every NUL-separated
//!   name listed in it (bob reads at most 1 MiB of it before the program runs).
//! - `number`, `text`, `word` (an enumerated value: no `/`, no whitespace), `pattern`,
//!   `format`, `sed_script` (checked command by command), `date_format` (`+FORMAT` only),
//!   `duration`, `git_arg` (a revision or a path: a path-like one must be inside the roots),
//!   `read_path_list` (colon-separated read paths).
//!
//! `POSIXLY_CORRECT` never reaches a child (its environment is cleared), so every getopt
//! program permutes, as the parser assumes; `find` has its own parser here (leading `-H`/`-P`,
//! starting points, then an expression of listed primaries), and `echo`, `printf`, `true` and
//! `false` take only text.
//!
//! ## Per-program rules beyond the spec
//!
//! - sed: no `-i`/`--in-place`, no `-f`/`--file`; the script (all `-e`/`--expression` pieces
//!   joined by newlines, as sed joins them, or the first operand) is parsed command by command,
//!   through `{}` blocks, `;`/newline separators, custom address delimiters (`\%re%`) and
//!   `a`/`i`/`c` text; `e`, `w`, `W`, `r`, `R`, `s///e` and `s///w` are refused, unknown
//!   commands too. `--sandbox` is inserted, so GNU sed itself rejects e/w/r as well.
//! - sort: no `--compress-program`; `-T` and `-o` inside the roots. `--files0-from` (here and
//!   in wc and du) inside the roots, and every name listed in it too: bob reads the list (at
//!   most 1 MiB) and vets each name as a read path before the program runs.
//! - date: prints only: `-d`, `-u`, `-R`, `-I[FMT]`, `--rfc-3339`, `-r FILE`, `-f FILE`, and one
//!   `+FORMAT` operand; `-s`/`--set` and the positional `MMDDhhmm[[CC]YY][.ss]` form are
//!   refused.
//! - grep/rg: `-f`/`--file` inside the roots; `grep -R`, `rg -L` (they follow symlinks out of
//!   the root), `rg --pre`, `--pre-glob`, `-z`/`--search-zip`, `--hostname-bin` refused.
//! - find: expression primaries from a list; `-exec*`, `-ok*`, `-delete`, `-fprint*`, `-fls`,
//!   `-L`/`-follow` refused; starting points and reference files are read paths.
//! - diff: `-l`/`--paginate` (runs `pr`) refused; `--no-dereference` is inserted with `-r`.
//! - ls, du: `-L` refused; file: `-z`/`-Z` (run decompressors), `-C`, `-S`, `-f` refused;
//!   sha256sum: `-c` refused (names inside the check file could not be vetted).
//! - git: the listed subcommands only, with their read-only options; global options limited to
//!   `-C DIR`/`--work-tree` inside the roots, `--git-dir` inside the roots naming a `.git`,
//!   `--no-pager`/`-P` and the pathspec switches (no `-c`, `--config-env`, `--exec-path`,
//!   `--namespace`…). `git branch` only lists: `-d`, `-D`, `--delete`, `-m`, `-M`, `-c`, `-C`,
//!   `-f`, `-u`, `--unset-upstream`, `--edit-description`, `-t` are refused (clustered or
//!   after `-q` too), and a branch-name operand is accepted only in list mode (`--list`,
//!   `--contains`, `--merged`, `--points-at`, `-v`). `--no-pager` is inserted; diff, log and
//!   show get `--no-ext-diff --no-textconv`, blame `--no-textconv`.
//!
//! ## Git's environment ([`GIT_ENV`])
//!
//! git runs with `GIT_CONFIG_NOSYSTEM=1`, `GIT_CONFIG_GLOBAL=/dev/null` (so `$HOME/.gitconfig`
//! and `$XDG_CONFIG_HOME/git/config` are not read), `GIT_ATTR_NOSYSTEM=1`, `GIT_PAGER=cat`,
//! `GIT_TERMINAL_PROMPT=0`, `GIT_OPTIONAL_LOCKS=0` (no opportunistic index write, hence no
//! post-index-change hook), `GIT_CEILING_DIRECTORIES` = the roots' parents (no repository
//! discovered above a root), and configuration passed through `GIT_CONFIG_COUNT`/
//! `GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n`. git reads configuration system → global → repo
//! (`.git/config`) → worktree → *command* scope (`-c` and `GIT_CONFIG_COUNT`), the last value
//! winning for single-valued keys, so these override anything the repository says:
//! `core.fsmonitor=false`, `core.hooksPath=/dev/null`, `core.pager=cat`, `core.editor=false`,
//! `core.sshCommand=false`, `core.askPass=false`, `core.attributesFile=/dev/null`,
//! `diff.external=` (none), `log.showSignature=false`, `gpg.program=false` (and its ssh/x509
//! variants: `%G?` formats cannot start gpg), `protocol.allow=never`,
//! `safe.bareRepository=explicit` (a bare repository planted in the root is not discovered),
//! and `safe.directory=*` (honoured only in protected scopes — system, global, command — which
//! this is; needed because inside the OS sandbox the repository's owner is not the sandbox
//! uid). Filter drivers and textconv/external diff drivers named by attributes need a config
//! entry *and* an attribute; `fs.write_text` cannot write either (`.git/`, `.gitattributes`,
//! `.gitconfig` are protected), `--no-ext-diff --no-textconv` are forced, and the repository's
//! own configuration is the operator's.
//!
//! ## Limits
//!
//! The path checks run before the program does; a concurrent writer could swap a symlink in
//! between (bob's own tools run one call at a time). The OS sandbox ([`super::shell`]) is the
//! layer that holds regardless.

use super::fs::{Sandbox, climbs_out, is_escape, lexical_normalize, protected_reason};
use crate::error::{Code, Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};
use std::sync::OnceLock;

/// The `PATH` children get.
pub const SAFE_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

const BUILTIN_RULES: &str = include_str!("../../policy/shell-rules.json");

/// What vetting returns: the argv to run (with bob's insertions, e.g. `sed --sandbox`) and the
/// extra environment the program gets (git's hardening).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vetted {
    pub argv: Vec<String>,
    pub env: Vec<(String, String)>,
}

/// Programs that run other programs or change who/where a program runs.
const WRAPPERS: &[&str] = &[
    "env",
    "xargs",
    "nohup",
    "timeout",
    "sudo",
    "su",
    "doas",
    "nice",
    "ionice",
    "stdbuf",
    "chroot",
    "setsid",
    "unshare",
    "nsenter",
    "strace",
    "ltrace",
    "gdb",
    "script",
    "watch",
    "flock",
    "time",
    "busybox",
    "exec",
    "command",
    "builtin",
    "eval",
    "ssh",
    "scp",
    "sftp",
    "rsync",
    "parallel",
    "systemd-run",
    "runuser",
    "pkexec",
    "chrt",
    "taskset",
    "setpriv",
    "fakeroot",
    "proot",
    "bwrap",
    "firejail",
    "socat",
    "nc",
    "ncat",
    "netcat",
    "telnet",
    "curl",
    "wget",
    "make",
    "ninja",
];

/// Interpreters: refused with an inline-code flag (`-c`, `-e`, `--eval`, …).
const INTERPRETERS: &[&str] = &[
    "sh",
    "bash",
    "dash",
    "zsh",
    "ksh",
    "mksh",
    "fish",
    "csh",
    "tcsh",
    "ash",
    "python",
    "python2",
    "python3",
    "pypy",
    "pypy3",
    "perl",
    "ruby",
    "node",
    "nodejs",
    "deno",
    "bun",
    "php",
    "lua",
    "luajit",
    "tclsh",
    "wish",
    "Rscript",
    "julia",
    "pwsh",
    "powershell",
    "osascript",
    "expect",
    "irb",
    "jshell",
    "groovy",
    "scala",
    "erl",
    "escript",
    "guile",
    "racket",
    "sbcl",
    "clisp",
];

/// Always refused: programs whose every use runs code or edits arbitrary files.
const ALWAYS_DENIED: &[&str] = &[
    "awk", "gawk", "mawk", "nawk", "vi", "vim", "nvim", "emacs", "ed", "ex", "dd", "tee",
    "install", "ln", "mkfifo", "mknod",
];

// ---------------------------------------------------------------------------------------------
// Kinds and specs

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
enum Takes {
    No,
    Required(Kind),
    Optional(Kind),
}

/// One option (a short letter and/or long names that are the same option).
#[derive(Debug, Clone)]
struct Opt {
    shorts: Vec<char>,
    longs: Vec<String>,
    takes: Takes,
    /// Why it is refused, when it is.
    deny: Option<String>,
}

impl Opt {
    fn name(&self) -> String {
        match (self.longs.first(), self.shorts.first()) {
            (Some(l), _) => format!("--{l}"),
            (None, Some(c)) => format!("-{c}"),
            _ => "?".into(),
        }
    }
    fn is(&self, key: &str) -> bool {
        self.longs.iter().any(|l| l == key)
            || (key.chars().count() == 1
                && self.shorts.contains(&key.chars().next().unwrap_or(' ')))
    }
}

/// What one program (or git subcommand) may do.
#[derive(Debug, Clone)]
pub struct ProgramSpec {
    name: String,
    opts: Vec<Opt>,
    /// Kinds of the operands by position; the last one repeats. Empty: no operands.
    operands: Vec<Kind>,
    /// Long options may be abbreviated to a unique prefix (GNU getopt_long).
    abbrev: bool,
    /// `-NUM` is an option (head, tail, git log).
    numeric: bool,
}

/// Parses the option language shared by the built-in specs and the rules file.
///
/// Whitespace-separated entries; each is `NAMES`, `NAMES=KIND` (required value) or
/// `NAMES?=KIND` (optional value), where `NAMES` is `|`-separated: one character is a short
/// option, longer is a long option (without the dashes). A leading `!` marks the option as
/// refused; `deny` gives the reasons, keyed by any of the option's names.
fn compile_opts(dsl: &str, deny: &[(&str, &str)]) -> std::result::Result<Vec<Opt>, String> {
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

fn spec(
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

use Kind::*;

const FOLLOWS_OUT: &str = "follows symlinks, which can lead out of the sandbox root";
const UNVETTED_NAMES: &str = "reads file names from a file, and bob cannot vet the names inside it; name the files as operands";

/// Diff, revision and pretty options git log/show/diff share (exact names only).
const GIT_DIFF_OPTS: &str = "p|u|patch s|no-patch U|unified=num output-indicator-new=text \
    output-indicator-old=text output-indicator-context=text raw patch-with-raw t \
    indent-heuristic no-indent-heuristic minimal patience histogram anchored=text \
    diff-algorithm=text stat?=text compact-summary numstat shortstat dirstat?=text \
    cumulative dirstat-by-file?=text summary patch-with-stat z name-only name-status \
    submodule?=text color?=word no-color color-moved?=text no-color-moved \
    color-moved-ws=text no-color-moved-ws word-diff?=text word-diff-regex=pat \
    color-words?=pat no-renames rename-empty no-rename-empty check ws-error-highlight=text \
    full-index binary abbrev?=num B|break-rewrites?=text M|find-renames?=num \
    C|find-copies?=num find-copies-harder D|irreversible-delete l=num diff-filter=text \
    S=text G=pat find-object=text pickaxe-all pickaxe-regex R relative?=text no-relative \
    a|text ignore-cr-at-eol ignore-space-at-eol b|ignore-space-change w|ignore-all-space \
    ignore-blank-lines I|ignore-matching-lines=pat inter-hunk-context=num W|function-context \
    exit-code quiet no-ext-diff no-textconv ignore-submodules?=text src-prefix=text \
    dst-prefix=text no-prefix default-prefix line-prefix=text ita-invisible-in-index \
    ita-visible-in-index \
    !ext-diff !textconv !output=write !O=read !output-directory=write";
const GIT_DIFF_DENY: &[(&str, &str)] = &[
    ("ext-diff", "runs an external diff program"),
    ("textconv", "runs textconv filter programs"),
    ("output", "writes to a file; read the output instead"),
    ("O", "is not allowed"),
];
const GIT_REV_OPTS: &str = "n|max-count=num skip=num since=text after=text until=text \
    before=text since-as-filter=text max-age=text min-age=text author=pat committer=pat \
    grep-reflog=pat grep=pat all-match invert-grep i|regexp-ignore-case basic-regexp \
    E|extended-regexp F|fixed-strings P|perl-regexp remove-empty merges no-merges \
    min-parents=num max-parents=num no-min-parents no-max-parents first-parent \
    exclude-first-parent-only not all branches?=pat tags?=pat remotes?=pat glob=pat \
    exclude=pat exclude-hidden=text reflog alternate-refs single-worktree ignore-missing \
    bisect stdin cherry-mark cherry-pick left-only right-only cherry g|walk-reflogs merge \
    boundary simplify-by-decoration show-pulls full-history dense sparse simplify-merges \
    ancestry-path?=text date-order author-date-order topo-order reverse no-walk?=text \
    do-walk pretty?=fmt format=fmt abbrev-commit no-abbrev-commit oneline encoding=text \
    expand-tabs?=num no-expand-tabs notes?=text no-notes show-notes?=text \
    show-notes-by-default standard-notes no-standard-notes show-linear-break?=text \
    relative-date date=text parents children left-right graph no-graph show-signature \
    follow decorate?=text no-decorate decorate-refs=pat decorate-refs-exclude=pat \
    clear-decorations source mailmap no-mailmap use-mailmap no-use-mailmap full-diff \
    log-size m c cc dd diff-merges=text no-diff-merges combined-all-paths remerge-diff";
const GIT_REV_DENY: &[(&str, &str)] = &[("show-signature", "runs gpg to verify signatures")];

fn git_specs() -> Vec<ProgramSpec> {
    let mut log_deny: Vec<(&str, &str)> = GIT_DIFF_DENY.to_vec();
    log_deny.extend_from_slice(GIT_REV_DENY);
    log_deny.push((
        "no-index",
        "compares arbitrary files outside the repository",
    ));
    let log = format!("{GIT_DIFF_OPTS} {GIT_REV_OPTS}");
    let diff =
        format!("{GIT_DIFF_OPTS} cached staged merge-base base|1 ours|2 theirs|3 0 !no-index");
    vec![
        spec(
            "git status",
            "s|short b|branch show-stash porcelain?=text long v|verbose \
             u|untracked-files?=text ignored?=text ignore-submodules?=text z column?=text \
             no-column ahead-behind no-ahead-behind renames no-renames find-renames?=num",
            &[],
            &[GitArg],
            false,
            false,
        ),
        spec("git log", &log, &log_deny, &[GitArg], false, true),
        spec("git show", &log, &log_deny, &[GitArg], false, false),
        spec("git diff", &diff, &log_deny, &[GitArg], false, false),
        spec(
            "git ls-files",
            "c|cached d|deleted m|modified o|others i|ignored s|stage u|unmerged k|killed \
             resolve-undo z t v f full-name recurse-submodules abbrev?=num x|exclude=pat \
             X|exclude-from=read exclude-per-directory=text exclude-standard error-unmatch \
             with-tree=text directory no-empty-directory eol deduplicate sparse format=fmt \
             debug",
            &[],
            &[GitArg],
            false,
            false,
        ),
        spec(
            "git rev-parse",
            "show-toplevel show-prefix show-cdup git-dir absolute-git-dir git-common-dir \
             is-inside-work-tree is-inside-git-dir is-bare-repository is-shallow-repository \
             show-superproject-working-tree shared-index-path show-object-format?=text \
             show-ref-format abbrev-ref?=text short?=num verify q|quiet symbolic \
             symbolic-full-name all branches?=pat tags?=pat remotes?=pat glob=pat exclude=pat \
             disambiguate=text since=text after=text until=text before=text default=text \
             revs-only no-revs flags no-flags sq sq-quote not prefix=text local-env-vars \
             path-format=text",
            &[],
            &[GitArg],
            false,
            false,
        ),
        spec(
            "git branch",
            "a|all r|remotes l|list v|verbose q|quiet i|ignore-case omit-empty color?=word \
             no-color column?=text no-column sort=word merged?=git no-merged?=git \
             contains?=git no-contains?=git points-at=git format=fmt show-current abbrev=num \
             no-abbrev \
             !d|delete !D !f|force !m|move !M !c|copy !C !u|set-upstream-to=text \
             !unset-upstream !edit-description !t|track?=text !no-track !create-reflog \
             !recurse-submodules",
            &[
                ("delete", "deletes a branch"),
                ("D", "deletes a branch"),
                ("force", "forces a branch change"),
                ("move", "renames a branch"),
                ("M", "renames a branch"),
                ("copy", "copies a branch"),
                ("C", "copies a branch"),
                ("set-upstream-to", "writes the repository's config"),
                ("unset-upstream", "writes the repository's config"),
                ("edit-description", "opens an editor and writes config"),
                ("track", "creates a branch"),
                ("create-reflog", "creates a branch"),
            ],
            &[Text],
            false,
            false,
        ),
        spec(
            "git blame",
            "L=text s l t b root show-stats score-debug f|show-name n|show-number p|porcelain \
             line-porcelain incremental c w M?=num C?=num e|show-email date=text progress \
             no-progress abbrev=num minimal since=text reverse first-parent ignore-rev=git \
             ignore-revs-file=read color-lines color-by-age contents=read S=read encoding=text \
             no-textconv !textconv",
            &[("textconv", "runs textconv filter programs")],
            &[GitArg],
            false,
            false,
        ),
    ]
}

fn builtin_specs() -> &'static BTreeMap<String, ProgramSpec> {
    static SPECS: OnceLock<BTreeMap<String, ProgramSpec>> = OnceLock::new();
    SPECS.get_or_init(|| {
        let gnu = |name: &str, dsl: &str, deny: &[(&str, &str)], ops: &[Kind]| {
            spec(name, &format!("{dsl} help version"), deny, ops, true, false)
        };
        let mut v = vec![
            gnu(
                "ls",
                "a|all A|almost-all author b|escape block-size=text B|ignore-backups c C \
                 color?=word d|directory D|dired f F|classify?=word file-type format=word \
                 full-time g group-directories-first G|no-group h|human-readable si \
                 H|dereference-command-line dereference-command-line-symlink-to-dir \
                 hide=pat hyperlink?=word indicator-style=word i|inode I|ignore=pat \
                 k|kibibytes l !L|dereference m n|numeric-uid-gid N|literal o p q|hide-control-chars \
                 show-control-chars Q|quote-name quoting-style=word r|reverse R|recursive \
                 s|size S sort=word time=word time-style=fmt t T|tabsize=num u U v \
                 w|width=num x X Z|context zero 1",
                &[("dereference", FOLLOWS_OUT)],
                &[ReadPath],
            ),
            gnu(
                "cat",
                "A|show-all b|number-nonblank e E|show-ends n|number s|squeeze-blank t \
                 T|show-tabs u v|show-nonprinting",
                &[],
                &[ReadPath],
            ),
            ProgramSpec {
                numeric: true,
                ..gnu(
                    "head",
                    "c|bytes=num n|lines=num q|quiet|silent v|verbose z|zero-terminated",
                    &[],
                    &[ReadPath],
                )
            },
            ProgramSpec {
                numeric: true,
                ..gnu(
                    "tail",
                    "c|bytes=num f|follow?=word F n|lines=num max-unchanged-stats=num pid=num \
                     q|quiet|silent retry s|sleep-interval=num v|verbose z|zero-terminated",
                    &[],
                    &[ReadPath],
                )
            },
            gnu(
                "wc",
                "c|bytes m|chars l|lines files0-from=names0 L|max-line-length w|words total=word",
                &[],
                &[ReadPath],
            ),
            gnu(
                "grep",
                "E|extended-regexp F|fixed-strings G|basic-regexp P|perl-regexp \
                 e|regexp=pat f|file=read i|y|ignore-case no-ignore-case w|word-regexp \
                 x|line-regexp z|null-data s|no-messages v|invert-match V m|max-count=num \
                 b|byte-offset n|line-number line-buffered H|with-filename h|no-filename \
                 label=text o|only-matching q|quiet|silent binary-files=word a|text I \
                 d|directories=word D|devices=word r|recursive !R|dereference-recursive \
                 include=pat exclude=pat exclude-from=read exclude-dir=pat \
                 L|files-without-match l|files-with-matches c|count T|initial-tab Z|null \
                 B|before-context=num A|after-context=num C|context=num \
                 group-separator=text no-group-separator color?=word colour?=word U|binary",
                &[("dereference-recursive", FOLLOWS_OUT)],
                &[Pattern, ReadPath],
            ),
            spec(
                "rg",
                "A|after-context=num B|before-context=num C|context=num c|count count-matches \
                 color=word colors=text column no-column context-separator=text \
                 no-context-separator b|byte-offset no-byte-offset crlf no-crlf \
                 dfa-size-limit=num E|encoding=text no-encoding engine=word F|fixed-strings \
                 no-fixed-strings field-context-separator=text field-match-separator=text \
                 files l|files-with-matches files-without-match g|glob=pat iglob=pat \
                 glob-case-insensitive no-glob-case-insensitive h|help heading no-heading \
                 .|hidden no-hidden i|ignore-case ignore-file=read \
                 ignore-file-case-insensitive no-ignore-file-case-insensitive include-zero \
                 no-include-zero v|invert-match no-invert-match I|no-filename H|with-filename \
                 j|threads=num json no-json line-buffered no-line-buffered n|line-number \
                 N|no-line-number x|line-regexp M|max-columns=num max-columns-preview \
                 no-max-columns-preview m|max-count=num d|max-depth=num maxdepth=num \
                 max-filesize=text mmap no-mmap U|multiline no-multiline multiline-dotall \
                 no-multiline-dotall no-ignore ignore no-ignore-dot ignore-dot \
                 no-ignore-exclude ignore-exclude no-ignore-files ignore-files \
                 no-ignore-global ignore-global no-ignore-messages ignore-messages \
                 no-ignore-parent ignore-parent no-ignore-vcs ignore-vcs no-messages messages \
                 no-pcre2-unicode pcre2-unicode no-require-git require-git no-unicode unicode \
                 0|null null-data one-file-system no-one-file-system o|only-matching \
                 passthru|passthrough path-separator=text P|pcre2 no-pcre2 pcre2-version \
                 q|quiet regex-size-limit=text e|regexp=pat r|replace=text s|case-sensitive \
                 S|smart-case sort=word sortr=word sort-files no-sort-files stats no-stats \
                 t|type=text T|type-not=text type-add=text type-clear=text type-list \
                 u|unrestricted V|version vimgrep w|word-regexp trim no-trim a|text no-text \
                 binary no-binary block-buffered no-block-buffered p|pretty debug trace \
                 no-config hyperlink-format=text auto-hybrid-regex no-auto-hybrid-regex \
                 f|file=read no-follow \
                 !pre=text !no-pre !pre-glob=text !z|search-zip !no-search-zip !L|follow \
                 !hostname-bin=text !generate=text",
                &[
                    ("pre", "runs a preprocessor program on every file"),
                    ("pre-glob", "selects files for a preprocessor program"),
                    ("search-zip", "runs decompression programs"),
                    ("follow", FOLLOWS_OUT),
                    ("hostname-bin", "runs a program"),
                ],
                &[Pattern, ReadPath],
                false,
                false,
            ),
            gnu("pwd", "L|logical P|physical", &[], &[]),
            gnu(
                "stat",
                "L|dereference f|file-system cached=word c|format=fmt printf=fmt t|terse",
                &[],
                &[ReadPath],
            ),
            gnu(
                "file",
                "b|brief !C|compile c|checking-printout d E e|exclude=text exclude-quiet=text \
                 extension F|separator=text !f|files-from=read h|no-dereference i|mime apple \
                 mime-type mime-encoding k|keep-going l|list L|dereference \
                 m|magic-file=readlist N|no-pad n|no-buffer 0|print0 p|preserve-date \
                 P|parameter=text r|raw s|special-files !S|no-sandbox v \
                 !z|uncompress !Z|uncompress-noreport",
                &[
                    ("compile", "writes a compiled magic file"),
                    ("files-from", UNVETTED_NAMES),
                    ("no-sandbox", "turns off file's own seccomp sandbox"),
                    ("uncompress", "runs decompression programs"),
                    ("uncompress-noreport", "runs decompression programs"),
                ],
                &[ReadPath],
            ),
            gnu(
                "du",
                "0|null a|all apparent-size B|block-size=text b|bytes c|total \
                 D|H|dereference-args d|max-depth=num files0-from=names0 h|human-readable \
                 inodes k !L|dereference l|count-links m P|no-dereference S|separate-dirs si \
                 s|summarize t|threshold=num time?=word time-style=fmt X|exclude-from=read \
                 exclude=pat x|one-file-system",
                &[("dereference", FOLLOWS_OUT)],
                &[ReadPath],
            ),
            gnu(
                "sort",
                "b|ignore-leading-blanks d|dictionary-order f|ignore-case \
                 g|general-numeric-sort i|ignore-nonprinting M|month-sort \
                 h|human-numeric-sort n|numeric-sort R|random-sort random-source=read \
                 r|reverse sort=word V|version-sort batch-size=num c check?=word C \
                 !compress-program=text debug files0-from=names0 k|key=text m|merge \
                 o|output=write s|stable S|buffer-size=num t|field-separator=text \
                 T|temporary-directory=wdir parallel=num u|unique z|zero-terminated",
                &[
                    ("compress-program", "runs the named program on sort's temporary files"),
                ],
                &[ReadPath],
            ),
            gnu(
                "uniq",
                "c|count d|repeated D all-repeated?=word f|skip-fields=num group?=word \
                 i|ignore-case s|skip-chars=num u|unique z|zero-terminated w|check-chars=num",
                &[],
                &[ReadPath, WritePath],
            ),
            gnu(
                "cut",
                "b|bytes=text c|characters=text d|delimiter=text f|fields=text n complement \
                 s|only-delimited output-delimiter=text z|zero-terminated",
                &[],
                &[ReadPath],
            ),
            gnu(
                "tr",
                "c|C|complement d|delete s|squeeze-repeats t|truncate-set1",
                &[],
                &[Text],
            ),
            gnu(
                "diff",
                "normal q|brief s|report-identical-files c C|context?=num u U|unified?=num \
                 e|ed n|rcs y|side-by-side W|width=num left-column suppress-common-lines \
                 p|show-c-function F|show-function-line=pat label=text t|expand-tabs \
                 T|initial-tab tabsize=num suppress-blank-empty !l|paginate r|recursive \
                 no-dereference N|new-file unidirectional-new-file ignore-file-name-case \
                 no-ignore-file-name-case x|exclude=pat X|exclude-from=read \
                 S|starting-file=text from-file=read to-file=read i|ignore-case \
                 E|ignore-tab-expansion Z|ignore-trailing-space b|ignore-space-change \
                 w|ignore-all-space B|ignore-blank-lines I|ignore-matching-lines=pat a|text \
                 strip-trailing-cr D|ifdef=text old-group-format=fmt new-group-format=fmt \
                 changed-group-format=fmt unchanged-group-format=fmt line-format=fmt \
                 old-line-format=fmt new-line-format=fmt unchanged-line-format=fmt \
                 d|minimal horizon-lines=num speed-large-files color?=word palette=text v \
                 binary",
                &[("paginate", "runs the pr program")],
                &[ReadPath],
            ),
            gnu(
                "sed",
                "n|quiet|silent debug e|expression=sed !f|file=read follow-symlinks \
                 !i|in-place?=text l|line-length=num posix E|r|regexp-extended s|separate \
                 sandbox u|unbuffered z|null-data|zero-terminated b|binary",
                &[
                    ("in-place", "edits files in place"),
                    ("file", "reads the script from a file bob cannot vet; pass it with -e"),
                ],
                &[SedScript, ReadPath],
            ),
            gnu(
                "date",
                "d|date=text debug f|file=read I|iso-8601?=word resolution \
                 R|rfc-email|rfc-822|rfc-2822 rfc-3339=word r|reference=read !s|set=text \
                 u|utc|universal|uct",
                &[("set", "sets the system clock; date may print, not set")],
                &[DateFormat],
            ),
            gnu("sleep", "", &[], &[Duration]),
            gnu(
                "sha256sum",
                "b|binary !c|check tag t|text z|zero ignore-missing quiet status strict w|warn",
                &[(
                    "check",
                    "reads the files named inside the check file, which bob cannot vet",
                )],
                &[ReadPath],
            ),
        ];
        v.extend(git_specs());
        v.into_iter().map(|s| (s.name.clone(), s)).collect()
    })
}

/// The built-in spec of a program (`"ls"`) or git subcommand (`"git status"`).
pub fn builtin_spec(name: &str) -> Option<&'static ProgramSpec> {
    builtin_specs().get(name)
}

/// Programs that take no options at all: every argument is text.
const TEXT_ONLY: &[&str] = &["echo", "printf", "true", "false"];

/// Programs with a built-in spec (a rules file may not give them another).
fn has_builtin(prog: &str) -> bool {
    prog == "git" || prog == "find" || TEXT_ONLY.contains(&prog) || builtin_spec(prog).is_some()
}

// ---------------------------------------------------------------------------------------------
// getopt_long

/// One option occurrence in argv.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The option's canonical name (`--expression`, or `-e` when it has no long name).
    pub name: String,
    /// As written (`--expr`, `-ne`).
    pub written: String,
    pub value: Option<String>,
    idx: usize,
}

/// argv after the options were taken out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Parsed {
    pub found: Vec<Found>,
    pub operands: Vec<String>,
}

impl Parsed {
    fn has(&self, spec: &ProgramSpec, key: &str) -> bool {
        self.found
            .iter()
            .any(|f| spec.opts.get(f.idx).is_some_and(|o| o.is(key)))
    }
    fn values<'a>(&'a self, spec: &'a ProgramSpec, key: &'a str) -> impl Iterator<Item = &'a str> {
        self.found
            .iter()
            .filter(move |f| spec.opts.get(f.idx).is_some_and(|o| o.is(key)))
            .filter_map(|f| f.value.as_deref())
    }
}

fn refuse(prog: &str, msg: impl std::fmt::Display) -> Error {
    Error::denied(format!("{prog}: {msg}")).with("program", prog.to_string())
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

// ---------------------------------------------------------------------------------------------
// Checking values

/// Where relative paths start, and the sandbox to resolve them in (`None`: syntax only).
struct Ctx<'a> {
    sandbox: Option<&'a Sandbox>,
    /// The command's cwd: relative to the first root, or absolute.
    base: PathBuf,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Access {
    Read,
    Write,
    WriteDir,
}

fn is_number(v: &str) -> bool {
    let v = v.strip_prefix(['+', '-']).unwrap_or(v);
    let digits = v.trim_end_matches(|c: char| c.is_ascii_alphabetic() || c == '%');
    let suffix = &v[digits.len()..];
    suffix.len() <= 3
        && !digits.is_empty()
        && digits.chars().all(|c| c.is_ascii_digit() || c == '.')
        && digits.chars().filter(|&c| c == '.').count() <= 1
        && digits.chars().next().is_some_and(|c| c.is_ascii_digit())
}

impl Ctx<'_> {
    fn check(&self, prog: &str, what: &str, kind: Kind, v: &str) -> Result<()> {
        match kind {
            ReadPath => self.path(prog, what, v, Access::Read),
            WritePath => self.path(prog, what, v, Access::Write),
            WriteDir => self.path(prog, what, v, Access::WriteDir),
            ReadPathList => v
                .split(':')
                .filter(|p| !p.is_empty())
                .try_for_each(|p| self.path(prog, what, p, Access::Read)),
            GitArg => self.path(prog, what, v, Access::Read),
            NameList0 => self.names0(prog, what, v),
            Number if !is_number(v) => Err(refuse(prog, format!("{what} {v:?} is not a number"))),
            Duration
                if !(is_number(v) && !v.starts_with(['-', '+'])
                    || v == "inf"
                    || v == "infinity") =>
            {
                Err(refuse(prog, format!("{what} {v:?} is not a duration")))
            }
            SedScript => sed_script_check(v).map_err(|why| {
                refuse(prog, format!("sed script {v:?} is refused: {why}"))
                    .with("script", v.to_string())
            }),
            Word if v.contains('/') || v.chars().any(char::is_whitespace) => {
                Err(refuse(prog, format!("{what} {v:?} is not a keyword")))
            }
            DateFormat if !v.starts_with('+') => Err(refuse(
                prog,
                format!(
                    "operand {v:?} is refused: date takes only a +FORMAT operand (a date operand sets the clock)"
                ),
            )),
            _ => Ok(()),
        }
    }

    /// `--files0-from=F`: F and every NUL-separated name in it must be inside the roots.
    fn names0(&self, prog: &str, what: &str, v: &str) -> Result<()> {
        self.path(prog, what, v, Access::Read)?;
        let Some(sandbox) = self.sandbox else {
            return Ok(());
        };
        if v == "-" {
            return Ok(()); // stdin is /dev/null
        }
        let joined = if Path::new(v).is_absolute() {
            PathBuf::from(v)
        } else {
            self.base.join(v)
        };
        let (_, dir, rel) = sandbox.locate_in(&joined.to_string_lossy())?;
        const CAP: u64 = 1 << 20;
        let mut bytes = Vec::new();
        if let Ok(f) = dir.open(&rel) {
            use std::io::Read;
            f.take(CAP + 1)
                .read_to_end(&mut bytes)
                .map_err(|e| refuse(prog, format!("{what} {v:?} cannot be read: {e}")))?;
        }
        if bytes.len() as u64 > CAP {
            return Err(refuse(
                prog,
                format!("{what} {v:?} is larger than 1 MiB; its names cannot all be vetted"),
            ));
        }
        for name in bytes.split(|&b| b == 0).filter(|n| !n.is_empty()) {
            let name = std::str::from_utf8(name).map_err(|_| {
                refuse(prog, format!("{what} {v:?} lists a name that is not UTF-8"))
            })?;
            self.path(
                prog,
                &format!("a name listed in {what}"),
                name,
                Access::Read,
            )?;
        }
        Ok(())
    }

    /// A path must be inside the roots, lexically and after resolving symlinks beneath the
    /// root (by the kernel, through the root's handle).
    fn path(&self, prog: &str, what: &str, v: &str, access: Access) -> Result<()> {
        if v.is_empty() || v == "-" {
            return Ok(());
        }
        let outside = |why: &str| {
            refuse(
                prog,
                format!("{what} {v:?} {why}: shell.exec is confined to the sandbox root"),
            )
            .with("argument", v.to_string())
        };
        let joined = if Path::new(v).is_absolute() {
            PathBuf::from(v)
        } else {
            self.base.join(v)
        };
        let Some(sandbox) = self.sandbox else {
            // Syntax check only (rules file examples): lexical.
            if joined.is_absolute() || climbs_out(&joined) {
                return Err(outside("is outside the root"));
            }
            return Ok(());
        };
        if !joined.is_absolute() && climbs_out(&joined) {
            return Err(outside("climbs out of the root with .."));
        }
        let shown = joined.to_string_lossy().into_owned();
        let (root, dir, rel) = sandbox
            .locate_in(&shown)
            .map_err(|_| outside("is outside every sandbox root"))?;
        let escaped = || outside("resolves (through a symlink) outside the root");
        // An open that fails: a symlink escape is refused as such, any other error with `msg`.
        let open_failed = |e: &std::io::Error, msg: String| {
            if is_escape(e) {
                escaped()
            } else {
                refuse(prog, msg)
            }
        };
        match access {
            Access::Read => match dir.metadata(&rel) {
                Err(e) if is_escape(&e) => Err(escaped()),
                _ => Ok(()),
            },
            Access::WriteDir => {
                let d = dir.open_dir(&rel).map_err(|e| {
                    open_failed(
                        &e,
                        format!("{what} {v:?} is not a directory inside the root: {e}"),
                    )
                })?;
                if !sandbox.dotfiles_allowed() {
                    let real = sandbox.real_rel(root, &d);
                    for p in [Some(lexical_normalize(&rel)), real].into_iter().flatten() {
                        if let Some(why) = protected_reason(&p) {
                            return Err(refuse(prog, format!("{what} {v:?} is refused: {why}")));
                        }
                    }
                }
                Ok(())
            }
            Access::Write => {
                let name = match rel.components().next_back() {
                    Some(Component::Normal(n)) => n.to_owned(),
                    _ => return Err(refuse(prog, format!("{what} {v:?} does not name a file"))),
                };
                let parent_rel = match rel.parent() {
                    Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                    _ => PathBuf::from("."),
                };
                let parent = dir.open_dir(&parent_rel).map_err(|e| {
                    open_failed(
                        &e,
                        format!("{what} {v:?}: its directory cannot be opened: {e}"),
                    )
                })?;
                if parent
                    .symlink_metadata(&name)
                    .is_ok_and(|m| m.file_type().is_symlink())
                {
                    return Err(refuse(
                        prog,
                        format!(
                            "{what} {v:?} is a symlink; shell.exec does not write through symlinks"
                        ),
                    ));
                }
                sandbox
                    .guard_protected(v, root, &rel, &parent, &name)
                    .map_err(|e| e.with("program", prog.to_string()))
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// sed scripts

/// Checks a GNU sed script command by command; `Err` says why it is refused.
pub fn sed_script_check(script: &str) -> std::result::Result<(), String> {
    let s: Vec<char> = script.chars().collect();
    let mut i = 0;
    let n = s.len();
    // Scans a delimited part (regex or replacement) starting after the opening delimiter;
    // returns the index after the closing one.
    let scan = |mut i: usize, d: char| -> std::result::Result<usize, String> {
        while i < n {
            match s[i] {
                '\\' => i += 2,
                c if c == d => return Ok(i + 1),
                '\n' if d != '\n' => return Err("a newline inside a regex or replacement".into()),
                _ => i += 1,
            }
        }
        Err("an unterminated regex or replacement".into())
    };
    let skip_ws0 = |mut i: usize| {
        while i < n && (s[i] == ' ' || s[i] == '\t') {
            i += 1;
        }
        i
    };
    let to_eol = |mut i: usize| {
        while i < n && s[i] != '\n' {
            i += 1;
        }
        i
    };
    // A label ends where GNU sed ends it at the latest (whitespace, `;`, `}`, `#`, newline):
    // ending it early only makes more of the script checked as commands.
    let label_end = |mut i: usize| {
        i = skip_ws0(i);
        while i < n && !matches!(s[i], '\n' | ';' | '}' | '#' | ' ' | '\t') {
            i += 1;
        }
        i
    };
    let skip_ws = |mut i: usize| {
        while i < n && (s[i] == ' ' || s[i] == '\t') {
            i += 1;
        }
        i
    };
    // One address; returns the index after it.
    let address = |mut i: usize| -> std::result::Result<usize, String> {
        if i >= n {
            return Ok(i);
        }
        match s[i] {
            c if c.is_ascii_digit() => {
                while i < n && (s[i].is_ascii_digit() || s[i] == '~') {
                    i += 1;
                }
                Ok(i)
            }
            '$' => Ok(i + 1),
            '+' | '~' => {
                i += 1;
                while i < n && s[i].is_ascii_digit() {
                    i += 1;
                }
                Ok(i)
            }
            '/' | '\\' => {
                let d = if s[i] == '\\' {
                    i += 1;
                    *s.get(i).ok_or("a truncated address")?
                } else {
                    '/'
                };
                if d == '\n' || d == '\\' {
                    return Err("an address delimiter that is a newline or backslash".into());
                }
                i = scan(i + 1, d)?;
                while i < n && (s[i] == 'I' || s[i] == 'M') {
                    i += 1;
                }
                Ok(i)
            }
            _ => Ok(i),
        }
    };
    while i < n {
        // Separators and whitespace between commands.
        while i < n && matches!(s[i], ' ' | '\t' | '\n' | ';') {
            i += 1;
        }
        if i >= n {
            break;
        }
        if s[i] == '#' {
            i = to_eol(i);
            continue;
        }
        let start = i;
        i = address(i)?;
        if i > start {
            i = skip_ws(i);
            if i < n && s[i] == ',' {
                i = skip_ws(i + 1);
                let before = i;
                i = address(i)?;
                if i == before {
                    return Err("a second address is missing".into());
                }
            }
        }
        i = skip_ws(i);
        while i < n && s[i] == '!' {
            i = skip_ws(i + 1);
        }
        let Some(&cmd) = s.get(i) else {
            return Err("an address without a command".into());
        };
        i += 1;
        match cmd {
            '{' | '}' | '=' | 'd' | 'D' | 'g' | 'G' | 'h' | 'H' | 'n' | 'N' | 'p' | 'P' | 'x'
            | 'z' | 'F' => {}
            'q' | 'Q' | 'l' | 'L' => {
                i = skip_ws(i);
                while i < n && s[i].is_ascii_digit() {
                    i += 1;
                }
            }
            ':' | 'b' | 't' | 'T' => i = label_end(i),
            'v' => i = label_end(i),
            '#' => i = to_eol(i),
            'a' | 'i' | 'c' => {
                // Text to the end of the line; a backslash-newline continues it.
                while i < n && s[i] != '\n' {
                    i += if s[i] == '\\' { 2 } else { 1 };
                }
            }
            's' => {
                let d = *s.get(i).ok_or("a truncated s command")?;
                if d == '\n' || d == '\\' {
                    return Err("an s delimiter that is a newline or backslash".into());
                }
                i = scan(i + 1, d)?;
                i = scan(i, d)?;
                while i < n && !matches!(s[i], ';' | '\n' | '}' | '#' | ' ' | '\t') {
                    match s[i] {
                        'g' | 'p' | 'i' | 'I' | 'm' | 'M' => {}
                        c if c.is_ascii_digit() => {}
                        'e' => return Err("s///e runs the pattern space as a command".into()),
                        'w' | 'W' => return Err("s///w writes a file".into()),
                        c => return Err(format!("unknown s flag {c:?}")),
                    }
                    i += 1;
                }
            }
            'y' => {
                let d = *s.get(i).ok_or("a truncated y command")?;
                if d == '\n' || d == '\\' {
                    return Err("a y delimiter that is a newline or backslash".into());
                }
                i = scan(i + 1, d)?;
                i = scan(i, d)?;
            }
            'e' => return Err("the e command runs a program".into()),
            'w' | 'W' => return Err(format!("the {cmd} command writes a file")),
            'r' | 'R' => return Err(format!("the {cmd} command reads a file bob cannot vet")),
            c => return Err(format!("unknown or unchecked command {c:?}")),
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Rules file

/// A program spec given by the rules file, for a program without a built-in one.
///
/// ```json
/// {"options": "n|lines=number q|quiet", "deny": {"x": "why"}, "operands": ["read_path"],
///  "abbreviations": true}
/// ```
///
/// `options` is the option language of the built-in specs (see [`compile_opts`]): entries
/// `NAMES`, `NAMES=KIND` (required value) or `NAMES?=KIND` (optional), names `|`-separated, one
/// character = a short option; kinds: read_path, write_path, write_dir, read_path_list,
/// number, duration, pattern, format, text, git_arg. `operands` are the operand kinds by
/// position, the last repeating (empty: none allowed).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileSpec {
    #[serde(default)]
    pub options: String,
    #[serde(default)]
    pub deny: BTreeMap<String, String>,
    #[serde(default)]
    pub operands: Vec<Kind>,
    /// GNU getopt_long abbreviations of long options (default false: exact names only).
    #[serde(default)]
    pub abbreviations: bool,
}

/// One allow or deny prefix rule.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShellRule {
    pub action: RuleAction,
    pub prefix: Vec<String>,
    /// argv examples this rule must match.
    #[serde(default, rename = "match")]
    pub matches: Vec<Vec<String>>,
    /// argv examples this rule must not match.
    #[serde(default)]
    pub not_match: Vec<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// The argument spec of a program without a built-in one (allow rules only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<FileSpec>,
    #[serde(skip)]
    compiled: Option<ProgramSpec>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RuleAction {
    Allow,
    Deny,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct RulesFile {
    #[serde(default)]
    about: Option<String>,
    #[serde(default)]
    version: Option<u32>,
    rules: Vec<ShellRule>,
}

/// A loaded, example-checked rule set.
#[derive(Debug, Clone)]
pub struct ShellRules {
    pub rules: Vec<ShellRule>,
    pub source: String,
}

impl ShellRule {
    fn matches(&self, argv: &[String]) -> bool {
        !self.prefix.is_empty()
            && argv.len() >= self.prefix.len()
            && self.prefix.iter().zip(argv).all(|(p, a)| p == a)
    }
}

impl ShellRules {
    /// The rules compiled into bob (`policy/shell-rules.json`).
    /// Parsed and example-checked once per process.
    pub fn builtin() -> Result<ShellRules> {
        static BUILTIN: OnceLock<ShellRules> = OnceLock::new();
        if let Some(r) = BUILTIN.get() {
            return Ok(r.clone());
        }
        let r = Self::parse(BUILTIN_RULES, "builtin:policy/shell-rules.json")?;
        Ok(BUILTIN.get_or_init(|| r).clone())
    }

    /// A rules file (JSON). Any rule whose examples do not hold refuses the whole file.
    pub fn load_file(path: &Path) -> Result<ShellRules> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        Self::parse(&text, &path.display().to_string())
            .map_err(|e| e.with("path", path.display().to_string()))
    }

    /// Parses and verifies a rules document.
    pub fn parse(text: &str, source: &str) -> Result<ShellRules> {
        let mut file: RulesFile = serde_json::from_str(text)
            .map_err(|e| Error::bad_json(&format!("shell rules {source}"), &e))?;
        for (i, r) in file.rules.iter_mut().enumerate() {
            let name = format!("rule {} ({:?} {:?})", i + 1, r.action, r.prefix);
            let bad = |msg: String| {
                Error::invalid(format!("shell rules {source}: {name}{msg}")).with("rule", i + 1)
            };
            if r.prefix.is_empty() {
                return Err(bad(" has an empty prefix".into()));
            }
            if r.matches.is_empty() {
                return Err(bad(" carries no `match` example".into()));
            }
            for ex in &r.matches {
                if !r.matches(ex) {
                    return Err(bad(format!(": its example {ex:?} does not match it")));
                }
            }
            for ex in &r.not_match {
                if r.matches(ex) {
                    return Err(bad(format!(": its not_match example {ex:?} matches it")));
                }
            }
            if let Some(fs) = &r.spec {
                if r.action != RuleAction::Allow {
                    return Err(bad(": only an allow rule may carry a spec".into()));
                }
                if has_builtin(&r.prefix[0]) {
                    return Err(bad(format!(
                        ": {:?} has a built-in spec, which a rules file cannot replace",
                        r.prefix[0]
                    )));
                }
                let deny: Vec<(&str, &str)> = fs
                    .deny
                    .iter()
                    .map(|(k, v)| (k.as_str(), v.as_str()))
                    .collect();
                let opts =
                    compile_opts(&fs.options, &deny).map_err(|e| bad(format!(": spec: {e}")))?;
                r.compiled = Some(ProgramSpec {
                    name: r.prefix[0].clone(),
                    opts,
                    operands: fs.operands.clone(),
                    abbrev: fs.abbreviations,
                    numeric: false,
                });
            }
        }
        let rules = ShellRules {
            rules: file.rules,
            source: source.to_string(),
        };
        // Every allow example must also pass the program's spec (syntax and lexical paths).
        for (i, r) in rules.rules.iter().enumerate() {
            if r.action != RuleAction::Allow {
                continue;
            }
            for ex in &r.matches {
                let ctx = Ctx {
                    sandbox: None,
                    base: PathBuf::new(),
                };
                if let Err(e) = vet_with(ex, &ctx, &rules) {
                    return Err(Error::invalid(format!(
                        "shell rules {source}: rule {} ({:?}): its example {ex:?} is refused by the program's spec: {}",
                        i + 1,
                        r.prefix,
                        e.message
                    ))
                    .with("rule", i + 1));
                }
            }
        }
        Ok(rules)
    }

    /// Allow/deny by prefix: a deny match wins; no allow match is a denial. Returns the
    /// allow rule that matched (the longest prefix).
    pub fn decide(&self, argv: &[String]) -> Result<&ShellRule> {
        if let Some(r) = self
            .rules
            .iter()
            .find(|r| r.action == RuleAction::Deny && r.matches(argv))
        {
            return Err(
                Error::denied(format!("command denied by the shell rule {:?}", r.prefix))
                    .with("rule", r.prefix.join(" ")),
            );
        }
        self.rules
            .iter()
            .filter(|r| r.action == RuleAction::Allow && r.matches(argv))
            .max_by_key(|r| r.prefix.len())
            .ok_or_else(|| {
                Error::denied(format!(
                    "command {:?} is not on the shell allowlist ({})",
                    argv.iter().take(2).cloned().collect::<Vec<_>>().join(" "),
                    self.source
                ))
            })
    }

    /// The rules file's spec for a program, if an allow rule for it carries one.
    fn file_spec(&self, prog: &str) -> Option<&ProgramSpec> {
        self.rules
            .iter()
            .filter(|r| r.action == RuleAction::Allow && r.prefix[0] == prog)
            .find_map(|r| r.compiled.as_ref())
    }
}

// ---------------------------------------------------------------------------------------------
// Splitting and vetting

fn deny(msg: impl Into<String>) -> Error {
    Error::denied(msg)
}

/// Refuses shell operators outside quotes (there is no shell to interpret them).
pub fn check_operators(cmd: &str) -> Result<()> {
    let (mut single, mut double, mut escaped) = (false, false, false);
    for c in cmd.chars() {
        if escaped {
            escaped = false;
            continue;
        }
        match c {
            '\\' if !single => escaped = true,
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '|' | ';' | '&' | '<' | '>' | '$' | '`' | '(' | ')' | '\n' | '\r'
                if !single && !double =>
            {
                return Err(deny(format!(
                    "shell operator {c:?} is not allowed: shell.exec runs one program without a shell (no pipes, redirection, chaining or expansion)"
                ))
                .with("operator", c.to_string()));
            }
            _ => {}
        }
    }
    Ok(())
}

/// Splits a command line into argv (no shell).
pub fn split(cmd: &str) -> Result<Vec<String>> {
    check_operators(cmd)?;
    let argv = shlex::split(cmd).ok_or_else(|| {
        Error::new(
            Code::ToolInputInvalid,
            "cmd has unbalanced quotes or a trailing backslash",
        )
    })?;
    if argv.is_empty() {
        return Err(Error::new(Code::ToolInputInvalid, "cmd is empty"));
    }
    if argv.iter().any(|a| a.contains('\0')) {
        return Err(Error::new(
            Code::ToolInputInvalid,
            "cmd contains a NUL byte",
        ));
    }
    Ok(argv)
}

/// The second line: refusals by program name, whatever the rules file says.
fn check_program(argv: &[String]) -> Result<()> {
    let prog = argv[0].as_str();
    if prog.contains('/') {
        return Err(deny(format!(
            "program {prog:?} is a path: name an allowlisted program (looked up on {SAFE_PATH})"
        )));
    }
    if WRAPPERS.contains(&prog) {
        return Err(deny(format!(
            "{prog} runs other programs or reaches the network and is not allowed"
        )));
    }
    if ALWAYS_DENIED.contains(&prog) {
        return Err(deny(format!(
            "{prog} can run code or write arbitrary files and is not allowed"
        )));
    }
    let base = prog.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    if INTERPRETERS.contains(&prog) || INTERPRETERS.contains(&base) {
        for a in &argv[1..] {
            let short = a.starts_with('-')
                && !a.starts_with("--")
                && a[1..].chars().any(|c| "ceEpr".contains(c));
            let long = [
                "--eval",
                "--command",
                "--print",
                "--exec",
                "--require",
                "--import",
            ]
            .iter()
            .any(|n| a == n || a.starts_with(&format!("{n}=")));
            if short || long {
                return Err(deny(format!(
                    "{prog} {a}: inline code for an interpreter is not allowed"
                )));
            }
        }
    }
    Ok(())
}

/// Vets a command: program name, the rules file, then the program's spec with every option
/// value and operand checked by kind. `cwd` is the command's working directory relative to
/// the first root (`.` for the root). Returns the argv to run and the extra environment.
pub fn vet(argv: &[String], sandbox: &Sandbox, cwd: &str, rules: &ShellRules) -> Result<Vetted> {
    let ctx = Ctx {
        sandbox: Some(sandbox),
        base: PathBuf::from(cwd),
    };
    vet_with(argv, &ctx, rules)
}

fn vet_with(argv: &[String], ctx: &Ctx, rules: &ShellRules) -> Result<Vetted> {
    if argv.is_empty() {
        return Err(Error::new(Code::ToolInputInvalid, "cmd is empty"));
    }
    check_program(argv)?;
    rules.decide(argv)?;
    let prog = argv[0].as_str();
    let args = &argv[1..];
    let plain = || Vetted {
        argv: argv.to_vec(),
        env: Vec::new(),
    };
    if TEXT_ONLY.contains(&prog) {
        return Ok(plain());
    }
    match prog {
        "find" => return vet_find(args, ctx).map(|()| plain()),
        "git" => return vet_git(args, ctx),
        _ => {}
    }
    let spec = match builtin_spec(prog).or_else(|| rules.file_spec(prog)) {
        Some(s) => s,
        None => {
            return Err(deny(format!(
                "{prog} has no argument spec: bob knows what {prog} may do only when a built-in spec or the rules file's allow rule (`spec`) says so"
            ))
            .with("program", prog.to_string()));
        }
    };
    let parsed = parse(spec, args)?;
    check_found(spec, &parsed, ctx)?;
    let mut out = plain();
    match prog {
        "sed" => {
            let pieces: Vec<&str> = parsed.values(spec, "expression").collect();
            let (script, files) = if pieces.is_empty() {
                let Some((s, rest)) = parsed.operands.split_first() else {
                    return Err(refuse("sed", "no script given"));
                };
                (s.clone(), rest)
            } else {
                (pieces.join("\n"), &parsed.operands[..])
            };
            ctx.check("sed", "script", SedScript, &script)?;
            for f in files {
                ctx.check("sed", "input file", ReadPath, f)?;
            }
            out.argv.insert(1, "--sandbox".into());
        }
        "grep" | "rg" => {
            let explicit = ["regexp", "file", "files", "type-list"]
                .iter()
                .any(|k| parsed.has(spec, k));
            let files = if explicit {
                &parsed.operands[..]
            } else {
                parsed.operands.get(1..).unwrap_or(&[])
            };
            for f in files {
                ctx.check(prog, "file operand", ReadPath, f)?;
            }
        }
        "date" => {
            if parsed.operands.len() > 1 {
                return Err(refuse("date", "takes at most one +FORMAT operand"));
            }
            check_operands(spec, &parsed.operands, ctx)?;
        }
        "diff" => {
            check_operands(spec, &parsed.operands, ctx)?;
            if parsed.has(spec, "recursive") && !parsed.has(spec, "no-dereference") {
                out.argv.insert(1, "--no-dereference".into());
            }
        }
        _ => {
            check_operands(spec, &parsed.operands, ctx)?;
            if builtin_spec(prog).is_none() {
                // A file-given spec: the old generic scan stays as a second line.
                generic_path_scan(prog, args, ctx)?;
            }
        }
    }
    Ok(out)
}

fn check_found(spec: &ProgramSpec, parsed: &Parsed, ctx: &Ctx) -> Result<()> {
    for f in &parsed.found {
        if f.idx == usize::MAX {
            continue;
        }
        if let (Takes::Required(k) | Takes::Optional(k), Some(v)) =
            (spec.opts[f.idx].takes, &f.value)
        {
            ctx.check(&spec.name, &format!("{} value", f.name), k, v)?;
        }
    }
    Ok(())
}

fn check_operands(spec: &ProgramSpec, operands: &[String], ctx: &Ctx) -> Result<()> {
    for (i, o) in operands.iter().enumerate() {
        let Some(kind) = spec.operands.get(i).or(spec.operands.last()) else {
            return Err(refuse(&spec.name, format!("takes no operands (got {o:?})")));
        };
        ctx.check(&spec.name, "operand", *kind, o)?;
    }
    Ok(())
}

/// For programs specified by the rules file: any absolute or `..` argument must stay inside.
fn generic_path_scan(prog: &str, args: &[String], ctx: &Ctx) -> Result<()> {
    for a in args {
        let value = if a.starts_with('-') {
            a.split_once('=').map(|(_, v)| v)
        } else {
            Some(a.as_str())
        };
        if let Some(v) = value
            && (v.starts_with('/') || v.contains(".."))
        {
            ctx.path(prog, "argument", v, Access::Read)?;
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// find

fn vet_find(args: &[String], ctx: &Ctx) -> Result<()> {
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

// ---------------------------------------------------------------------------------------------
// git

/// Configuration git gets through `GIT_CONFIG_COUNT` (command scope: beats the repository's).
pub const GIT_CONFIG: &[(&str, &str)] = &[
    ("core.fsmonitor", "false"),
    ("core.hooksPath", "/dev/null"),
    ("core.pager", "cat"),
    ("core.editor", "false"),
    ("core.sshCommand", "false"),
    ("core.askPass", "false"),
    ("core.attributesFile", "/dev/null"),
    ("diff.external", ""),
    ("log.showSignature", "false"),
    ("gpg.program", "false"),
    ("gpg.ssh.program", "false"),
    ("gpg.x509.program", "false"),
    ("protocol.allow", "never"),
    ("safe.bareRepository", "explicit"),
    ("safe.directory", "*"),
];

/// Fixed environment for git (see the module docs).
pub const GIT_ENV: &[(&str, &str)] = &[
    ("GIT_CONFIG_NOSYSTEM", "1"),
    ("GIT_CONFIG_SYSTEM", "/dev/null"),
    ("GIT_CONFIG_GLOBAL", "/dev/null"),
    ("GIT_ATTR_NOSYSTEM", "1"),
    ("GIT_PAGER", "cat"),
    ("PAGER", "cat"),
    ("GIT_TERMINAL_PROMPT", "0"),
    ("GIT_OPTIONAL_LOCKS", "0"),
    ("GIT_NO_LAZY_FETCH", "1"),
];

fn git_env(ctx: &Ctx) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = GIT_ENV
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    env.push(("GIT_CONFIG_COUNT".into(), GIT_CONFIG.len().to_string()));
    for (i, (k, v)) in GIT_CONFIG.iter().enumerate() {
        env.push((format!("GIT_CONFIG_KEY_{i}"), k.to_string()));
        env.push((format!("GIT_CONFIG_VALUE_{i}"), v.to_string()));
    }
    if let Some(sb) = ctx.sandbox {
        let ceilings: Vec<String> = sb
            .root_paths()
            .filter_map(|r| std::fs::canonicalize(r).ok())
            .filter_map(|r| r.parent().map(|p| p.display().to_string()))
            .collect();
        if !ceilings.is_empty() {
            env.push(("GIT_CEILING_DIRECTORIES".into(), ceilings.join(":")));
        }
    }
    env
}

const GIT_GLOBAL_FLAGS: &[&str] = &[
    "--no-pager",
    "-P",
    "--no-replace-objects",
    "--literal-pathspecs",
    "--glob-pathspecs",
    "--noglob-pathspecs",
    "--icase-pathspecs",
    "--no-optional-locks",
    "--no-advice",
];

fn vet_git(args: &[String], ctx: &Ctx) -> Result<Vetted> {
    let mut i = 0;
    let mut base = ctx.base.clone();
    let mut globals: Vec<String> = Vec::new();
    let value_of = |i: usize, a: &str, name: &str| -> Result<(String, usize)> {
        match a.strip_prefix(&format!("{name}=")) {
            Some(v) => Ok((v.to_string(), i + 1)),
            None if a == name => args
                .get(i + 1)
                .map(|v| (v.clone(), i + 2))
                .ok_or_else(|| refuse("git", format!("{name} needs a value"))),
            None => Err(refuse("git", format!("unknown global option {a:?}"))),
        }
    };
    while let Some(a) = args.get(i) {
        let a = a.as_str();
        if !a.starts_with('-') {
            break;
        }
        if GIT_GLOBAL_FLAGS.contains(&a) {
            globals.push(a.to_string());
            i += 1;
        } else if a == "-C" {
            let dir = args
                .get(i + 1)
                .ok_or_else(|| refuse("git", "-C needs a directory"))?;
            ctx.check("git", "-C directory", ReadPath, dir)?;
            base = if Path::new(dir).is_absolute() {
                PathBuf::from(dir)
            } else {
                base.join(dir)
            };
            globals.extend([a.to_string(), dir.clone()]);
            i += 2;
        } else if a == "--work-tree" || a.starts_with("--work-tree=") {
            let (v, next) = value_of(i, a, "--work-tree")?;
            ctx.check("git", "--work-tree", ReadPath, &v)?;
            globals.push(format!("--work-tree={v}"));
            i = next;
        } else if a == "--git-dir" || a.starts_with("--git-dir=") {
            let (v, next) = value_of(i, a, "--git-dir")?;
            ctx.check("git", "--git-dir", ReadPath, &v)?;
            let last = Path::new(&v)
                .components()
                .rfind(|c| matches!(c, Component::Normal(_)))
                .map(|c| c.as_os_str().to_string_lossy().into_owned());
            if last.as_deref() != Some(".git") {
                return Err(refuse(
                    "git",
                    format!(
                        "--git-dir {v:?} must name a .git directory inside the root (a look-alike directory could carry its own config)"
                    ),
                ));
            }
            globals.push(format!("--git-dir={v}"));
            i = next;
        } else {
            let why = match a.split('=').next().unwrap_or(a) {
                "-c" | "--config-env" => "sets configuration (which can run programs)",
                "--exec-path" => "chooses where git finds its programs",
                "-p" | "--paginate" => "starts a pager",
                "--namespace" | "--bare" | "--super-prefix" | "--list-cmds" => "is not allowed",
                _ => "is not an allowed global option",
            };
            return Err(
                refuse("git", format!("global option {a} {why}")).with("option", a.to_string())
            );
        }
    }
    let Some(sub) = args.get(i) else {
        return Err(refuse("git", "no subcommand given"));
    };
    let name = format!("git {sub}");
    let spec = builtin_spec(&name).ok_or_else(|| {
        refuse(
            "git",
            format!("subcommand {sub:?} is not allowed (allowed: status, log, diff, show, ls-files, rev-parse, branch, blame)"),
        )
    })?;
    let rest = &args[i + 1..];
    let parsed = parse(spec, rest)?;
    let sub_ctx = Ctx {
        sandbox: ctx.sandbox,
        base,
    };
    check_found(spec, &parsed, &sub_ctx)?;
    if sub == "branch" && !parsed.operands.is_empty() {
        let list = [
            "list",
            "contains",
            "no-contains",
            "merged",
            "no-merged",
            "points-at",
            "verbose",
        ]
        .iter()
        .any(|k| parsed.has(spec, k));
        if !list {
            return Err(refuse(
                "git branch",
                format!(
                    "a branch name operand ({:?}) creates a branch; git branch may only list (use --list PATTERN)",
                    parsed.operands[0]
                ),
            ));
        }
    }
    check_operands(spec, &parsed.operands, &sub_ctx)?;
    let mut argv = vec!["git".to_string(), "--no-pager".to_string()];
    argv.extend(globals.into_iter().filter(|g| g != "--no-pager"));
    argv.push(sub.clone());
    match sub.as_str() {
        "diff" | "log" | "show" => argv.extend(["--no-ext-diff".into(), "--no-textconv".into()]),
        "blame" => argv.push("--no-textconv".into()),
        _ => {}
    }
    argv.extend(rest.iter().cloned());
    Ok(Vetted {
        argv,
        env: git_env(ctx),
    })
}

#[cfg(test)]
mod tests {
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
                let val = (!optarg.is_null())
                    .then(|| CStr::from_ptr(optarg).to_string_lossy().into_owned());
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
}
