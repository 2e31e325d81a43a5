//! The shared store (`database.url`): the store suite run against both backends (the home's
//! embedded files and a real PostgreSQL, see `support::pg`), and what only the database has
//! (`bob db`, two homes on one database, faults).

use crate::TestEnv;
use crate::env::error_of;
use crate::support::code;
use crate::support::pg::{self, TestDb};
use serde_json::Value;
use std::process::{Child, Command, Stdio};

/// One node: a home, and the database it shares (none: the embedded backend).
pub(crate) struct Node {
    pub(crate) env: TestEnv,
    pub(crate) url: Option<String>,
    /// The chain key every node of one database shares (`BOB_KEY_FILE`).
    pub(crate) key_file: Option<std::path::PathBuf>,
}

impl Node {
    /// A node of its own embedded home (no database).
    pub(crate) fn embedded() -> Node {
        Node {
            env: TestEnv::new(),
            url: None,
            key_file: None,
        }
    }

    /// A new home on the database at `url`, with the chain key at `key_file`.
    pub(crate) fn on(url: String, key_file: std::path::PathBuf) -> Node {
        Node {
            env: TestEnv::new(),
            url: Some(url),
            key_file: Some(key_file),
        }
    }

    pub(crate) fn bob(&self, args: &[&str]) -> assert_cmd::Command {
        let mut c = self.env.bob(args);
        if let Some(url) = &self.url {
            c.env("BOB_DATABASE_URL", url);
        }
        if let Some(key) = &self.key_file {
            c.env("BOB_KEY_FILE", key);
        }
        c
    }

    fn std_command(&self, args: &[&str]) -> Command {
        let mut c = self.env.std_command(args);
        if let Some(url) = &self.url {
            c.env("BOB_DATABASE_URL", url);
        }
        if let Some(key) = &self.key_file {
            c.env("BOB_KEY_FILE", key);
        }
        c
    }

    pub(crate) fn jsonl(&self, args: &[&str], stdin: &str) -> Vec<Value> {
        let out = self.bob(args).write_stdin(stdin).output().unwrap();
        crate::env::jsonl_of(&out, args)
    }

