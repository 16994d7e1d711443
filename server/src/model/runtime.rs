//! Finding and loading ONNX Runtime, and choosing where a model runs.
//!
//! `ort` is built with `load-dynamic`: `libonnxruntime` is opened at run time, once per process.
//! The library is looked for, in order, at the `ort_dylib` setting ([`ModelOptions::ort_dylib`]),
//! `SEGUE_ORT_DYLIB`, `ORT_DYLIB_PATH`, and the models folder (`lib/gpu/` when the device may be
//! CUDA and the GPU build is installed, else `lib/`). The first one *given* is used: a setting that
//! points at a bad path is an error, not a reason to try the next.
//!
//! Execution providers: `device = "cpu"` runs on the CPU provider; `"cuda"` requires the CUDA
//! provider and fails with a message otherwise; `"auto"` tries CUDA and falls back to the CPU,
//! remembering why ([`SessionChoice::note`]) so `segue doctor` and the log line can say so.
//!
//! Telemetry is off, and Segue makes no network access: see [`disable_telemetry`].

use super::files::{cpu_library, gpu_library};
use super::{ModelError, ModelOptions};
use crate::config::Device;
use ort::environment::Environment;
use ort::ep::ExecutionProvider;
use ort::session::builder::{GraphOptimizationLevel, SessionBuilder};
use ort::session::Session;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// How the ONNX Runtime library was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LibrarySource {
    /// The `ort_dylib` setting.
    Setting,
    /// The `SEGUE_ORT_DYLIB` environment variable.
    SegueEnv,
    /// The `ORT_DYLIB_PATH` environment variable (`ort`'s own).
    OrtEnv,
    /// The models folder (`models/install`).
    ModelsFolder,
}

impl fmt::Display for LibrarySource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LibrarySource::Setting => "the ort_dylib setting",
            LibrarySource::SegueEnv => "SEGUE_ORT_DYLIB",
            LibrarySource::OrtEnv => "ORT_DYLIB_PATH",
            LibrarySource::ModelsFolder => "the models folder",
        })
    }
}

/// The execution provider a session runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provider {
    /// ONNX Runtime's CPU provider.
    Cpu,
    /// ONNX Runtime's CUDA provider.
    Cuda,
}

impl Provider {
    /// ONNX Runtime's name for it.
    pub fn ort_name(self) -> &'static str {
        match self {
            Provider::Cpu => "CPUExecutionProvider",
            Provider::Cuda => "CUDAExecutionProvider",
        }
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Provider::Cpu => "CPU",
            Provider::Cuda => "CUDA",
        })
    }
}

/// The loaded ONNX Runtime library and its environment (one per process).
pub struct Runtime {
    /// The library file.
    pub path: PathBuf,
    /// How it was found.
    pub source: LibrarySource,
    /// Its version, e.g. `1.31.1`, when it could be read.
    pub version: Option<String>,
    env: Environment,
}

impl fmt::Debug for Runtime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Runtime")
            .field("path", &self.path)
            .field("source", &self.source)
            .field("version", &self.version)
            .finish_non_exhaustive()
    }
}

static RUNTIME: Mutex<Option<Arc<Runtime>>> = Mutex::new(None);

/// The environment variable that turns ONNX Runtime's telemetry off.
pub const TELEMETRY_VAR: &str = "ORT_DISABLE_TELEMETRY";

/// Turns ONNX Runtime's telemetry off for this process by setting `ORT_DISABLE_TELEMETRY=1`.
///
/// **Why the variable.** The Linux build of ONNX Runtime 1.31 starts its telemetry when the
/// environment is created (`CreateEnv`): it writes a device id and an event database under
/// `~/.cache/Microsoft/DeveloperTools/.onnxruntime/` at once and, about ten seconds later, looks
/// up its collector host by DNS and tries to upload. `DisableTelemetryEvents` (the `ort` crate's
/// `with_telemetry(false)`, which [`Runtime::get`] also calls) comes after `CreateEnv` and stops
/// none of it; the variable, read by `CreateEnv`, stops all of it (measured with strace: no
/// socket, no DNS, no file under `~/.cache/Microsoft`; `server/tests/privacy.rs` checks it).
///
/// **Why here, and when.** Setting an environment variable is sound only while no other thread
/// reads the environment (which is why Rust 2024 makes `set_var` unsafe). The `segue` binary
/// calls this first thing in `main`, before any thread exists. [`Runtime::get`] calls it again
/// before it loads the library, so that programs using the library directly (tests, benchmarks,
/// other embedders) never create an ONNX Runtime environment with telemetry on: there it does
/// nothing when `main` (or the user) already set the variable; otherwise it writes it under the
/// runtime lock, before ONNX Runtime is loaded, where Rust's own environment accesses are
/// serialised by the standard library and the remaining hazard is foreign code reading the
/// environment on another thread at that instant.
pub fn disable_telemetry() {
    if std::env::var_os(TELEMETRY_VAR).is_some_and(|v| v == "1") {
        return;
    }
    // SAFETY (for Rust 2024, where this is unsafe): see above; in the binary no other thread
    // exists yet.
    #[allow(unused_unsafe)]
    unsafe {
        std::env::set_var(TELEMETRY_VAR, "1");
    }
}

