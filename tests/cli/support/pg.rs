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
//!
//! Two more clusters are started only by the tests that ask for them, since they listen on
//! TCP (a free port of `localhost`, trusted from loopback): [`tls_cluster`] with `ssl=on` and a
//! certificate for `localhost` signed by a CA made for the test process (rcgen; its PEM is
//! [`Cluster::ca_file`], and [`Cluster::other_ca_file`] is a CA that signed nothing), and
//! [`plain_tcp_cluster`] with `ssl=off`. The TLS cluster also trusts that CA for client
//! certificates (`ssl_ca_file`) and signs in the role `certuser` only with one
//! (`hostssl … cert` in its `pg_hba.conf`, which checks the chain and that the certificate
//! names the role): [`Cluster::client_cert`] is one for `certuser` signed by the CA,
//! [`Cluster::stranger_cert`] one for `certuser` signed by the other CA.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The password of the role `pwuser`.
pub const PASSWORD: &str = "pw-Zq8rT4kL";

pub struct Cluster {
    /// The directory holding the unix socket (`.s.PGSQL.<port>`).
    pub socket_dir: PathBuf,
    /// Its port: 5432 for the unix-only cluster, a free TCP port for the others.
    pub port: u16,
    /// The TLS cluster's CA (PEM), which signed its certificate for `localhost`.
    pub ca_file: Option<PathBuf>,
    /// A CA (PEM) that signed nothing this cluster holds.
    pub other_ca_file: Option<PathBuf>,
    /// The TLS cluster's client certificate and key (PEM, the key `0600`) for `certuser`,
    /// signed by [`Cluster::ca_file`]'s CA.
    pub client_cert: Option<(PathBuf, PathBuf)>,
    /// The same for `certuser`, signed by [`Cluster::other_ca_file`]'s CA (not trusted).
    pub stranger_cert: Option<(PathBuf, PathBuf)>,
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

/// How a cluster listens besides its unix socket: on `localhost` at a free port, with TLS or
/// without.
#[derive(Clone, Copy)]
enum Tcp {
    None,
    Plain,
    Tls,
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

fn chown_to_owner(path: &Path) {
    if is_root() {
        let mut c = Command::new("chown");
        c.arg("nobody:").arg(path);
        run(c, "chown to the cluster's owner");
    }
}

/// A CA (its certificate's PEM and its issuer) made for this test process.
fn make_ca(name: &str) -> (String, rcgen::Issuer<'static, rcgen::KeyPair>) {
    let key = rcgen::KeyPair::generate().expect("CA key");
    let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).expect("CA params");
    params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    params
        .distinguished_name
        .push(rcgen::DnType::CommonName, name);
    params.key_usages = vec![
        rcgen::KeyUsagePurpose::KeyCertSign,
        rcgen::KeyUsagePurpose::CrlSign,
    ];
    let pem = params.self_signed(&key).expect("CA certificate").pem();
    (pem, rcgen::Issuer::new(params, key))
}

/// Writes the TLS cluster's files into `base`: `server.crt` and `server.key` (for `localhost`
/// only, signed by `ca.pem`) and `other-ca.pem`; returns the server's `-c` options.
fn make_certificates(base: &Path) -> String {
    let (ca_pem, ca) = make_ca("bob test CA");
    let (other_pem, other) = make_ca("bob other CA");
    use std::os::unix::fs::PermissionsExt;
    // Client certificates for `certuser`: one the server trusts, one it does not.
    for (name, issuer) in [("client", &ca), ("stranger", &other)] {
        let key = rcgen::KeyPair::generate().expect("client key");
        let mut params =
            rcgen::CertificateParams::new(Vec::<String>::new()).expect("client params");
        params
            .distinguished_name
            .push(rcgen::DnType::CommonName, "certuser");
        let cert = params.signed_by(&key, issuer).expect("client certificate");
        let key_file = base.join(format!("{name}.key"));
        std::fs::write(base.join(format!("{name}.crt")), cert.pem()).unwrap();
        std::fs::write(&key_file, key.serialize_pem()).unwrap();
        std::fs::set_permissions(&key_file, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    let key = rcgen::KeyPair::generate().expect("server key");
    let mut params =
        rcgen::CertificateParams::new(vec!["localhost".to_string()]).expect("server params");
    params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "localhost");
    let cert = params.signed_by(&key, &ca).expect("server certificate");
    let (crt, key_file) = (base.join("server.crt"), base.join("server.key"));
    std::fs::write(&crt, cert.pem()).unwrap();
    std::fs::write(&key_file, key.serialize_pem()).unwrap();
    std::fs::set_permissions(&key_file, std::fs::Permissions::from_mode(0o600)).unwrap();
    chown_to_owner(&crt);
    chown_to_owner(&key_file);
    std::fs::write(base.join("ca.pem"), ca_pem).unwrap();
    std::fs::write(base.join("other-ca.pem"), other_pem).unwrap();
    format!(
        " -c ssl=on -c ssl_cert_file='{}' -c ssl_key_file='{}' -c ssl_ca_file='{}'",
        crt.display(),
        key_file.display(),
        base.join("ca.pem").display()
    )
}

/// Says loudly that a program the shared-store tests need is missing; a failure instead when
/// `BOB_REQUIRE_POSTGRES=1`.
fn not_installed(msg: &str) {
    if std::env::var("BOB_REQUIRE_POSTGRES").as_deref() == Ok("1") {
        panic!("{msg}");
    }
    eprintln!("\n*** SKIPPED: {msg} ***\n");
}

/// A process that runs `cleanup` (shell) once this test process is gone.
fn watchdog(cleanup: &str) -> std::process::Child {
    let script = format!(
        "while kill -0 {pid} 2>/dev/null; do sleep 1; done; {cleanup}",
        pid = std::process::id()
    );
    Command::new("sh")
        .args(["-c", &script])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn a watchdog")
}

fn start(tcp: Tcp) -> Option<Cluster> {
    let Some(bin) = bin_dir() else {
        not_installed(
            "PostgreSQL (initdb) is not installed: the shared-store tests need Debian's \
             postgresql package (.ci/run installs it)",
        );
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
    let loopback = match tcp {
        Tcp::None => "",
        Tcp::Plain => "host all bob 127.0.0.1/32 trust\nhost all bob ::1/128 trust\n",
        Tcp::Tls => {
            "hostssl all certuser 127.0.0.1/32 cert\nhostssl all certuser ::1/128 cert\n\
             host all bob 127.0.0.1/32 trust\nhost all bob ::1/128 trust\n"
        }
    };
    std::fs::write(
        &hba,
        format!("local all pwuser scram-sha-256\n{loopback}{rules}"),
    )
    .unwrap();
    let (port, listen) = match tcp {
        Tcp::None => (5432, "-c listen_addresses=''".to_string()),
        Tcp::Plain | Tcp::Tls => {
            let port = free_port();
            (port, format!("-c listen_addresses=localhost -p {port}"))
        }
    };
    let ssl = match tcp {
        Tcp::Tls => make_certificates(&base),
        Tcp::None | Tcp::Plain => String::new(),
    };
    let mut c = as_owner(&bin.join("pg_ctl"));
    c.arg("-D")
        .arg(&data)
        .arg("-l")
        .arg(base.join("log"))
        .arg("-o")
        .arg(format!(
            "-k {} {listen} -c fsync=off -c synchronous_commit=off \
             -c full_page_writes=off -c max_connections=200{ssl}",
            base.display()
        ))
        .args(["-w", "-t", "60", "start"]);
    run(c, "pg_ctl start");
    // The watchdog: once this test process is gone, stop the cluster and remove it.
    let watchdog = watchdog(&format!(
        "{stop} -D '{data}' -m immediate stop; rm -rf '{base}'",
        stop = if is_root() {
            format!("runuser -u nobody -- '{}'", bin.join("pg_ctl").display())
        } else {
            format!("'{}'", bin.join("pg_ctl").display())
        },
        data = data.display(),
        base = base.display(),
    ));
    let tls = matches!(tcp, Tcp::Tls);
    let cluster = Cluster {
        ca_file: tls.then(|| base.join("ca.pem")),
        other_ca_file: tls.then(|| base.join("other-ca.pem")),
        client_cert: tls.then(|| (base.join("client.crt"), base.join("client.key"))),
        stranger_cert: tls.then(|| (base.join("stranger.crt"), base.join("stranger.key"))),
        socket_dir: base,
        port,
        _watchdog: watchdog,
    };
    let mut admin = cluster.client("postgres", "bob");
    admin
        .batch_execute(&format!(
            "CREATE ROLE pwuser LOGIN SUPERUSER PASSWORD '{PASSWORD}'; \
             CREATE ROLE certuser LOGIN SUPERUSER"
        ))
        .unwrap();
    Some(cluster)
}

impl Cluster {
    /// A connection to `dbname` as `user` (trusted roles only).
    pub fn client(&self, dbname: &str, user: &str) -> postgres::Client {
        postgres::Config::new()
            .host_path(&self.socket_dir)
            .port(self.port)
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
    CLUSTER.get_or_init(|| start(Tcp::None)).as_ref()
}

/// A cluster of this test process listening on `localhost` over TCP with `ssl=on` (see the
/// module docs), started on first use.
pub fn tls_cluster() -> Option<&'static Cluster> {
    static CLUSTER: OnceLock<Option<Cluster>> = OnceLock::new();
    CLUSTER.get_or_init(|| start(Tcp::Tls)).as_ref()
}

/// A cluster of this test process listening on `localhost` over TCP with `ssl=off`.
pub fn plain_tcp_cluster() -> Option<&'static Cluster> {
    static CLUSTER: OnceLock<Option<Cluster>> = OnceLock::new();
    CLUSTER.get_or_init(|| start(Tcp::Plain)).as_ref()
}

/// A pgbouncer in session mode in front of [`cluster`], for every database (each client one
/// session on a server connection kept between sessions), as `docs/shared-store.md` advises
/// for many short-lived commands.
pub struct Pooler {
    /// The directory of its unix socket (`.s.PGSQL.6432`).
    pub socket_dir: PathBuf,
    /// Outlives this process on purpose: it stops the pooler after the process is gone.
    _watchdog: std::process::Child,
}

/// The port the pooler's socket is named by.
const POOLER_PORT: u16 = 6432;

fn pgbouncer() -> Option<PathBuf> {
    ["/usr/sbin/pgbouncer", "/usr/bin/pgbouncer"]
        .into_iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
}

fn start_pooler(cluster: &Cluster) -> Option<Pooler> {
    let Some(bin) = pgbouncer() else {
        not_installed(
            "pgbouncer is not installed: the shared-store suite through a pooler needs \
             Debian's pgbouncer package (.ci/run installs it)",
        );
        return None;
    };
    let base = tempfile::Builder::new()
        .prefix("bob-pgbouncer-")
        .tempdir()
        .expect("tempdir")
        .keep();
    std::fs::write(
        base.join("pgbouncer.ini"),
        format!(
            "[databases]\n* = host={socket} port={port}\n\
             [pgbouncer]\nlisten_addr =\nunix_socket_dir = {base}\nlisten_port = {POOLER_PORT}\n\
             auth_type = trust\nauth_file = {base}/users.txt\npool_mode = session\n\
             server_reset_query = DISCARD ALL\ndefault_pool_size = 40\nmax_client_conn = 400\n\
             logfile = {base}/log\npidfile = {base}/pid\n",
            socket = cluster.socket_dir.display(),
            port = cluster.port,
            base = base.display(),
        ),
    )
    .unwrap();
    std::fs::write(base.join("users.txt"), "\"bob\" \"\"\n").unwrap();
    if is_root() {
        let mut c = Command::new("chown");
        c.args(["-R", "nobody:"]).arg(&base);
        run(c, "chown the pooler's directory");
    }
    let mut c = as_owner(&bin);
    c.arg("-d").arg(base.join("pgbouncer.ini"));
    run(c, "pgbouncer");
    let socket = base.join(format!(".s.PGSQL.{POOLER_PORT}"));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !socket.exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "pgbouncer did not listen: {}",
            std::fs::read_to_string(base.join("log")).unwrap_or_default()
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    Some(Pooler {
        _watchdog: watchdog(&format!(
            "kill $(cat '{base}/pid'); rm -rf '{base}'",
            base = base.display()
        )),
        socket_dir: base,
    })
}

/// The pooler of this test process in front of [`cluster`], started on first use; `None`
/// when PostgreSQL or pgbouncer is not installed and not required.
pub fn pooler() -> Option<&'static Pooler> {
    static POOLER: OnceLock<Option<Pooler>> = OnceLock::new();
    POOLER.get_or_init(|| start_pooler(cluster()?)).as_ref()
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

    /// Its URL through `pooler`, as `bob`.
    pub fn pooled_url(&self, pooler: &Pooler) -> String {
        format!(
            "postgresql:///{}?host={}&port={POOLER_PORT}&user=bob",
            self.name,
            pooler.socket_dir.display()
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

    /// Its URL over TCP to `host` (`localhost`, `127.0.0.1`) at the cluster's port, as `bob`,
    /// with `query` (e.g. `sslmode=verify-full&sslrootcert=…`; empty: none).
    pub fn tcp_url(&self, host: &str, query: &str) -> String {
        let mut url = format!(
            "postgresql://bob@{host}:{}/{}",
            self.cluster.port, self.name
        );
        if !query.is_empty() {
            url.push('?');
            url.push_str(query);
        }
        url
    }
}

/// A fresh, empty database in the cluster of this test process (see the module docs).
pub fn fresh_database() -> Option<TestDb> {
    Some(fresh_database_in(cluster()?))
}

/// A fresh, empty database in `cluster`.
pub fn fresh_database_in(cluster: &'static Cluster) -> TestDb {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let name = format!("t{}", NEXT.fetch_add(1, Ordering::SeqCst));
    cluster
        .client("postgres", "bob")
        .batch_execute(&format!("CREATE DATABASE {name}"))
        .unwrap();
    TestDb { name, cluster }
}
