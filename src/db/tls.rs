//! TLS to the shared database: the `sslmode`, `sslrootcert`, `sslcert` and `sslkey` of
//! `database.url`, read as libpq reads them, on the `rustls` bob already uses for HTTPS.
//!
//! This module promises:
//!
//! * **The modes.** `disable` (never TLS), `prefer` (the default, as in libpq: TLS when the
//!   server offers it, else plain; the certificate is not checked), `require` (TLS or no
//!   connection; the certificate is not checked, unless `sslrootcert` is given, which makes it
//!   `verify-ca`, as in libpq), `verify-ca` (TLS, the server's certificate must chain to a
//!   trusted root) and `verify-full` (`verify-ca`, and the certificate must name the host the
//!   URL connects to). `allow` and anything else is `invalid.request` naming the setting.
//! * **The roots.** `sslrootcert=PATH` names a PEM file of the certificates to trust (only
//!   those); `sslrootcert=system`, or no `sslrootcert` with a verifying mode, trusts the
//!   system's roots (`/etc/ssl/certs` and the like). A file that cannot be read or holds no
//!   certificate is `invalid.request` naming the setting and the path, before any connection.
//! * **Client certificates.** `sslcert=PATH` (a PEM certificate chain, the client's first) and
//!   `sslkey=PATH` (its PEM private key) are presented when the server asks for a certificate
//!   (`clientcert=verify-ca|verify-full` or `cert` in its `pg_hba.conf`), as in libpq; the two
//!   go together (one without the other is `invalid.request`). The key file must not be
//!   readable by group or others (group-readable allowed when owned by root), as libpq
//!   checks; a file that cannot be read, holds no certificate or no key, or a key that does
//!   not fit the certificate is `invalid.request` naming the setting and the path, before any
//!   connection.
//! * **Unix sockets** never use TLS (the server does not offer it there; libpq does the same),
//!   whatever the mode: the socket's permissions protect it.
//! * **Failures** of the handshake (no TLS on the server under `require`, an untrusted
//!   certificate, another host's certificate) are told apart from other connection errors
//!   ([`is_tls_failure`]) so the error can say it was TLS.

use crate::error::{Error, Result};
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, verify_tls12_signature, verify_tls13_signature};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::{CertificateError, DigitallySignedStruct, SignatureScheme};
use std::path::PathBuf;
use std::sync::Arc;

/// The URL query keys this module reads (and takes out before the rest is parsed).
pub(super) const KEYS: [&str; 4] = ["sslmode", "sslrootcert", "sslcert", "sslkey"];

/// How much TLS a connection asks for (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SslMode {
    Disable,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

impl SslMode {
    /// The name as written in a URL.
    pub fn name(self) -> &'static str {
        match self {
            SslMode::Disable => "disable",
            SslMode::Prefer => "prefer",
            SslMode::Require => "require",
            SslMode::VerifyCa => "verify-ca",
            SslMode::VerifyFull => "verify-full",
        }
    }

    fn parse(text: &str) -> Option<SslMode> {
        Some(match text {
            "disable" => SslMode::Disable,
            "prefer" => SslMode::Prefer,
            "require" => SslMode::Require,
            "verify-ca" => SslMode::VerifyCa,
            "verify-full" => SslMode::VerifyFull,
            _ => return None,
        })
    }
}

/// Where trusted roots come from.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Roots {
    System,
    File(PathBuf),
}

/// The TLS part of a `database.url`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsSettings {
    mode: SslMode,
    roots: Option<Roots>,
    /// The client's certificate chain and private key (PEM files), both or neither.
    client: Option<(PathBuf, PathBuf)>,
}

