//! `cargo bench --bench encoder`: sentence-encoder throughput of the Rust path (tokenizers + ort)
//! against Python onnxruntime (models/export/bench_python.py) on the same model, sentences and
//! thread count, measured in the same run so the ratio does not depend on the machine.
//!
//! Both sides tokenize, sort by length, batch, pad per batch and run; the cache is bypassed.
//! Python runs as a child process serving one timed pass per request, and the two sides'
//! passes alternate, so a busy machine slows both alike. Reported per batch size (1, 8, 32, 64):
//! sentences per second (best of `SEGUE_BENCH_REPS` passes, 3), plus model load time and peak RSS
//! (VmHWM) of each process. Thread spinning follows `SEGUE_SPIN` on both sides (default off).
//! Provider: the CPU, or CUDA on both sides with `SEGUE_DEVICE=cuda` (needs `models/install --gpu`
//! and a `SEGUE_PYTHON` whose onnxruntime is the onnxruntime-gpu 1.31.1 build).
//!
//! Sentences: the first `SEGUE_BENCH_N` (512) of `SEGUE_BENCH_DATA`, else ../shared/data/dev.jsonl,
//! else tests/fixtures/eval-small.jsonl. Threads: `SEGUE_THREADS` or the default (≤ 4 cores).
//! Python: `SEGUE_PYTHON` (an interpreter with numpy, onnxruntime 1.31.1 and tokenizers), else
//! models/.venv (made by models/install), else models/train/.venv. The load average before and
//! after is printed, since a loaded machine lowers both sides' figures (though not their ratio).
//! Needs `models/install`; prints a reason and exits when the model is absent.

use segue::config::Device;
use segue::model::{Encoder, ModelOptions, MINILM};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Instant;

const BATCHES: [usize; 4] = [1, 8, 32, 64];

fn root() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    std::fs::canonicalize(&root).unwrap_or(root)
}

fn env_usize(key: &str, default: usize) -> usize {
    std::env::var(key)
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(default)
}

fn sentences(n: usize) -> (Vec<String>, PathBuf) {
    let candidates = [
        std::env::var_os("SEGUE_BENCH_DATA").map(PathBuf::from),
        Some(root().join("../shared/data/dev.jsonl")),
        Some(root().join("tests/fixtures/eval-small.jsonl")),
    ];
    let path = candidates
        .into_iter()
        .flatten()
        .find(|p| p.is_file())
        .expect("a corpus to read sentences from");
    let docs = segue::eval::data::read_corpus(&path).expect("the corpus parses");
    let out: Vec<String> = docs
        .iter()
        .flat_map(|d| {
            d.sentences()
                .into_iter()
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .take(n)
        .collect();
    (out, path)
}

/// CPU unless `SEGUE_DEVICE=cuda` (then CUDA on both sides; a failure to use it is an error, never
/// a silent CPU run).
fn bench_device() -> Device {
    match std::env::var("SEGUE_DEVICE").as_deref() {
        Ok("cuda") => Device::Cuda,
        _ => Device::Cpu,
    }
}

/// The 1-minute load average, from /proc/loadavg.
fn load_average() -> Option<String> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    text.split_whitespace().next().map(str::to_string)
}

/// The Python interpreter for the baseline: `SEGUE_PYTHON`, else models/.venv, else
/// models/train/.venv (both have numpy, onnxruntime 1.31.1 and tokenizers).
fn python_path(dir: &Path) -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("SEGUE_PYTHON").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(p));
    }
    [".venv/bin/python", "train/.venv/bin/python"]
        .iter()
        .map(|p| dir.join(p))
        .find(|p| p.is_file())
}

fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kib: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    Some(kib / 1024.0)
}