/// Where the library would be loaded from for `options`, and how that path was chosen, without
/// loading it. `models_dir` is the models folder, when one was found.
pub fn resolve_library(
    options: &ModelOptions,
    models_dir: Option<&Path>,
) -> Result<(PathBuf, LibrarySource), ModelError> {
    let given = |path: PathBuf, source: LibrarySource| {
        if path.is_file() {
            Ok((path, source))
        } else {
            Err(ModelError::LibraryMissing(format!(
                "{source} points at {}, which is not a file",
                path.display()
            )))
        }
    };
    if let Some(p) = &options.ort_dylib {
        return given(p.clone(), LibrarySource::Setting);
    }
    for (var, source) in [
        ("SEGUE_ORT_DYLIB", LibrarySource::SegueEnv),
        ("ORT_DYLIB_PATH", LibrarySource::OrtEnv),
    ] {
        if let Some(v) = std::env::var_os(var).filter(|v| !v.is_empty()) {
            return given(PathBuf::from(v), source);
        }
    }
    let Some(dir) = models_dir else {
        return Err(ModelError::LibraryMissing(
            "no models folder was found and neither SEGUE_ORT_DYLIB nor ORT_DYLIB_PATH is set"
                .into(),
        ));
    };
    let gpu = gpu_library(dir);
    if options.device != Device::Cpu && gpu.is_file() {
        return Ok((gpu, LibrarySource::ModelsFolder));
    }
    let cpu = cpu_library(dir);
    if cpu.is_file() {
        Ok((cpu, LibrarySource::ModelsFolder))
    } else {
        Err(ModelError::LibraryMissing(format!(
            "{} does not exist",
            cpu.display()
        )))
    }
}

impl Runtime {
    /// The process's runtime: loaded on the first successful call, reused afterwards (ONNX Runtime
    /// can be loaded only once per process; later calls get the first library whatever their
    /// options say). A failed load is not remembered.
    pub fn get(
        options: &ModelOptions,
        models_dir: Option<&Path>,
    ) -> Result<Arc<Runtime>, ModelError> {
        let mut slot = RUNTIME.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(rt) = slot.as_ref() {
            return Ok(rt.clone());
        }
        let (path, source) = resolve_library(options, models_dir)?;
        // Before the environment is created: that is when ONNX Runtime reads it.
        disable_telemetry();
        let load_err = |message: String| ModelError::LibraryLoad {
            path: path.clone(),
            found_via: source,
            message,
        };
        let builder = ort::init_from(&path).map_err(|e| load_err(e.to_string()))?;
        let env = builder
            .with_name("segue")
            .with_telemetry(false)
            .build()
            .map_err(|e| load_err(e.to_string()))?;
        let version = version_of(&path);
        let rt = Arc::new(Runtime {
            path,
            source,
            version,
            env,
        });
        *slot = Some(rt.clone());
        Ok(rt)
    }