impl TlsSettings {
    /// Reads `sslmode` and `sslrootcert` from the URL's query pairs (already decoded).
    pub(super) fn from_pairs<'a>(
        pairs: impl Iterator<Item = (&'a str, &'a str)>,
    ) -> std::result::Result<TlsSettings, String> {
        let mut mode = None;
        let mut roots = None;
        let (mut cert, mut key) = (None, None);
        for (k, v) in pairs {
            match k {
                "sslmode" => {
                    mode = Some(SslMode::parse(v).ok_or_else(|| {
                        format!(
                            "sslmode={v:?} is not one of disable, prefer, require, verify-ca, \
                             verify-full"
                        )
                    })?);
                }
                "sslrootcert" if v.is_empty() => return Err("sslrootcert is empty".into()),
                "sslrootcert" if v == "system" => roots = Some(Roots::System),
                "sslrootcert" => roots = Some(Roots::File(PathBuf::from(v))),
                "sslcert" | "sslkey" if v.is_empty() => return Err(format!("{k} is empty")),
                "sslcert" => cert = Some(PathBuf::from(v)),
                "sslkey" => key = Some(PathBuf::from(v)),
                _ => {}
            }
        }
        let client = match (cert, key) {
            (Some(c), Some(k)) => Some((c, k)),
            (None, None) => None,
            (Some(_), None) => return Err("sslcert needs sslkey (the certificate's key)".into()),
            (None, Some(_)) => return Err("sslkey needs sslcert (the key's certificate)".into()),
        };
        let mode = match (mode, &roots) {
            (Some(m), _) => m,
            // libpq: sslrootcert=system without a mode verifies fully.
            (None, Some(Roots::System)) => SslMode::VerifyFull,
            (None, _) => SslMode::Prefer,
        };
        let mode = match (mode, &roots) {
            // libpq: a root certificate given under require is checked (as verify-ca).
            (SslMode::Require, Some(_)) => SslMode::VerifyCa,
            (SslMode::Disable | SslMode::Prefer, Some(Roots::System)) => {
                return Err(format!(
                    "sslrootcert=system needs sslmode verify-ca or verify-full, not {}",
                    mode.name()
                ));
            }
            (m, _) => m,
        };
        Ok(TlsSettings {
            mode,
            roots,
            client,
        })
    }

    /// The mode asked for.
    pub fn mode(&self) -> SslMode {
        self.mode
    }

    /// The mode the `postgres` client negotiates with: whether TLS is tried and whether it
    /// must succeed (the certificate checks are the verifier's).
    pub(super) fn client_mode(&self) -> postgres::config::SslMode {
        match self.mode {
            SslMode::Disable => postgres::config::SslMode::Disable,
            SslMode::Prefer => postgres::config::SslMode::Prefer,
            SslMode::Require | SslMode::VerifyCa | SslMode::VerifyFull => {
                postgres::config::SslMode::Require
            }
        }
    }

    /// The `rustls` connector for this mode, its roots loaded now; `None` for `disable`.
    pub(super) fn connector(
        &self,
        setting: &str,
    ) -> Result<Option<tokio_postgres_rustls::MakeRustlsConnect>> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let verifier: Arc<dyn ServerCertVerifier> = match self.mode {
            SslMode::Disable => return Ok(None),
            SslMode::Prefer | SslMode::Require => Arc::new(Unchecked(provider.clone())),
            SslMode::VerifyCa | SslMode::VerifyFull => {
                let roots = self.root_store(setting)?;
                let webpki = rustls::client::WebPkiServerVerifier::builder_with_provider(
                    roots,
                    provider.clone(),
                )
                .build()
                .map_err(|e| {
                    Error::invalid(format!("{setting}: the trusted roots are unusable: {e}"))
                        .with("setting", setting)
                })?;
                if self.mode == SslMode::VerifyCa {
                    Arc::new(ChainOnly(webpki))
                } else {
                    webpki
                }
            }
        };
        let builder = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| Error::internal(format!("TLS set-up: {e}")))?
            .dangerous()
            .with_custom_certificate_verifier(verifier);
        let config = match &self.client {
            None => builder.with_no_client_auth(),
            Some((cert, key)) => {
                let (chain, private) = client_identity(setting, cert, key)?;
                builder.with_client_auth_cert(chain, private).map_err(|e| {
                    Error::invalid(format!(
                        "{setting}: sslkey {} does not fit sslcert {}: {e}",
                        key.display(),
                        cert.display()
                    ))
                    .with("setting", setting)
                    .with("path", key.display().to_string())
                })?
            }
        };
        Ok(Some(tokio_postgres_rustls::MakeRustlsConnect::new(config)))
    }

    fn root_store(&self, setting: &str) -> Result<Arc<rustls::RootCertStore>> {
        let mut store = rustls::RootCertStore::empty();
        match &self.roots {
            Some(Roots::File(path)) => {
                let bad = |why: String| {
                    Error::invalid(format!("{setting}: sslrootcert {}: {why}", path.display()))
                        .with("setting", setting)
                        .with("path", path.display().to_string())
                };
                let certs = CertificateDer::pem_file_iter(path)
                    .map_err(|e| bad(format!("cannot be read ({e})")))?
                    .collect::<std::result::Result<Vec<_>, _>>()
                    .map_err(|e| bad(format!("is not PEM certificates ({e})")))?;
                let (added, _) = store.add_parsable_certificates(certs);
                if added == 0 {
                    return Err(bad("holds no usable certificate".into()));
                }
            }
            None | Some(Roots::System) => {
                let found = rustls_native_certs::load_native_certs();
                store.add_parsable_certificates(found.certs);
                if store.is_empty() {
                    return Err(Error::invalid(format!(
                        "{setting}: sslmode={} found no system root certificates: give the \
                         server's CA as sslrootcert=PATH",
                        self.mode.name()
                    ))
                    .with("setting", setting));
                }
            }
        }
        Ok(Arc::new(store))
    }
}

