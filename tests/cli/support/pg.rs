//! A throwaway PostgreSQL cluster for the tests of one test process: started on first use
//! with Debian's `initdb` and `pg_ctl` (`/usr/lib/postgresql/<version>/bin`), listening only on
//! a unix socket in its own temp directory, and stopped and removed when the test process
//! ends (a watchdog process waits for it to exit). Each test gets a fresh database
//! ([`fresh_database`]).
//!
//! As root (CI), the cluster runs as `nobody` (`runuser`): PostgreSQL refuses to run as root.
//! Without the binaries, [`fresh_database`] returns `None` after a loud notice on stderr,
//! unless `BOB_REQUIRE_POSTGRES=1` (set by `.ci/run`, which installs them), where it fails.
//!
//! Roles: `bob` (superuser, trusted on the socket) and `pwuser` (superuser, password
//! [`PASSWORD`], scram-sha-256), for tests of password handling.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The password of the role `pwuser`.
pub const PASSWORD: &str = "pw-Zq8rT4kL";

pub struct Cluster {
    /// The directory holding the unix socket (`.s.PGSQL.5432`).
    pub socket_dir: PathBuf,
    /// Outlives this process on purpose: it removes the cluster after the process is gone.
    _watchdog: std::process::Child,
}

fn bin_dir() -> Option<PathBuf> {
    let mut dirs: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .flatten()
        .filter_map(|e| {
            let v = e.file_name().to_str()?.parse::<u32>().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").is_file().then_some((v, bin))
        })
        .collect();
    dirs.sort();
    dirs.pop().map(|(_, p)| p)
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// Runs a PostgreSQL program as the cluster's owner (`nobody` when we are root).
fn as_owner(program: &Path) -> Command {
    if is_root() {
        let mut c = Command::new("runuser");
        c.args(["-u", "nobody", "--"]).arg(program);
        c
    } else {
        Command::new(program)
    }
}

fn run(mut c: Command, what: &str) {
    let out = c.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn start() -> Option<Cluster> {
    let Some(bin) = bin_dir() else {
        let msg = "PostgreSQL (initdb) is not installed: the shared-store tests need Debian's \
                   postgresql package (.ci/run installs it)";
        if std::env::var("BOB_REQUIRE_POSTGRES").as_deref() == Ok("1") {
            panic!("{msg}");
        }
        eprintln!("\n*** SKIPPED: {msg} ***\n");
        return None;
    };
    let base = tempfile::Builder::new()
        .prefix("bob-pg-")
        .tempdir()
        .expect("tempdir")
        .keep();
    if is_root() {
        run(
            {
                let mut c = Command::new("chown");
                c.arg("nobody:").arg(&base);
                c
            },
            "chown the cluster directory",
        );
    }
    let data = base.join("data");
    let mut c = as_owner(&bin.join("initdb"));
    c.arg("-D")
        .arg(&data)
        .args(["-U", "bob", "-E", "UTF8", "--locale=C", "--no-sync"])
        .args(["--auth-local=trust", "--auth-host=reject"]);
    run(c, "initdb");
    // pwuser signs in with a password; everyone else is trusted on the socket.
    let hba = data.join("pg_hba.conf");
    let rules = std::fs::read_to_string(&hba).unwrap();
    std::fs::write(&hba, format!("local all pwuser scram-sha-256\n{rules}")).unwrap();
    let mut c = as_owner(&bin.join("pg_ctl"));
    c.arg("-D")
        .arg(&data)
        .arg("-l")
        .arg(base.join("log"))
        .arg("-o")
        .arg(format!(
            "-k {} -c listen_addresses='' -c fsync=off -c synchronous_commit=off \
             -c full_page_writes=off -c max_connections=200",
            base.display()
        ))
        .args(["-w", "-t", "60", "start"]);
    run(c, "pg_ctl start");
    // The watchdog: once this test process is gone, stop the cluster and remove it.
    let script = format!(
        "while kill -0 {pid} 2>/dev/null; do sleep 1; done; {stop} -D '{data}' -m immediate stop; rm -rf '{base}'",
        pid = std::process::id(),
        stop = if is_root() {
            format!("runuser -u nobody -- '{}'", bin.join("pg_ctl").display())
        } else {
            format!("'{}'", bin.join("pg_ctl").display())
        },
        data = data.display(),
        base = base.display(),
    );
    let watchdog = Command::new("sh")
        .args(["-c", &script])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn the cluster's watchdog");
    let cluster = Cluster {
        socket_dir: base,
        _watchdog: watchdog,
    };
    let mut admin = cluster.client("postgres", "bob");
    admin
        .batch_execute(&format!(
            "CREATE ROLE pwuser LOGIN SUPERUSER PASSWORD '{PASSWORD}'"
        ))
        .unwrap();
    Some(cluster)
}

impl Cluster {
    /// A connection to `dbname` as `user` (trusted roles only).
    pub fn client(&self, dbname: &str, user: &str) -> postgres::Client {
        postgres::Config::new()
            .host_path(&self.socket_dir)
            .user(user)
            .dbname(dbname)
            .connect(postgres::NoTls)
            .unwrap_or_else(|e| panic!("connect to the test cluster: {e}"))
    }
}

/// The cluster of this test process, started on first use; `None` when PostgreSQL is not
/// installed and not required.
pub fn cluster() -> Option<&'static Cluster> {
    static CLUSTER: OnceLock<Option<Cluster>> = OnceLock::new();
    CLUSTER.get_or_init(start).as_ref()
}

/// A database of its own for one test.
pub struct TestDb {
    pub name: String,
    cluster: &'static Cluster,
}

impl TestDb {
    /// Its URL for `database.url`, as the trusted role `bob`.
    pub fn url(&self) -> String {
        format!(
            "postgresql:///{}?host={}&user=bob",
            self.name,
            self.cluster.socket_dir.display()
        )
    }

    /// Its URL as `pwuser`, with `password` in the query (a value or `secret:NAME`).
    pub fn url_with_password(&self, password: &str) -> String {
        format!(
            "postgresql:///{}?host={}&user=pwuser&password={password}",
            self.name,
            self.cluster.socket_dir.display()
        )
    }

    /// A connection to it, as `bob`.
    pub fn client(&self) -> postgres::Client {
        self.cluster.client(&self.name, "bob")
    }

    /// A connection to the cluster's maintenance database, as `bob` (to rename or drop this
    /// one).
    pub fn admin(&self) -> postgres::Client {
        self.cluster.client("postgres", "bob")
    }

    /// The socket directory (the "host" bob names in its errors).
    pub fn socket_dir(&self) -> &Path {
        &self.cluster.socket_dir
    }
}

/// A fresh, empty database in the cluster of this test process (see the module docs).
pub fn fresh_database() -> Option<TestDb> {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let cluster = cluster()?;
    let name = format!("t{}", NEXT.fetch_add(1, Ordering::SeqCst));
    cluster
        .client("postgres", "bob")
        .batch_execute(&format!("CREATE DATABASE {name}"))
        .unwrap();
    Some(TestDb { name, cluster })
}
