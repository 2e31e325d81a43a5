//! The built-in program specs, as data: one [`Row`] per program or git subcommand.
//!
//! A `const` table rather than a JSON/TOML file: the kinds are checked by the compiler, a typo
//! in a kind name cannot reach a user, and nothing is parsed at startup beyond the option
//! strings themselves (compiled once, on first use, by [`builtin_spec`]).

use super::spec::Kind::{self, *};
use super::spec::{ProgramSpec, TEXT_ONLY, spec};
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// One built-in spec.
pub(super) struct Row {
    /// The program (`"ls"`) or git subcommand (`"git status"`).
    pub name: &'static str,
    /// The option language of `compile_opts`, in pieces joined by a space.
    pub options: &'static [&'static str],
    /// Why refused options are refused, keyed by any of the option's names.
    pub deny: &'static [(&'static str, &'static str)],
    /// Operand kinds by position; the last one repeats. Empty: no operands.
    pub operands: &'static [Kind],
    /// A GNU getopt_long program: long options may be abbreviated to a unique prefix, and
    /// `--help`/`--version` are added. Otherwise only exact long names are accepted.
    pub gnu: bool,
    /// `-NUM` is an option (head, tail, git log).
    pub numeric: bool,
}

/// Why an option that follows symlinks is refused.
pub(super) const FOLLOWS_OUT: &str = "follows symlinks, which can lead out of the sandbox root";
/// Why an option that reads file names from a file is refused.
pub(super) const UNVETTED_NAMES: &str = "reads file names from a file, and bob cannot vet the names inside it; name the files as operands";

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

/// Options only `git diff` has, beside [`GIT_DIFF_OPTS`].
const GIT_DIFF_ONLY_OPTS: &str = "cached staged merge-base base|1 ours|2 theirs|3 0 !no-index";

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

/// Why git log, show and diff refuse what they refuse.
const GIT_LOG_DENY: &[(&str, &str)] = &[
    ("ext-diff", "runs an external diff program"),
    ("textconv", "runs textconv filter programs"),
    ("output", "writes to a file; read the output instead"),
    ("O", "is not allowed"),
    ("show-signature", "runs gpg to verify signatures"),
    (
        "no-index",
        "compares arbitrary files outside the repository",
    ),
];

