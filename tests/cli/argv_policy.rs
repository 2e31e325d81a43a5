//! The argv allowlist of `shell.exec` and the protected paths of `fs.write_text`, through the
//! real binary: every bypass of issue 11 is refused with `policy.denied` and its side effect
//! does not happen; ordinary uses still work.

use crate::TestEnv;
use crate::support::code;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

const CANARY: &str = "CANARY-ARGV-OUTSIDE-51c2";

fn setup(env: &TestEnv) -> PathBuf {
    let root = env.path("root");
    std::fs::create_dir_all(root.join("sub")).unwrap();
    std::fs::write(root.join("f.txt"), "alpha\nbeta\ngamma\n").unwrap();
    std::fs::write(root.join("in.txt"), "pear\napple\nfig\n").unwrap();
    std::fs::write(root.join("README.md"), "# readme\n").unwrap();
    std::fs::write(root.join("pats.txt"), "beta\n").unwrap();
    std::fs::write(root.join("script.sed"), "1e touch MARK\n").unwrap();
    let outside = env.path("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), CANARY).unwrap();
    let sym =
        |target: &Path, link: &str| std::os::unix::fs::symlink(target, root.join(link)).unwrap();
    sym(Path::new("/etc/shadow"), "link");
    sym(&outside.join("secret.txt"), "canary_link");
    sym(&outside, "dir_out");
    sym(&outside.join("new.txt"), "dangling_out");
    sym(Path::new("../outside/secret.txt"), "rel_link");
    root
}

fn tool_run<'a>(root: &'a Path, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "tool",
        "run",
        "--enable-all",
        "--root",
        root.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    args
}

fn call(env: &TestEnv, root: &Path, extra: &[&str], tool: &str, args: Value) -> Value {
    let stdin = json!([{"id": "t1", "tool": tool, "args": args}]).to_string();
    env.jsonl(&tool_run(root, extra), &stdin).remove(0)
}

fn shell(env: &TestEnv, root: &Path, cmd: &str) -> Value {
    call(
        env,
        root,
        &[],
        "shell.exec",
        json!({"cmd": cmd, "timeout_s": 10}),
    )
}

fn write(env: &TestEnv, root: &Path, extra: &[&str], path: &str, text: &str) -> Value {
    call(
        env,
        root,
        extra,
        "fs.write_text",
        json!({"path": path, "text": text, "overwrite": true}),
    )
}

fn git(dir: &Path, args: &[&str]) {
    let st = std::process::Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.com",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .expect("git is installed");
    assert!(
        st.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&st.stderr)
    );
}

fn repo(root: &Path) {
    git(root, &["init", "-q"]);
    git(root, &["add", "f.txt", "README.md"]);
    git(root, &["commit", "-qm", "first"]);
    git(root, &["branch", "x"]);
}