    pub(crate) fn json(&self, args: &[&str], stdin: &str) -> Value {
        let out = self.bob(args).write_stdin(stdin).output().unwrap();
        assert!(
            out.status.success(),
            "bob {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }

    pub(crate) fn fails(&self, args: &[&str], stdin: &str, exit: i32, code: &str) -> Value {
        let out = self.bob(args).write_stdin(stdin).output().unwrap();
        error_of(&out, exit, code)
    }

    /// Starts `bob ARGS` with `stdin`, without waiting.
    pub(crate) fn spawn(&self, args: &[&str], stdin: &str) -> Child {
        let mut child = self
            .std_command(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(stdin.as_bytes())
            .unwrap();
        child
    }
}

/// The backend under test: two nodes writing the same stores. Embedded: two processes on
/// one home (the only way two writers share it). PostgreSQL: two homes on one database.
pub(crate) struct Backend {
    pub(crate) a: Node,
    pub(crate) b: Node,
    pub(crate) db: Option<TestDb>,
    /// Holds the shared chain key of the PostgreSQL nodes.
    _keys: Option<tempfile::TempDir>,
}

impl Backend {
    pub(crate) fn embedded() -> Backend {
        let a = Node::embedded();
        let b = Node {
            env: TestEnv {
                dir: tempfile::tempdir().unwrap(),
                now: a.env.now.clone(),
            },
            url: None,
            key_file: None,
        };
        // The second node is the same home.
        std::os::unix::fs::symlink(a.env.home(), b.env.home()).unwrap_or(());
        std::fs::create_dir_all(a.env.home()).unwrap();
        Backend {
            a,
            b,
            db: None,
            _keys: None,
        }
    }

    pub(crate) fn postgres() -> Option<Backend> {
        Self::on_postgres(|db| Some(db.url()))
    }

    /// Two nodes on one database through a pooler in session mode (`pg::pooler`).
    pub(crate) fn pooled() -> Option<Backend> {
        Self::on_postgres(|db| Some(db.pooled_url(pg::pooler()?)))
    }

    /// Two nodes on a fresh database, each reaching it by `url_of` it.
    fn on_postgres(url_of: impl Fn(&TestDb) -> Option<String>) -> Option<Backend> {
        let db = pg::fresh_database()?;
        let url = url_of(&db)?;
        let keys = tempfile::tempdir().unwrap();
        let node = || Node::on(url.clone(), keys.path().join("chain.key"));
        Some(Backend {
            a: node(),
            b: node(),
            db: Some(db),
            _keys: Some(keys),
        })
    }
}

/// Runs each named suite test against the embedded backend, against PostgreSQL, and against
/// PostgreSQL through a pooler in session mode.
macro_rules! store_suite {
    ($($name:ident),* $(,)?) => {
        mod embedded {
            $(#[test]
            fn $name() {
                super::$name(&super::Backend::embedded());
            })*
        }
        mod postgres {
            $(#[test]
            fn $name() {
                if let Some(b) = super::Backend::postgres() {
                    super::$name(&b);
                }
            })*
        }
        mod pooled {
            $(#[test]
            fn $name() {
                if let Some(b) = super::Backend::pooled() {
                    super::$name(&b);
                }
            })*
        }
    };
}

/// Run by the other shared-store suites too (`shared_memory`).
pub(crate) use store_suite;

/// The JSON lines of `bob ledger verify` (one report per chain).
pub(crate) fn reports(out: &std::process::Output) -> Vec<Value> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The report of the chain at `path` (e.g. `postgres:memory_ledger`).
pub(crate) fn report<'a>(reports: &'a [Value], path: &str) -> &'a Value {
    reports
        .iter()
        .find(|r| r["path"] == path)
        .unwrap_or_else(|| panic!("no report for {path}: {reports:#?}"))
}

/// `bob ledger verify --all` on `node`, which must pass; its reports.
pub(crate) fn verify_all(node: &Node) -> Vec<Value> {
    let out = node.bob(&["ledger", "verify", "--all"]).output().unwrap();
    assert!(
        out.status.success(),
        "verify failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    reports(&out)
}

store_suite!(
    checkpoints_round_trip_through_either_node,
    checkpoint_expected_revision_is_checked,
    racing_writers_of_one_checkpoint_get_one_commit_and_conflicts,
    concurrent_checkpoint_updates_lose_nothing,
);

fn checkpoints_round_trip_through_either_node(b: &Backend) {
    b.a.fails(&["state", "show", "--session", "s1"], "", 4, "not_found");
    let fresh =
        b.a.json(&["state", "show", "--session", "s1", "--or-empty"], "");
    assert_eq!(fresh["revision"], 0);
    let cp = b.a.json(
        &["state", "set", "--session", "s1"],
        r#"{"goals":["ship the shared store"]}"#,
    );
    assert_eq!(cp["revision"], 1);
    // The other node reads what the first wrote, and builds on it.
    let seen = b.b.json(&["state", "show", "--session", "s1"], "");
    assert_eq!(seen["revision"], 1);
    assert_eq!(seen["state"]["goals"][0], "ship the shared store");
    let cp = b.b.json(
        &["state", "set", "--session", "s1", "--expect-revision", "1"],
        r#"{"open_loops":["write the README"]}"#,
    );
    assert_eq!(cp["revision"], 2);
    let seen = b.a.json(&["state", "show", "--session", "s1"], "");
    assert_eq!(seen["revision"], 2);
    assert_eq!(seen["state"]["goals"][0], "ship the shared store");
    assert_eq!(seen["state"]["open_loops"][0], "write the README");
    // Capabilities go through the same store.
    b.a.json(
        &["caps", "request", "--session", "s1", "net:example.org"],
        "",
    );
    let caps = b.b.json(&["caps", "list", "--session", "s1"], "");
    assert_eq!(caps["pending"][0], "net:example.org", "{caps}");
    assert_eq!(caps["revision"], 3);
}

fn checkpoint_expected_revision_is_checked(b: &Backend) {
    b.a.json(&["state", "set", "--session", "s2"], r#"{"goals":["one"]}"#);
    let e = b.b.fails(
        &["state", "set", "--session", "s2", "--expect-revision", "0"],
        r#"{"goals":["two"]}"#,
        5,
        "conflict",
    );
    assert_eq!(e["details"]["actual"], 1, "{e}");
    let seen = b.a.json(&["state", "show", "--session", "s2"], "");
    assert_eq!(seen["revision"], 1);
    assert_eq!(seen["state"]["goals"][0], "one");
    // A bad session id is refused before anything is stored.
    b.a.fails(
        &["state", "set", "--session", "../x"],
        r#"{"goals":["x"]}"#,
        2,
        "invalid.request",
    );
}

fn racing_writers_of_one_checkpoint_get_one_commit_and_conflicts(b: &Backend) {
    let args = [
        "state",
        "set",
        "--session",
        "race",
        "--expect-revision",
        "0",
    ];
    let children: Vec<Child> = (0..6)
        .map(|i| {
            let node = if i % 2 == 0 { &b.a } else { &b.b };
            node.spawn(&args, &format!(r#"{{"goals":["writer {i}"]}}"#))
        })
        .collect();
    let outs: Vec<_> = children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .collect();
    let codes: Vec<i32> = outs.iter().map(|o| o.status.code().unwrap()).collect();
    assert_eq!(codes.iter().filter(|&&c| c == 0).count(), 1, "{codes:?}");
    for o in outs.iter().filter(|o| o.status.code() == Some(5)) {
        let e: Value = serde_json::from_slice(&o.stderr).unwrap();
        assert_eq!(code(&e), "conflict", "{e}");
    }
    assert_eq!(codes.iter().filter(|&&c| c == 5).count(), 5, "{codes:?}");
    let seen = b.b.json(&["state", "show", "--session", "race"], "");
    assert_eq!(seen["revision"], 1);
}

fn concurrent_checkpoint_updates_lose_nothing(b: &Backend) {
    let caps: Vec<String> = (0..8).map(|i| format!("net:host{i}.example")).collect();
    let children: Vec<Child> = caps
        .iter()
        .enumerate()
        .map(|(i, cap)| {
            let node = if i % 2 == 0 { &b.a } else { &b.b };
            node.spawn(&["caps", "request", "--session", "many", cap], "")
        })
        .collect();
    for c in children {
        crate::env::succeeded(c);
    }
    let seen = b.a.json(&["caps", "list", "--session", "many"], "");
    assert_eq!(seen["revision"], 8, "{seen}");
    let mut pending: Vec<String> = seen["pending"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    pending.sort();
    assert_eq!(pending, caps);
}

// What only the database has.

fn pg_backend() -> Option<Backend> {
    Backend::postgres()
}

#[test]
fn checkpoints_live_in_the_database_not_the_home() {
    let Some(b) = pg_backend() else { return };
    b.a.json(&["state", "set", "--session", "s1"], r#"{"goals":["g"]}"#);
    assert!(
        !b.a.env.home().join("sessions/s1/checkpoint.json").exists(),
        "the checkpoint was written to the home"
    );
    let mut c = b.db.as_ref().unwrap().client();
    let row = c
        .query_one(
            "SELECT revision, doc FROM checkpoints WHERE session_id = 's1'",
            &[],
        )
        .unwrap();
    assert_eq!(row.get::<_, i64>(0), 1);
    let doc: Value = serde_json::from_str(row.get::<_, &str>(1)).unwrap();
    assert_eq!(doc["state"]["goals"][0], "g");
    // A row nobody can parse is reported, and never overwritten.
    c.execute(
        "UPDATE checkpoints SET doc = 'not json' WHERE session_id = 's1'",
        &[],
    )
    .unwrap();
    b.b.fails(
        &["state", "show", "--session", "s1"],
        "",
        1,
        "internal.error",
    );
    b.b.fails(
        &["state", "set", "--session", "s1"],
        r#"{"goals":["h"]}"#,
        1,
        "internal.error",
    );
    let doc: String = c
        .query_one("SELECT doc FROM checkpoints WHERE session_id = 's1'", &[])
        .unwrap()
        .get(0);
    assert_eq!(doc, "not json");
}

#[test]
fn db_status_and_migrate_report_the_schema() {
    let Some(b) = pg_backend() else { return };
    let db = b.db.as_ref().unwrap();
    let st = b.a.json(&["db", "status"], "");
    assert_eq!(st["backend"], "postgres");
    assert_eq!(st["reachable"], true);
    assert_eq!(st["schema_version"], 0, "status applies no migration: {st}");
    assert_eq!(st["host"], db.socket_dir().display().to_string());
    let latest = st["latest_version"].as_i64().unwrap();
    assert!(latest >= 1);
    let m = b.a.json(&["db", "migrate"], "");
    assert_eq!(m["schema_version"], latest);
    assert_eq!(m["applied"].as_array().unwrap().len() as i64, latest);
    let again = b.b.json(&["db", "migrate"], "");
    assert_eq!(again["applied"], serde_json::json!([]));
    let st = b.b.json(&["db", "status"], "");
    assert_eq!(st["schema_version"], latest);
}

#[test]
fn nodes_migrating_at_once_apply_each_migration_once() {
    let Some(b) = pg_backend() else { return };
    let children: Vec<Child> = (0..6)
        .map(|i| {
            let node = if i % 2 == 0 { &b.a } else { &b.b };
            node.spawn(&["db", "migrate"], "")
        })
        .collect();
    let mut applied = 0;
    for c in children {
        let out = crate::env::succeeded(c);
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        applied += v["applied"].as_array().unwrap().len();
    }
    let rows: i64 =
        b.db.as_ref()
            .unwrap()
            .client()
            .query_one("SELECT count(*) FROM bob_schema", &[])
            .unwrap()
            .get(0);
    assert_eq!(
        applied as i64, rows,
        "each migration applied by exactly one node"
    );
}

#[test]
fn a_schema_newer_than_bob_is_refused() {
    let Some(b) = pg_backend() else { return };
    b.a.json(&["db", "migrate"], "");
    b.db.as_ref()
        .unwrap()
        .client()
        .execute(
            "INSERT INTO bob_schema (version, name) VALUES (9999, 'from the future')",
            &[],
        )
        .unwrap();
    let e = b.a.fails(
        &["state", "show", "--session", "s", "--or-empty"],
        "",
        5,
        "conflict",
    );
    assert_eq!(e["details"]["schema_version"], 9999, "{e}");
}

#[test]
fn an_unreachable_database_is_an_upstream_error_naming_the_host() {
    let env = TestEnv::new();
    // Nothing listens on port 1 of loopback.
    let node = Node {
        env,
        url: Some("postgres://bob:hunter2@127.0.0.1:1/bob".into()),
        key_file: None,
    };
    let e = node.fails(
        &["state", "show", "--session", "s"],
        "",
        6,
        "upstream.error",
    );
    assert_eq!(e["details"]["host"], "127.0.0.1:1", "{e}");
    assert!(
        e["message"].as_str().unwrap().contains("127.0.0.1:1"),
        "{e}"
    );
    assert!(
        !e.to_string().contains("hunter2"),
        "the password leaked: {e}"
    );
    let e = node.fails(
        &["state", "set", "--session", "s"],
        r#"{"goals":["g"]}"#,
        6,
        "upstream.error",
    );
    assert_eq!(e["details"]["host"], "127.0.0.1:1");
    assert!(!node.env.home().join("sessions/s").exists());
    // bob db status still reports, then fails.
    let out = node.bob(&["db", "status"]).output().unwrap();
    assert_eq!(out.status.code(), Some(6));
    let st: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(st["reachable"], false);
    assert_eq!(st["url"], "postgres://bob:***@127.0.0.1:1/bob");
    assert!(!String::from_utf8_lossy(&out.stderr).contains("hunter2"));
    // A database that is gone (the fixture's socket, a database that does not exist).
    if let Some(db) = pg::fresh_database() {
        let gone = Node {
            env: TestEnv::new(),
            url: Some(db.url().replace(&format!("/{}?", db.name), "/no_such_db?")),
            key_file: None,
        };
        let e = gone.fails(
            &["state", "show", "--session", "s"],
            "",
            6,
            "upstream.error",
        );
        assert_eq!(e["details"]["host"], db.socket_dir().display().to_string());
    }
}

#[test]
fn the_url_is_shown_with_its_password_blanked_and_checked() {
    let env = TestEnv::new();
    let node = Node {
        env,
        url: Some("postgresql://bob:hunter2@db.internal:5433/bob?sslmode=disable".into()),
        key_file: None,
    };
    let out = node
        .bob(&["config", "show", "database.url"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("hunter2"), "{text}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let row = &v["settings"]["database.url"];
    assert_eq!(
        row["value"],
        "postgresql://bob:***@db.internal:5433/bob?sslmode=disable"
    );
    assert_eq!(row["source"], "env");
    // The same from config.toml, with the password in the query.
    let env = TestEnv::new();
    env.write(
        "home/config.toml",
        "[database]\nurl = \"postgres:///bob?host=/run/postgresql&password=hunter2\"\n",
    );
    let v = env.json(&["config", "show", "database.url"], "");
    let shown = v["settings"]["database.url"]["value"].as_str().unwrap();
    assert!(
        !shown.contains("hunter2") && shown.contains("password=***"),
        "{shown}"
    );
    // Not a PostgreSQL URL; an sslmode bob does not offer: refused before anything is touched.
    for bad in [
        "mysql://bob@db/bob",
        "not a url",
        "postgres://bob@db/bob?sslmode=allow",
    ] {
        let node = Node {
            env: TestEnv::new(),
            url: Some(bad.into()),
            key_file: None,
        };
        let e = node.fails(
            &["state", "show", "--session", "s"],
            "",
            2,
            "invalid.request",
        );
        assert_eq!(e["details"]["setting"], "database.url", "{e}");
    }
}

#[test]
fn unset_means_the_embedded_stores() {
    let env = TestEnv::new();
    let st = env.json(&["db", "status"], "");
    assert_eq!(st["backend"], "embedded");
    assert!(st.get("url").is_none());
    env.fails(&["db", "migrate"], "", 2, "invalid.request");
    env.json(&["state", "set", "--session", "s"], r#"{"goals":["g"]}"#);
    assert!(env.home().join("sessions/s/checkpoint.json").is_file());
}

#[test]
fn the_password_can_be_a_stored_secret() {
    let Some(db) = pg::fresh_database() else {
        return;
    };
    // A wrong password: upstream.error naming the host, the password nowhere.
    let wrong = Node {
        env: TestEnv::new(),
        url: Some(db.url_with_password("not-it")),
        key_file: None,
    };
    let e = wrong.fails(&["db", "migrate"], "", 6, "upstream.error");
    assert_eq!(e["details"]["host"], db.socket_dir().display().to_string());
    // The right one, from the home's secret store.
    let node = Node {
        env: TestEnv::new(),
        url: Some(db.url_with_password("secret:dbpw")),
        key_file: None,
    };
    node.fails(&["db", "migrate"], "", 4, "not_found");
    let out = node
        .env
        .bob(&["secrets", "set", "dbpw"])
        .write_stdin(pg::PASSWORD)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let m = node.json(&["db", "migrate"], "");
    assert!(m["schema_version"].as_i64().unwrap() >= 1);
    assert!(m["url"].as_str().unwrap().contains("password=***"), "{m}");
    node.json(&["state", "set", "--session", "s"], r#"{"goals":["g"]}"#);
}