/// Every built-in spec.
pub(super) const BUILTIN_SPECS: &[Row] = &[
    Row {
        name: "ls",
        options: &[
            "a|all A|almost-all author b|escape block-size=text B|ignore-backups c C \
          color?=word d|directory D|dired f F|classify?=word file-type format=word \
          full-time g group-directories-first G|no-group h|human-readable si \
          H|dereference-command-line dereference-command-line-symlink-to-dir \
          hide=pat hyperlink?=word indicator-style=word i|inode I|ignore=pat \
          k|kibibytes l !L|dereference m n|numeric-uid-gid N|literal o p q|hide-control-chars \
          show-control-chars Q|quote-name quoting-style=word r|reverse R|recursive \
          s|size S sort=word time=word time-style=fmt t T|tabsize=num u U v \
          w|width=num x X Z|context zero 1",
        ],
        deny: &[("dereference", FOLLOWS_OUT)],
        operands: &[ReadPath],
        gnu: true,
        numeric: false,
    },
    Row {
        name: "cat",
        options: &[
            "A|show-all b|number-nonblank e E|show-ends n|number s|squeeze-blank t \
          T|show-tabs u v|show-nonprinting",
        ],
        deny: &[],
        operands: &[ReadPath],
        gnu: true,
        numeric: false,
    },
    Row {
        name: "head",
        options: &["c|bytes=num n|lines=num q|quiet|silent v|verbose z|zero-terminated"],
        deny: &[],
        operands: &[ReadPath],
        gnu: true,
        numeric: true,
    },
    Row {
        name: "tail",
        options: &[
            "c|bytes=num f|follow?=word F n|lines=num max-unchanged-stats=num pid=num \
          q|quiet|silent retry s|sleep-interval=num v|verbose z|zero-terminated",
        ],
        deny: &[],
        operands: &[ReadPath],
        gnu: true,
        numeric: true,
    },
    Row {
        name: "wc",
        options: &[
            "c|bytes m|chars l|lines files0-from=names0 L|max-line-length w|words total=word",
        ],
        deny: &[],
        operands: &[ReadPath],
        gnu: true,
        numeric: false,
    },
    Row {
        name: "grep",
        options: &[
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
        ],
        deny: &[("dereference-recursive", FOLLOWS_OUT)],
        operands: &[Pattern, ReadPath],
        gnu: true,
        numeric: false,
    },
    Row {
        name: "rg",
        options: &[
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
        ],
        deny: &[
            ("pre", "runs a preprocessor program on every file"),
            ("pre-glob", "selects files for a preprocessor program"),
            ("search-zip", "runs decompression programs"),
            ("follow", FOLLOWS_OUT),
            ("hostname-bin", "runs a program"),
        ],
        operands: &[Pattern, ReadPath],
        gnu: false,
        numeric: false,
    },
    Row {
        name: "pwd",
        options: &["L|logical P|physical"],
        deny: &[],
        operands: &[],
        gnu: true,
        numeric: false,
    },
    Row {
        name: "stat",
        options: &["L|dereference f|file-system cached=word c|format=fmt printf=fmt t|terse"],
        deny: &[],
        operands: &[ReadPath],
        gnu: true,
        numeric: false,
    },
    Row {
        name: "file",
        options: &[
            "b|brief !C|compile c|checking-printout d E e|exclude=text exclude-quiet=text \
          extension F|separator=text !f|files-from=read h|no-dereference i|mime apple \
          mime-type mime-encoding k|keep-going l|list L|dereference \
          m|magic-file=readlist N|no-pad n|no-buffer 0|print0 p|preserve-date \
          P|parameter=text r|raw s|special-files !S|no-sandbox v \
          !z|uncompress !Z|uncompress-noreport",
        ],
        deny: &[
            ("compile", "writes a compiled magic file"),
            ("files-from", UNVETTED_NAMES),
            ("no-sandbox", "turns off file's own seccomp sandbox"),
            ("uncompress", "runs decompression programs"),
            ("uncompress-noreport", "runs decompression programs"),
        ],
        operands: &[ReadPath],
        gnu: true,
        numeric: false,
    },
    Row {
        name: "du",
        options: &[
            "0|null a|all apparent-size B|block-size=text b|bytes c|total \
          D|H|dereference-args d|max-depth=num files0-from=names0 h|human-readable \
          inodes k !L|dereference l|count-links m P|no-dereference S|separate-dirs si \
          s|summarize t|threshold=num time?=word time-style=fmt X|exclude-from=read \
          exclude=pat x|one-file-system",
        ],
        deny: &[("dereference", FOLLOWS_OUT)],
        operands: &[ReadPath],
        gnu: true,
        numeric: false,
    },
    Row {
        name: "sort",
        options: &["b|ignore-leading-blanks d|dictionary-order f|ignore-case \
          g|general-numeric-sort i|ignore-nonprinting M|month-sort \
          h|human-numeric-sort n|numeric-sort R|random-sort random-source=read \
          r|reverse sort=word V|version-sort batch-size=num c check?=word C \
          !compress-program=text debug files0-from=names0 k|key=text m|merge \
          o|output=write s|stable S|buffer-size=num t|field-separator=text \
          T|temporary-directory=wdir parallel=num u|unique z|zero-terminated"],
        deny: &[(
            "compress-program",
            "runs the named program on sort's temporary files",
        )],
        operands: &[ReadPath],
        gnu: true,
        numeric: false,
    },
    Row {
        name: "uniq",
        options: &[
            "c|count d|repeated D all-repeated?=word f|skip-fields=num group?=word \
          i|ignore-case s|skip-chars=num u|unique z|zero-terminated w|check-chars=num",
        ],
        deny: &[],
        operands: &[ReadPath, WritePath],
        gnu: true,
        numeric: false,
    },
    Row {
        name: "cut",
        options: &[
            "b|bytes=text c|characters=text d|delimiter=text f|fields=text n complement \
          s|only-delimited output-delimiter=text z|zero-terminated",
        ],
        deny: &[],
        operands: &[ReadPath],
        gnu: true,
        numeric: false,
    },
    Row {
        name: "tr",
        options: &["c|C|complement d|delete s|squeeze-repeats t|truncate-set1"],
        deny: &[],
        operands: &[Text],
        gnu: true,
        numeric: false,
    },
    Row {
        name: "diff",
        options: &[
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
        ],
        deny: &[("paginate", "runs the pr program")],
        operands: &[ReadPath],
        gnu: true,
        numeric: false,
    },
    Row {
        name: "sed",
        options: &[
            "n|quiet|silent debug e|expression=sed !f|file=read follow-symlinks \
          !i|in-place?=text l|line-length=num posix E|r|regexp-extended s|separate \
          sandbox u|unbuffered z|null-data|zero-terminated b|binary",
        ],
        deny: &[
            ("in-place", "edits files in place"),
            (
                "file",
                "reads the script from a file bob cannot vet; pass it with -e",
            ),
        ],
        operands: &[SedScript, ReadPath],
        gnu: true,
        numeric: false,
    },
    Row {
        name: "date",
        options: &["d|date=text debug f|file=read I|iso-8601?=word resolution \
          R|rfc-email|rfc-822|rfc-2822 rfc-3339=word r|reference=read !s|set=text \
          u|utc|universal|uct"],
        deny: &[("set", "sets the system clock; date may print, not set")],
        operands: &[DateFormat],
        gnu: true,
        numeric: false,
    },
    Row {
        name: "sleep",
        options: &[""],
        deny: &[],
        operands: &[Duration],
        gnu: true,
        numeric: false,
    },
    Row {
        name: "sha256sum",
        options: &["b|binary !c|check tag t|text z|zero ignore-missing quiet status strict w|warn"],
        deny: &[(
            "check",
            "reads the files named inside the check file, which bob cannot vet",
        )],
        operands: &[ReadPath],
        gnu: true,
        numeric: false,
    },
    Row {
        name: "git status",
        options: &[
            "s|short b|branch show-stash porcelain?=text long v|verbose \
          u|untracked-files?=text ignored?=text ignore-submodules?=text z column?=text \
          no-column ahead-behind no-ahead-behind renames no-renames find-renames?=num",
        ],
        deny: &[],
        operands: &[GitArg],
        gnu: false,
        numeric: false,
    },
    Row {
        name: "git log",
        options: &[GIT_DIFF_OPTS, GIT_REV_OPTS],
        deny: GIT_LOG_DENY,
        operands: &[GitArg],
        gnu: false,
        numeric: true,
    },
    Row {
        name: "git show",
        options: &[GIT_DIFF_OPTS, GIT_REV_OPTS],
        deny: GIT_LOG_DENY,
        operands: &[GitArg],
        gnu: false,
        numeric: false,
    },
    Row {
        name: "git diff",
        options: &[GIT_DIFF_OPTS, GIT_DIFF_ONLY_OPTS],
        deny: GIT_LOG_DENY,
        operands: &[GitArg],
        gnu: false,
        numeric: false,
    },
    Row {
        name: "git ls-files",
        options: &[
            "c|cached d|deleted m|modified o|others i|ignored s|stage u|unmerged k|killed \
          resolve-undo z t v f full-name recurse-submodules abbrev?=num x|exclude=pat \
          X|exclude-from=read exclude-per-directory=text exclude-standard error-unmatch \
          with-tree=text directory no-empty-directory eol deduplicate sparse format=fmt \
          debug",
        ],
        deny: &[],
        operands: &[GitArg],
        gnu: false,
        numeric: false,
    },
    Row {
        name: "git rev-parse",
        options: &[
            "show-toplevel show-prefix show-cdup git-dir absolute-git-dir git-common-dir \
          is-inside-work-tree is-inside-git-dir is-bare-repository is-shallow-repository \
          show-superproject-working-tree shared-index-path show-object-format?=text \
          show-ref-format abbrev-ref?=text short?=num verify q|quiet symbolic \
          symbolic-full-name all branches?=pat tags?=pat remotes?=pat glob=pat exclude=pat \
          disambiguate=text since=text after=text until=text before=text default=text \
          revs-only no-revs flags no-flags sq sq-quote not prefix=text local-env-vars \
          path-format=text",
        ],
        deny: &[],
        operands: &[GitArg],
        gnu: false,
        numeric: false,
    },
    Row {
        name: "git branch",
        options: &[
            "a|all r|remotes l|list v|verbose q|quiet i|ignore-case omit-empty color?=word \
          no-color column?=text no-column sort=word merged?=git no-merged?=git \
          contains?=git no-contains?=git points-at=git format=fmt show-current abbrev=num \
          no-abbrev \
          !d|delete !D !f|force !m|move !M !c|copy !C !u|set-upstream-to=text \
          !unset-upstream !edit-description !t|track?=text !no-track !create-reflog \
          !recurse-submodules",
        ],
        deny: &[
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
        operands: &[Text],
        gnu: false,
        numeric: false,
    },
    Row {
        name: "git blame",
        options: &[
            "L=text s l t b root show-stats score-debug f|show-name n|show-number p|porcelain \
          line-porcelain incremental c w M?=num C?=num e|show-email date=text progress \
          no-progress abbrev=num minimal since=text reverse first-parent ignore-rev=git \
          ignore-revs-file=read color-lines color-by-age contents=read S=read encoding=text \
          no-textconv !textconv",
        ],
        deny: &[("textconv", "runs textconv filter programs")],
        operands: &[GitArg],
        gnu: false,
        numeric: false,
    },
];

/// The built-in specs, compiled from [`BUILTIN_SPECS`] once per process.
pub(super) fn builtin_specs() -> &'static BTreeMap<String, ProgramSpec> {
    static SPECS: OnceLock<BTreeMap<String, ProgramSpec>> = OnceLock::new();
    SPECS.get_or_init(|| {
        BUILTIN_SPECS
            .iter()
            .map(|row| {
                let mut dsl = row.options.join(" ");
                if row.gnu {
                    dsl.push_str(" help version");
                }
                let s = spec(row.name, &dsl, row.deny, row.operands, row.gnu, row.numeric);
                (s.name.clone(), s)
            })
            .collect()
    })
}
/// The built-in spec of a program (`"ls"`) or git subcommand (`"git status"`).
pub fn builtin_spec(name: &str) -> Option<&'static ProgramSpec> {
    builtin_specs().get(name)
}

/// Programs with a built-in spec (a rules file may not give them another).
pub(super) fn has_builtin(prog: &str) -> bool {
    prog == "git" || prog == "find" || TEXT_ONLY.contains(&prog) || builtin_spec(prog).is_some()
}