fn branches(root: &Path) -> Vec<String> {
    let out = std::process::Command::new("git")
        .args(["for-each-ref", "--format=%(refname:short)", "refs/heads"])
        .current_dir(root)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

/// Every argv-level bypass of issue 11 (and its variants): refused, nothing happened.
#[test]
fn attack_corpus_is_refused_with_no_side_effect() {
    let env = TestEnv::new();
    let root = setup(&env);
    repo(&root);
    // cmds.txt arrives the way a model would write it.
    let v = write(&env, &root, &[], "cmds.txt", "touch MARK\n");
    assert_eq!(v["ok"], true, "{v}");
    std::fs::write(root.join("list0"), "f.txt\0/etc/shadow\0").unwrap();
    std::fs::write(root.join("list_rel"), "in.txt\0link\0").unwrap();
    let year_before = chrono_year();
    let corpus: &[&str] = &[
        // sed runs code
        "sed --expr='1e touch MARK' f.txt",
        "sed --expression='1e touch MARK' f.txt",
        "sed --e '1e touch MARK' f.txt",
        "sed -n -e p -ne '1e touch MARK' f.txt",
        "sed -n '1{e touch MARK\n}' f.txt",
        "sed -n $'1{e touch MARK\\n}' f.txt",
        "sed -n '\\%re%e touch MARK' f.txt",
        "sed -n '\\%a%,$e touch MARK' f.txt",
        "sed -n '/a/ ! e touch MARK' f.txt",
        "sed -n 'p;1e touch MARK' f.txt",
        "sed -e '1{' -e 'e touch MARK' -e '}' f.txt",
        "sed 's/.*/touch MARK/e' f.txt",
        "sed 's|.*|touch MARK|ge' f.txt",
        "sed -n 'w MARK' f.txt",
        "sed -n 's/a/b/w MARK' f.txt",
        "sed -n '1W MARK' f.txt",
        "sed '1r /etc/shadow' f.txt",
        "sed --in-pl s/alpha/MARK/ f.txt",
        "sed --in-place s/alpha/MARK/ f.txt",
        "sed -i s/alpha/MARK/ f.txt",
        "sed -ni s/alpha/MARK/ f.txt",
        "sed -si.bak s/alpha/MARK/ f.txt",
        "sed --fil=script.sed f.txt",
        "sed -f script.sed f.txt",
        "sed -nf script.sed f.txt",
        "sed --s p f.txt",
        // sort runs a program / writes outside
        "sort -S 1K -T . --compress-program=sh cmds.txt",
        "sort -S 1K -T . --compress-prog=sh cmds.txt",
        "sort --compress=sh cmds.txt",
        "sort cmds.txt --compress-program sh",
        "sort --files0-from=list0",
        "sort --files0-from list_rel",
        "sort --files0=list0",
        "wc --files0-from=/etc/shadow",
        "sort -T /tmp in.txt",
        "sort -T dir_out in.txt",
        "sort -o dangling_out in.txt",
        "sort -o ../outside/MARK in.txt",
        "sort --output=/tmp/MARK in.txt",
        "sort -o .git/config in.txt",
        "sort -o .gitconfig in.txt",
        "uniq in.txt .git/hooks/post-index-change",
        "uniq in.txt dir_out/new.txt",
        // reads outside the root
        "cat link",
        "cat canary_link",
        "cat rel_link",
        "cat dir_out/secret.txt",
        "cat /etc/shadow",
        "cat ../outside/secret.txt",
        "head -n1 link",
        "date -f/etc/shadow",
        "date -flink",
        "date --file=/etc/shadow",
        "date --fi /etc/shadow",
        "date -r /etc/shadow",
        "grep -f/etc/hostname f.txt",
        "grep -flink f.txt",
        "grep --file=/etc/hostname f.txt",
        "grep -rnf/etc/hostname .",
        "grep -R CANARY .",
        "grep x /etc/shadow",
        "rg -L CANARY",
        "ls -L dir_out",
        "ls /etc",
        "find -L . -name secret.txt",
        "find dir_out",
        "find . -newer /etc/shadow",
        "wc --files0-from=list0",
        "du --files0-from=list0",
        "sha256sum -c pats.txt",
        "file -f pats.txt",
        "file -m /etc/magic f.txt",
        "file -m f.txt:link f.txt",
        "grep --exclude-from=/etc/shadow x f.txt",
        "git ls-files -X /etc/shadow",
        "diff link f.txt",
        "diff --from-file=/etc/shadow f.txt",
        "stat dir_out",
        // date sets the clock
        "date -s 2020-01-01",
        "date --set=2020-01-01",
        "date --se 2020-01-01",
        "date -us 2020-01-01",
        "date 01010000",
        "date 010100002020",
        "date -u 0101000020",
        "date -- 0101000020",
        // git branch changes
        "git branch --delete --force x",
        "git branch -q -D x",
        "git branch -qD x",
        "git branch -D x",
        "git branch -d x",
        "git branch --del x",
        "git branch --delete x",
        "git branch -m x y",
        "git branch -M x y",
        "git branch --move x y",
        "git branch -c x y",
        "git branch --copy x y",
        "git branch -f x HEAD",
        "git branch y",
        "git branch -u main x",
        "git branch --set-upstream-to=main x",
        "git branch --unset-upstream x",
        "git branch --edit-description x",
        "git branch --list --no-list y",
        // git runs programs or writes
        "git -c core.fsmonitor='touch MARK' status",
        "git -c core.pager=id log",
        "git --config-env=core.fsmonitor=HOME status",
        "git --exec-path=. status",
        "git -C /etc status",
        "git --git-dir=sub status",
        "git --work-tree=/ status",
        "git -p log",
        "git log --output=MARK",
        "git log --outp=MARK",
        "git show --output MARK",
        "git diff --ext-diff",
        "git diff --textconv",
        "git log --show-signature",
        "git diff --no-index /etc/shadow f.txt",
        "git diff -- /etc/shadow",
        "git blame --contents /etc/shadow f.txt",
        "git commit -m x",
        "git push",
        "git config core.fsmonitor x",
        "git st",
        // other programs
        "rg --pre=sh x f.txt",
        "rg --pre sh x",
        "rg --pre-glob '*' x",
        "rg -z x",
        "rg --search-zip x",
        "rg --hostname-bin=sh x",
        "find . -exec touch MARK \\;",
        "find . -execdir touch MARK \\;",
        "find . -fprint MARK",
        "find . -delete",
        "file -z f.txt",
        "file --uncompress f.txt",
        "file -C -m f.txt",
        "diff -l f.txt in.txt",
        "diff --pag f.txt in.txt",
        "ls --color=/etc",
        "cat --frobnicate f.txt",
        "tr -Q a b",
        "pwd /etc",
        "sleep inf /etc",
        "printenv",
        "env touch MARK",
        "xargs touch",
        "sh -c 'touch MARK'",
        "awk 'BEGIN{system(\"touch MARK\")}'",
        "/usr/bin/touch MARK",
        "touch MARK",
    ];
    let mut refused = 0;
    for cmd in corpus {
        let v = shell(&env, &root, cmd);
        assert_eq!(code(&v), "policy.denied", "{cmd:?} -> {v}");
        assert!(!v.to_string().contains(CANARY), "{cmd:?} leaked: {v}");
        refused += 1;
    }
    // No side effect happened.
    assert!(!root.join("MARK").exists(), "a marker was created");
    assert!(!env.path("outside/MARK").exists());
    assert!(!env.path("outside/new.txt").exists());
    assert_eq!(
        std::fs::read_to_string(root.join("f.txt")).unwrap(),
        "alpha\nbeta\ngamma\n"
    );
    assert!(!root.join("f.txt.bak").exists());
    assert!(!root.join(".gitconfig").exists());
    assert!(!root.join(".git/hooks/post-index-change").exists());
    assert!(
        !std::fs::read_to_string(root.join(".git/config"))
            .unwrap()
            .contains("pear")
    );
    assert_eq!(branches(&root), ["main", "x"]);
    assert_eq!(chrono_year(), year_before, "the clock moved");
    eprintln!("argv attack corpus: {refused} refused, 0 escapes");
    assert_eq!(refused, corpus.len());
}

fn chrono_year() -> String {
    let out = std::process::Command::new("date")
        .arg("+%Y")
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn ordinary_uses_still_work() {
    let env = TestEnv::new();
    let root = setup(&env);
    repo(&root);
    let ok = |cmd: &str| {
        let v = shell(&env, &root, cmd);
        assert_eq!(v["ok"], true, "{cmd:?} -> {v}");
        assert_eq!(v["output"]["exit_code"], 0, "{cmd:?} -> {v}");
        v["output"].clone()
    };
    let o = ok("sed -n 1,2p f.txt");
    assert_eq!(o["stdout"], "alpha\nbeta\n");
    assert_eq!(o["argv"][1], "--sandbox", "{o}");
    assert_eq!(ok("sed --quiet --expr=2p f.txt")["stdout"], "beta\n");
    assert_eq!(
        ok("sed -ne 's/a/A/gp' f.txt")["stdout"],
        "AlphA\nbetA\ngAmmA\n"
    );
    ok("sort -o out.txt in.txt");
    assert_eq!(
        std::fs::read_to_string(root.join("out.txt")).unwrap(),
        "apple\nfig\npear\n"
    );
    assert_eq!(
        ok("sort -S 1K -T . -r in.txt")["stdout"],
        "pear\nfig\napple\n"
    );
    let year = ok("date -u +%Y")["stdout"]
        .as_str()
        .unwrap()
        .trim()
        .to_string();
    assert_eq!(year.len(), 4);
    ok("date -d 2020-01-01 --rfc-3339=date");
    ok("date -r f.txt +%s");
    let o = ok("git status --short");
    assert!(
        o["argv"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a == "--no-pager"),
        "{o}"
    );
    assert!(
        ok("git log --oneline")["stdout"]
            .as_str()
            .unwrap()
            .contains("first")
    );
    ok("git log -1 --format=%H");
    ok("git diff HEAD");
    ok("git show --stat HEAD");
    ok("git ls-files");
    ok("git rev-parse HEAD");
    assert_eq!(ok("git branch")["stdout"], "* main\n  x\n");
    ok("git branch --list 'ma*'");
    ok("git blame f.txt");
    assert_eq!(ok("grep -f pats.txt f.txt")["stdout"], "beta\n");
    assert_eq!(ok("grep --fixed-str -e gamma f.txt")["stdout"], "gamma\n");
    assert_eq!(ok("cat README.md")["stdout"], "# readme\n");
    assert_eq!(ok("head -n1 f.txt")["stdout"], "alpha\n");
    assert_eq!(ok("head -1 f.txt")["stdout"], "alpha\n");
    ok("ls -la sub");
    ok("find . -name '*.txt' -type f");
    ok("wc -l f.txt");
    std::fs::write(root.join("names0"), "f.txt\0in.txt\0").unwrap();
    assert!(
        ok("wc -l --files0-from=names0")["stdout"]
            .as_str()
            .unwrap()
            .contains("6 total")
    );
    assert_eq!(
        ok("sort --files0-from names0 -u")["stdout"],
        "alpha\napple\nbeta\nfig\ngamma\npear\n"
    );
    ok("uniq -c in.txt");
    ok("cut -d, -f1 f.txt");
    ok("tr a-z A-Z");
    ok("diff -r sub sub");
    ok("du -sh sub");
    ok("stat -c %s f.txt");
    ok("sha256sum f.txt");
    ok("echo /etc/passwd is just text");
    // cwd: relative paths are relative to it.
    let v = call(
        &env,
        &root,
        &[],
        "shell.exec",
        json!({"cmd": "cat ../f.txt", "cwd": "sub"}),
    );
    assert_eq!(v["output"]["stdout"], "alpha\nbeta\ngamma\n", "{v}");
    let v = call(
        &env,
        &root,
        &[],
        "shell.exec",
        json!({"cmd": "cat ../../outside/secret.txt", "cwd": "sub"}),
    );
    assert_eq!(code(&v), "policy.denied", "{v}");
}

/// A planted `core.fsmonitor` (in the repository config, `$HOME/.gitconfig` or
/// `.config/git/config`) does not run: git gets command-scope config that beats it, and no
/// global or system config at all.
#[test]
fn git_status_never_runs_a_planted_fsmonitor() {
    let env = TestEnv::new();
    let root = setup(&env);
    repo(&root);
    let hook = format!("touch {}/MARK; echo", root.display());
    // The model cannot plant it: fs.write_text refuses.
    for p in [".git/config", ".gitconfig", ".config/git/config"] {
        let v = write(
            &env,
            &root,
            &[],
            p,
            &format!("[core]\n\tfsmonitor = {hook}\n"),
        );
        assert_eq!(code(&v), "policy.denied", "{p} -> {v}");
    }
    assert!(
        !std::fs::read_to_string(root.join(".git/config"))
            .unwrap()
            .contains("fsmonitor")
    );
    // Planted anyway (by someone else): git status still does not run it.
    git(&root, &["config", "core.fsmonitor", &hook]);
    std::fs::write(
        root.join(".gitconfig"),
        format!(
            "[core]\n\tfsmonitor = {hook}\n\tpager = touch {}/MARK2\n",
            root.display()
        ),
    )
    .unwrap();
    std::fs::write(root.join("f.txt"), "changed\n").unwrap();
    for cmd in [
        "git status",
        "git diff",
        "git log -p",
        "git status --porcelain",
    ] {
        let v = shell(&env, &root, cmd);
        assert_eq!(v["ok"], true, "{cmd} -> {v}");
        assert_eq!(v["output"]["exit_code"], 0, "{cmd} -> {v}");
    }
    assert!(!root.join("MARK").exists(), "the planted fsmonitor ran");
    assert!(!root.join("MARK2").exists(), "the planted pager ran");
    // The hardening is what stops it: plain git runs the hook.
    let out = std::process::Command::new("git")
        .args(["status"])
        .current_dir(&root)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(
        root.join("MARK").exists(),
        "control: plain git runs core.fsmonitor"
    );
}

/// fs.write_text refuses VCS internals and program dotfiles, through case and Unicode tricks,
/// `..` and symlinked directories, unless a human granted `fs:dotfiles`.
#[test]
fn write_text_refuses_vcs_internals_and_dotfiles() {
    let env = TestEnv::new();
    let root = setup(&env);
    repo(&root);
    std::fs::create_dir_all(root.join(".hg")).unwrap();
    std::os::unix::fs::symlink(".git", root.join("gitlink")).unwrap();
    std::os::unix::fs::symlink(".git/hooks", root.join("hooks")).unwrap();
    let abs = format!(
        "{}/.git/config",
        std::fs::canonicalize(&root).unwrap().display()
    );
    let refused = [
        ".git/config",
        ".git/hooks/pre-commit",
        ".git",
        "sub/.git",
        ".GIT/config",
        ".Git/config",
        ".g\u{200c}it/config",
        "\u{feff}.git/config",
        ".git./config",
        ".git /config",
        "GIT~1/config",
        "git~1/config",
        ".ｇｉｔ/config",
        "sub/../.git/config",
        "./.git/config",
        abs.as_str(),
        "gitlink/config",
        "hooks/post-index-change",
        ".gitconfig",
        ".GitConfig",
        ".gitattributes",
        "sub/.gitattributes",
        ".gitmodules",
        ".config/git/config",
        ".config/git/attributes",
        ".CONFIG/Git/config",
        ".ripgreprc",
        ".magic",
        ".hg/hgrc",
        ".svn/entries",
        ".jj/repo",
        ".ssh/authorized_keys",
        ".bashrc",
        ".profile",
    ];
    let before = std::fs::read_to_string(root.join(".git/config")).unwrap();
    for p in refused {
        let v = write(&env, &root, &[], p, "[core]\n\tfsmonitor = touch MARK\n");
        assert_eq!(code(&v), "policy.denied", "{p:?} -> {v}");
    }
    assert_eq!(
        std::fs::read_to_string(root.join(".git/config")).unwrap(),
        before
    );
    for p in [
        ".gitconfig",
        ".gitattributes",
        ".gitmodules",
        ".ripgreprc",
        ".bashrc",
        "sub/.git",
        ".git/hooks/pre-commit",
    ] {
        assert!(!root.join(p).exists(), "{p} was written");
    }
    // Ordinary dotfiles and look-alike names are fine.
    for p in [
        ".gitignore",
        "git.txt",
        "sub/gitconfig.md",
        ".github-notes",
        "config",
    ] {
        let v = write(&env, &root, &[], p, "x\n");
        assert_eq!(v["ok"], true, "{p:?} -> {v}");
    }
    // A human grants fs:dotfiles: for this call…
    let v = write(
        &env,
        &root,
        &["--grant", "fs:dotfiles"],
        ".gitconfig",
        "[user]\n\tname = me\n",
    );
    assert_eq!(v["ok"], true, "{v}");
    assert!(root.join(".gitconfig").exists());
    // …or for a session, with `bob caps grant`.
    let sid = "s-dot";
    env.json(&["caps", "grant", "--session", sid, "fs:dotfiles"], "");
    let v = write(
        &env,
        &root,
        &["--session", sid],
        ".gitattributes",
        "* text\n",
    );
    assert_eq!(v["ok"], true, "{v}");
    // A model's request is not a grant.
    let sid2 = "s-req";
    env.json(&["caps", "request", "--session", sid2, "fs:dotfiles"], "");
    let v = write(&env, &root, &["--session", sid2], ".gitmodules", "x\n");
    assert_eq!(code(&v), "policy.denied", "{v}");
}
