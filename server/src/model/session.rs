//! What the models built on one ONNX session share: the session behind a lock (inference is
//! serialised; ONNX Runtime parallelises inside each run), where it was loaded from, the device it
//! runs on and a count of the runs made, plus checks of a session's signature and of its outputs.
//!
//! The paragraph reader ([`super::reader`]) holds one [`ModelSession`]; the sentence encoder keeps
//! its own fuller statistics.

use super::runtime::{Provider, SessionChoice};
use ort::session::{Session, SessionOutputs};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

/// A loaded session with its file, its device and a run counter. Shareable across threads.
pub(crate) struct ModelSession {
    session: Mutex<Session>,
    path: PathBuf,
    provider: Provider,
    runs: AtomicU64,
}

impl std::fmt::Debug for ModelSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelSession")
            .field("path", &self.path)
            .field("provider", &self.provider)
            .finish_non_exhaustive()
    }
}

impl ModelSession {
    /// Wraps the session `choice` made from the ONNX file at `path`.
    pub(crate) fn new(choice: SessionChoice, path: &Path) -> ModelSession {
        ModelSession {
            session: Mutex::new(choice.session),
            path: path.to_path_buf(),
            provider: choice.provider,
            runs: AtomicU64::new(0),
        }
    }

    /// Where it runs.
    pub(crate) fn provider(&self) -> Provider {
        self.provider
    }

    /// The ONNX file.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The units (pairs, paragraphs) counted with [`ModelSession::count`] so far.
    pub(crate) fn runs(&self) -> u64 {
        self.runs.load(Ordering::Relaxed)
    }

    /// Adds `units` to the run counter.
    pub(crate) fn count(&self, units: u64) {
        self.runs.fetch_add(units, Ordering::Relaxed);
    }

    /// The session, for one run. A lock poisoned by a panicking holder is taken over: a session
    /// keeps no state between runs.
    pub(crate) fn lock(&self) -> MutexGuard<'_, Session> {
        self.session.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A session's input names, sorted, and its output names, in the model's order.
pub(crate) fn signature(session: &Session) -> (Vec<String>, Vec<String>) {
    let mut inputs: Vec<String> = session
        .inputs()
        .iter()
        .map(|i| i.name().to_string())
        .collect();
    inputs.sort_unstable();
    let outputs = session
        .outputs()
        .iter()
        .map(|o| o.name().to_string())
        .collect();
    (inputs, outputs)
}

/// The values of output `name`.
pub(crate) fn f32_values(outputs: &SessionOutputs<'_>, name: &str) -> Result<Vec<f32>, String> {
    let value = outputs
        .get(name)
        .ok_or_else(|| format!("the model has no output `{name}`"))?;
    let (_, data) = value
        .try_extract_tensor::<f32>()
        .map_err(|e| e.to_string())?;
    Ok(data.to_vec())
}

/// The values of output `name`, which must hold exactly `len` of them.
pub(crate) fn f32_output(
    outputs: &SessionOutputs<'_>,
    name: &str,
    len: usize,
) -> Result<Vec<f32>, String> {
    let data = f32_values(outputs, name)?;
    if data.len() != len {
        return Err(format!(
            "output `{name}` has {} values where {len} were expected",
            data.len()
        ));
    }
    Ok(data)
}