fn main() {
    let dir = root().join("models");
    if !MINILM.model_path(&dir).is_file() {
        eprintln!(
            "encoder bench: {} is absent; run models/install",
            MINILM.model_path(&dir).display()
        );
        return;
    }
    let n = env_usize("SEGUE_BENCH_N", 512);
    let reps = env_usize("SEGUE_BENCH_REPS", 3);
    // The float32 weights, as Python's side runs them.
    let options = ModelOptions {
        models_dir: Some(dir.clone()),
        device: bench_device(),
        precision: segue::model::Precision::Fp32,
        ..ModelOptions::from_env()
    };
    let threads = options.threads();
    let (texts, corpus) = sentences(n);
    let mean_tokens;

    // Python onnxruntime on the same sentences and threads, as a server so that its runs
    // interleave with ours and both see the same load.
    let cuda = options.device == Device::Cuda;
    let mut python = Python::start(&dir, &texts, threads, options.spinning, cuda);

    let t = Instant::now();
    let enc = Encoder::load(&MINILM, &options).expect("the model loads");
    let rust_load = t.elapsed().as_secs_f64();
    {
        let total: usize = texts
            .iter()
            .map(|s| enc.token_ids(s).map(|t| t.len()).unwrap_or(0))
            .sum();
        mean_tokens = total as f64 / texts.len().max(1) as f64;
    }
    black_box(
        enc.encode(&texts[..texts.len().min(64)], 32)
            .expect("warm-up"),
    );
    let load_before = load_average();
    let mut rust = [f64::INFINITY; BATCHES.len()];
    let mut py = [f64::INFINITY; BATCHES.len()];
    for _ in 0..reps {
        for (i, &b) in BATCHES.iter().enumerate() {
            let t = Instant::now();
            black_box(enc.encode(&texts, b).expect("encode"));
            rust[i] = rust[i].min(t.elapsed().as_secs_f64());
            if let Ok(p) = python.as_mut() {
                match p.time(b) {
                    Ok(secs) => py[i] = py[i].min(secs),
                    Err(e) => python = Err(e),
                }
            }
        }
    }
    let rust: Vec<f64> = rust.iter().map(|s| texts.len() as f64 / s).collect();
    let load_after = load_average();
    let rust_rss = peak_rss_mib();
    let python = python.and_then(|p| p.finish()).map(|(load, rss)| {
        let rates: Vec<f64> = py.iter().map(|s| texts.len() as f64 / s).collect();
        (load, rss, rates)
    });

    println!();
    println!(
        "encoder: {} ({} sentences from {}, mean {:.1} tokens), {}, {threads} intra-op thread{}, best of {reps}",
        MINILM.name,
        texts.len(),
        corpus.display(),
        mean_tokens,
        enc.info().provider.ort_name(),
        if threads == 1 { "" } else { "s" }
    );
    if let Ok(Some(py)) = python.as_ref().map(|_| python_path(&dir)) {
        println!("Python: {}", py.display());
    }
    println!(
        "load average (1 min) before / after the timed passes: {} / {} on {} cores",
        load_before.as_deref().unwrap_or("?"),
        load_after.as_deref().unwrap_or("?"),
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    println!();
    println!(
        "| batch      | Rust (ort + tokenizers) sent/s | Python onnxruntime sent/s | Rust / Python |"
    );
    println!(
        "|-----------:|-------------------------------:|--------------------------:|--------------:|"
    );
    let dash = "–";
    for (i, b) in BATCHES.iter().enumerate() {
        match &python {
            Ok((_, _, p)) => println!(
                "| {b:>10} | {:>30.0} | {:>25.0} | {:>12.2}× |",
                rust[i],
                p[i],
                rust[i] / p[i]
            ),
            Err(_) => println!("| {b:>10} | {:>30.0} | {dash:>25} | {dash:>13} |", rust[i]),
        }
    }
    let fmt_rss = |r: Option<f64>| r.map_or("?".to_string(), |m| format!("{m:.0} MiB"));
    let (py_load, py_rss) = match &python {
        Ok((load, rss, _)) => (format!("{:.0} ms", load * 1e3), fmt_rss(*rss)),
        Err(_) => (dash.to_string(), dash.to_string()),
    };
    let (rust_load, rust_rss, blank) =
        (format!("{:.0} ms", rust_load * 1e3), fmt_rss(rust_rss), "");
    println!("| model load | {rust_load:>30} | {py_load:>25} | {blank:>13} |");
    println!("| peak RSS   | {rust_rss:>30} | {py_rss:>25} | {blank:>13} |");
    if let Err(e) = &python {
        println!("\nPython baseline not run: {e}");
    }
}

/// models/export/bench_python.py --serve.
struct Python {
    child: std::process::Child,
    out: std::io::BufReader<std::process::ChildStdout>,
    load: f64,
    list: PathBuf,
}

impl Python {
    fn start(
        dir: &Path,
        texts: &[String],
        threads: usize,
        spin: bool,
        cuda: bool,
    ) -> Result<Python, String> {
        use std::io::BufRead;
        let py = python_path(dir).ok_or_else(|| {
            "no Python: set SEGUE_PYTHON, or run models/install (it creates models/.venv)"
                .to_string()
        })?;
        let list = std::env::temp_dir().join(format!("segue-bench-{}.json", std::process::id()));
        std::fs::write(
            &list,
            serde_json::to_string(texts).map_err(|e| e.to_string())?,
        )
        .map_err(|e| e.to_string())?;
        let mut cmd = std::process::Command::new(py);
        cmd.arg(dir.join("export/bench_python.py"))
            .arg(&list)
            .args(["--threads", &threads.to_string(), "--serve"]);
        if spin {
            cmd.arg("--spin");
        }
        if cuda {
            cmd.arg("--cuda");
        }
        let mut child = cmd
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .map_err(|e| e.to_string())?;
        let mut out = std::io::BufReader::new(child.stdout.take().ok_or("no stdout")?);
        let mut line = String::new();
        out.read_line(&mut line).map_err(|e| e.to_string())?;
        let v: serde_json::Value =
            serde_json::from_str(&line).map_err(|e| format!("{e}: {line:?}"))?;
        let load = v["load_s"].as_f64().ok_or("no load_s")?;
        Ok(Python {
            child,
            out,
            load,
            list,
        })
    }

    fn ask(&mut self, cmd: &str) -> Result<serde_json::Value, String> {
        use std::io::{BufRead, Write};
        let stdin = self.child.stdin.as_mut().ok_or("no stdin")?;
        writeln!(stdin, "{cmd}").map_err(|e| e.to_string())?;
        stdin.flush().map_err(|e| e.to_string())?;
        let mut line = String::new();
        self.out.read_line(&mut line).map_err(|e| e.to_string())?;
        serde_json::from_str(&line).map_err(|e| format!("{e}: {line:?}"))
    }

    fn time(&mut self, batch: usize) -> Result<f64, String> {
        self.ask(&batch.to_string())?["seconds"]
            .as_f64()
            .ok_or_else(|| "no seconds".to_string())
    }

    fn finish(mut self) -> Result<(f64, Option<f64>), String> {
        let rss = self.ask("quit")?["rss_mib"].as_f64();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(&self.list);
        Ok((self.load, rss))
    }
}
