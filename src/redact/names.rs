//! Names that say secret: JSON field names and environment variable names whose value is a
//! secret.

/// Field-name endings (after [`normalize_name`]) that mark a string value as a secret anywhere
/// at the end of the name (`dbPassword`, `csrftoken`).
const SECRET_SUFFIXES: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "secret",
    "token",
    "apikey",
    "api_key",
    "secret_key",
    "access_key",
    "private_key",
    "signing_key",
    "encryption_key",
    "credential",
    "credentials",
    "authorization",
    "cookie",
];

/// Short names that are a secret only as a whole name or a whole `_`-separated last part.
const SECRET_WORDS: &[&str] = &["pwd", "pass", "auth"];

/// `secretKey` → `secret_key`, `x-api-key` → `x_api_key`, `DB_PASSWORD` → `db_password`.
fn normalize_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    let mut prev_lower = false;
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            if prev_lower {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
            prev_lower = false;
        } else if c == '-' || c == ' ' || c == '.' {
            out.push('_');
            prev_lower = false;
        } else {
            out.push(c);
            prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        }
    }
    out
}

/// Whether a JSON field's name says its value is a secret.
pub fn is_secret_field(name: &str) -> bool {
    let k = normalize_name(name);
    SECRET_SUFFIXES.iter().any(|w| k.ends_with(w))
        || SECRET_WORDS.iter().any(|w| {
            k.strip_suffix(w)
                .is_some_and(|rest| rest.is_empty() || rest.ends_with('_'))
        })
}

/// Whether an environment variable's name marks its value as a secret.
pub fn is_secret_env_name(name: &str) -> bool {
    let n = name.to_ascii_uppercase();
    [
        "KEY",
        "TOKEN",
        "SECRET",
        "PASSWORD",
        "PASSWD",
        "PWD",
        "PASS",
        "CREDENTIALS",
        "APIKEY",
    ]
    .iter()
    .any(|s| {
        n.strip_suffix(s)
            .is_some_and(|rest| rest.is_empty() || rest.ends_with('_'))
    }) && n != "PWD"
        && n != "OLDPWD"
}