/// The client's certificate chain (`cert`) and private key (`key`), read and checked (see the
/// module docs).
fn client_identity(
    setting: &str,
    cert: &std::path::Path,
    key: &std::path::Path,
) -> Result<(Vec<CertificateDer<'static>>, PrivateKeyDer<'static>)> {
    let bad = |name: &str, path: &std::path::Path, why: String| {
        Error::invalid(format!("{setting}: {name} {}: {why}", path.display()))
            .with("setting", setting)
            .with("path", path.display().to_string())
    };
    let chain = CertificateDer::pem_file_iter(cert)
        .map_err(|e| bad("sslcert", cert, format!("cannot be read ({e})")))?
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|e| bad("sslcert", cert, format!("is not PEM certificates ({e})")))?;
    if chain.is_empty() {
        return Err(bad("sslcert", cert, "holds no certificate".into()));
    }
    key_permissions(key).map_err(|why| bad("sslkey", key, why))?;
    let private = PrivateKeyDer::from_pem_file(key).map_err(|e| {
        bad(
            "sslkey",
            key,
            format!("holds no usable PEM private key ({e})"),
        )
    })?;
    Ok((chain, private))
}

/// libpq's rule for a private key file: not readable by others, nor by its group unless
/// root owns it (then at most `0640`).
fn key_permissions(key: &std::path::Path) -> std::result::Result<(), String> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(key).map_err(|e| format!("cannot be read ({e})"))?;
    if !meta.is_file() {
        return Err("is not a file".into());
    }
    let mode = meta.mode() & 0o777;
    let allowed = if meta.uid() == 0 { 0o640 } else { 0o600 };
    if mode & !allowed != 0 {
        return Err(format!(
            "has permissions {mode:04o}: it must be u=rw (0600) or less, or u=rw,g=r (0640) \
             or less when root owns it"
        ));
    }
    Ok(())
}

/// Whether a connection error is a failed TLS negotiation (the server refusing TLS under a
/// mode that requires it, or the handshake failing), with its cause.
pub(super) fn is_tls_failure(e: &postgres::Error) -> Option<String> {
    // The client's error for a TLS failure says only this; the cause is its source.
    if e.to_string().starts_with("error performing TLS handshake") {
        return Some(
            std::error::Error::source(e)
                .map(|s| s.to_string())
                .unwrap_or_else(|| "the handshake failed".to_string()),
        );
    }
    // Under TLS 1.3 the server judges the client's certificate after the client finished its
    // part of the handshake: its refusal (an alert) arrives as an I/O error of the first read.
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        let tls = s
            .downcast_ref::<std::io::Error>()
            .and_then(|io| io.get_ref())
            .and_then(|inner| inner.downcast_ref::<rustls::Error>())
            .or_else(|| s.downcast_ref::<rustls::Error>());
        if let Some(t) = tls {
            return Some(t.to_string());
        }
        source = s.source();
    }
    None
}

/// `require` and `prefer`: encrypted, but any certificate is accepted (as libpq does); the
/// handshake's signatures are still checked, so the server holds the key of what it sent.
#[derive(Debug)]
struct Unchecked(Arc<CryptoProvider>);

impl ServerCertVerifier for Unchecked {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> std::result::Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// `verify-ca`: the chain must lead to a trusted root; the name in it is not compared with the
/// host. The chain is checked before the name, so a name mismatch means the chain was good.
#[derive(Debug)]
struct ChainOnly(Arc<rustls::client::WebPkiServerVerifier>);

impl ServerCertVerifier for ChainOnly {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> std::result::Result<ServerCertVerified, rustls::Error> {
        match self
            .0
            .verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now)
        {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(q: &[(&str, &str)]) -> std::result::Result<TlsSettings, String> {
        TlsSettings::from_pairs(q.iter().copied())
    }

    #[test]
    fn modes_read_as_libpq_reads_them() {
        assert_eq!(read(&[]).unwrap().mode(), SslMode::Prefer);
        assert_eq!(
            read(&[("sslmode", "disable")]).unwrap().mode(),
            SslMode::Disable
        );
        assert_eq!(
            read(&[("sslmode", "require")]).unwrap().mode(),
            SslMode::Require
        );
        assert_eq!(
            read(&[("sslmode", "require"), ("sslrootcert", "/ca.pem")])
                .unwrap()
                .mode(),
            SslMode::VerifyCa
        );
        assert_eq!(
            read(&[("sslrootcert", "system")]).unwrap().mode(),
            SslMode::VerifyFull
        );
        assert_eq!(
            read(&[("sslmode", "verify-full")]).unwrap().client_mode(),
            postgres::config::SslMode::Require
        );
        assert!(read(&[("sslmode", "allow")]).is_err());
        assert!(read(&[("sslmode", "VERIFY-FULL")]).is_err());
        assert!(read(&[("sslrootcert", "")]).is_err());
        assert!(read(&[("sslmode", "prefer"), ("sslrootcert", "system")]).is_err());
        assert!(read(&[("sslcert", "/c.pem")]).is_err());
        assert!(read(&[("sslkey", "/k.pem")]).is_err());
        assert!(read(&[("sslcert", ""), ("sslkey", "/k.pem")]).is_err());
        assert_eq!(
            read(&[("sslcert", "/c.pem"), ("sslkey", "/k.pem")])
                .unwrap()
                .client,
            Some((PathBuf::from("/c.pem"), PathBuf::from("/k.pem")))
        );
    }
}