    /// The runtime if one is loaded already.
    pub fn loaded() -> Option<Arc<Runtime>> {
        RUNTIME.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Whether this build of ONNX Runtime includes the CUDA provider.
    pub fn has_cuda(&self) -> bool {
        ort::ep::CUDA::is_available().unwrap_or(false)
    }

    /// Whether sessions for `options` will run on the CPU provider: the device is `cpu`, or `auto`
    /// with a library that has no CUDA provider beside it. (An `auto` session that tries CUDA and
    /// falls back runs on the CPU too, but that is only known once it is made.)
    pub fn cpu_only(&self, options: &ModelOptions) -> bool {
        const CUDA_PROVIDER: &str = if cfg!(windows) {
            "onnxruntime_providers_cuda.dll"
        } else {
            "libonnxruntime_providers_cuda.so"
        };
        options.device == Device::Cpu
            || (options.device == Device::Auto
                && !self.path.with_file_name(CUDA_PROVIDER).is_file())
    }

    /// A session for the ONNX file at `model_path` on the provider `options.device` asks for.
    pub fn session(
        &self,
        model_path: &Path,
        options: &ModelOptions,
        models_dir: Option<&Path>,
    ) -> Result<SessionChoice, ModelError> {
        self.session_with(model_path, options, models_dir, true)
    }

    /// [`Runtime::session`], with or without ONNX Runtime's memory arena on the CPU. Without it
    /// suits a small graph whose tensors grow with the square of its input (the ordering heads'
    /// `[n, n, hidden]` pair layers): each run's buffers go back to the system when it ends
    /// instead of staying at the largest set's size for the life of the session (a 500-sentence
    /// set's head keeps about 200 MB otherwise). Other devices use their own allocators.
    pub fn session_with(
        &self,
        model_path: &Path,
        options: &ModelOptions,
        models_dir: Option<&Path>,
        cpu_arena: bool,
    ) -> Result<SessionChoice, ModelError> {
        let model_err = |message: String| ModelError::Model {
            path: model_path.to_path_buf(),
            message,
        };
        if !model_path.is_file() {
            return Err(model_err("the file does not exist".into()));
        }
        let threads = options.threads();
        let spin = options.spinning;
        let cpu = || -> Result<Session, ModelError> {
            let mut builder = self.builder(threads, spin).map_err(model_err)?;
            if !cpu_arena {
                builder = builder
                    .with_execution_providers([ort::ep::CPU::default()
                        .with_arena_allocator(false)
                        .build()])
                    .map_err(|e| model_err(e.to_string()))?;
            }
            builder
                .commit_from_file(model_path)
                .map_err(|e| model_err(e.to_string()))
        };
        if options.device == Device::Cpu {
            return Ok(SessionChoice {
                session: cpu()?,
                provider: Provider::Cpu,
                threads,
                note: None,
            });
        }
        let why_not = match self.cuda_session(model_path, threads, spin, models_dir) {
            Ok(session) => {
                return Ok(SessionChoice {
                    session,
                    provider: Provider::Cuda,
                    threads,
                    note: None,
                })
            }
            Err(why) => why,
        };
        if options.device == Device::Cuda {
            return Err(ModelError::Cuda(why_not));
        }
        Ok(SessionChoice {
            session: cpu()?,
            provider: Provider::Cpu,
            threads,
            note: Some(format!("CUDA not used: {why_not}")),
        })
    }

    fn builder(&self, threads: usize, spinning: bool) -> Result<SessionBuilder, String> {
        Session::builder(&self.env)
            .map_err(|e| e.to_string())?
            .with_optimization_level(GraphOptimizationLevel::Level3)
            .map_err(|e| e.to_string())?
            .with_intra_threads(threads)
            .map_err(|e| e.to_string())?
            .with_inter_threads(1)
            .map_err(|e| e.to_string())?
            .with_intra_op_spinning(spinning)
            .map_err(|e| e.to_string())?
            .with_inter_op_spinning(spinning)
            .map_err(|e| e.to_string())
    }

    fn cuda_session(
        &self,
        model_path: &Path,
        threads: usize,
        spinning: bool,
        models_dir: Option<&Path>,
    ) -> Result<Session, String> {
        if !self.has_cuda() {
            return Err("this ONNX Runtime build has no CUDA provider".to_string());
        }
        // CUDA and cuDNN libraries that `models/install --gpu` copied from the nvidia wheels.
        if let Some(dir) = models_dir
            .map(|d| d.join("lib").join("gpu").join("cuda"))
            .filter(|d| d.is_dir())
        {
            let _ = ort::ep::cuda::preload_dylibs(Some(&dir), Some(&dir));
        }
        let builder = self.builder(threads, spinning)?;
        let mut builder = builder
            .with_execution_providers([ort::ep::CUDA::default().build().error_on_failure()])
            .map_err(|e| e.to_string())?;
        builder
            .commit_from_file(model_path)
            .map_err(|e| e.to_string())
    }
}

/// A session and where it runs.
pub struct SessionChoice {
    /// The session.
    pub session: Session,
    /// The provider it runs on.
    pub provider: Provider,
    /// Intra-op threads.
    pub threads: usize,
    /// Why the preferred provider was not used, when it was not.
    pub note: Option<String>,
}

/// The version in a library file name such as `libonnxruntime.so.1.31.1`, or from ONNX Runtime's
/// build string.
fn version_of(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_string_lossy().to_string();
    let from_name = name
        .split(['.', '-'])
        .skip_while(|p| p.parse::<u32>().is_err())
        .take_while(|p| p.parse::<u32>().is_ok())
        .collect::<Vec<_>>();
    if from_name.len() >= 2 {
        return Some(from_name.join("."));
    }
    let info = ort::info();
    info.split(|c: char| c == ',' || c.is_whitespace())
        .find_map(|p| p.strip_prefix("git-branch=rel-"))
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_given_bad_path_is_an_error_naming_its_source() {
        let options = ModelOptions {
            ort_dylib: Some(PathBuf::from("/nonexistent/libonnxruntime.so")),
            ..ModelOptions::default()
        };
        let err = resolve_library(&options, None).unwrap_err().to_string();
        assert!(err.contains("ort_dylib setting"), "{err}");
        assert!(err.contains("models/install"), "{err}");
    }

    #[test]
    fn versions_come_from_file_names() {
        assert_eq!(
            version_of(Path::new("/x/libonnxruntime.so.1.31.1")).as_deref(),
            Some("1.31.1")
        );
    }
}
