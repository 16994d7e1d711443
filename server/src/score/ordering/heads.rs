//! Loading and running the ordering heads (small ONNX graphs, one per level) and, on first use,
//! the paragraph reader; [`OrderingModel::objective`] combines their outputs.

use super::cues::{pair_cues, unit_cues};
use super::memo::{entry_bytes, Kept, ScoresMemo};
use super::meta::{LevelMeta, OrderWeights, OrderingMeta};
use super::objective::{HeadOutputs, Objective, OrderScores, ReaderUse};
use super::{OrderingError, DIR, META_FILE};
use crate::model::files::locate_models_dir;
use crate::model::{
    FlowJudge, Graph, GraphInput, ModelOptions, ParagraphReader, Provider, Runtime,
};
use crate::score::{Level, Unit};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

struct Head {
    graph: Graph,
    meta: LevelMeta,
}

/// The loaded ordering model: the metadata, a head per level and, loaded on first use, the
/// paragraph reader; the heads' scores of the sets scored last are kept ([`ScoresMemo`]) for the
/// other scorers that share the model.
pub struct OrderingModel {
    meta: OrderingMeta,
    sentence: Option<Head>,
    paragraph: Option<Head>,
    memo: ScoresMemo,
    cells: AtomicU64,
    dir: PathBuf,
    provider: Provider,
    models_dir: PathBuf,
    options: ModelOptions,
    reader: OnceLock<Result<Arc<ParagraphReader>, String>>,
    flow: OnceLock<Result<Arc<FlowJudge>, String>>,
}

impl std::fmt::Debug for OrderingModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OrderingModel")
            .field("dir", &self.dir)
            .field("sentence", &self.sentence.is_some())
            .field("paragraph", &self.paragraph.is_some())
            .finish_non_exhaustive()
    }
}

fn level_key(level: Level) -> &'static str {
    level.name()
}

impl OrderingModel {
    /// Loads `ordering/` from the models folder `options` point at (the source tree's
    /// `models/ordering/` when the models folder has none). The heads are tiny: they run on the CPU
    /// with one thread whatever device the encoder uses.
    pub fn load(options: &ModelOptions) -> Result<OrderingModel, OrderingError> {
        let models_dir = locate_models_dir(options)?;
        let mut dir = models_dir.path.join(DIR);
        if !dir.join(META_FILE).is_file() {
            let source_tree = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("..")
                .join("models")
                .join(DIR);
            if source_tree.join(META_FILE).is_file() {
                dir = source_tree;
            }
        }
        OrderingModel::load_from(&dir, &models_dir.path, options)
    }

    /// Loads the metadata and the heads from `dir`; `models_dir` is where ONNX Runtime is looked
    /// for. A head whose file is missing or does not match its sha256 is an error.
    pub fn load_from(
        dir: &Path,
        models_dir: &Path,
        options: &ModelOptions,
    ) -> Result<OrderingModel, OrderingError> {
        let meta_path = dir.join(META_FILE);
        let text = std::fs::read_to_string(&meta_path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => OrderingError::NotInstalled {
                path: meta_path.clone(),
            },
            _ => OrderingError::Invalid {
                path: meta_path.clone(),
                message: e.to_string(),
            },
        })?;
        let meta = OrderingMeta::parse(&text).map_err(|message| OrderingError::Invalid {
            path: meta_path.clone(),
            message,
        })?;
        let cpu = ModelOptions {
            device: crate::config::Device::Cpu,
            intra_threads: 1,
            ..options.clone()
        };
        // Every file is checked before ONNX Runtime is touched.
        let mut files: Vec<(usize, PathBuf, LevelMeta)> = Vec::new();
        for (slot, level) in [Level::Sentence, Level::Paragraph].into_iter().enumerate() {
            let Some(lm) = meta.levels.get(level_key(level)) else {
                continue;
            };
            let path = dir.join(&lm.file);
            if !path.is_file() {
                return Err(OrderingError::NotInstalled { path });
            }
            let actual =
                crate::model::files::sha256_file(&path).map_err(|e| OrderingError::Invalid {
                    path: path.clone(),
                    message: e.to_string(),
                })?;
            if actual != lm.sha256 {
                return Err(OrderingError::Invalid {
                    path,
                    message: format!("sha256 {actual}, the metadata says {}", lm.sha256),
                });
            }
            files.push((slot, path, lm.clone()));
        }
        let runtime = Runtime::get(options, Some(models_dir))?;
        let mut heads: [Option<Head>; 2] = [None, None];
        let mut provider = Provider::Cpu;
        for (slot, path, lm) in files {
            let graph = Graph::load(&runtime, &path, &cpu, models_dir)?;
            provider = graph.provider();
            let inputs = graph.inputs();
            let outputs = graph.outputs();
            let ok = inputs == ["units", "pairs"]
                && ["precedence", "successor", "opening", "closing"]
                    .iter()
                    .all(|o| outputs.iter().any(|name| name == o));
            if !ok {
                return Err(OrderingError::Invalid {
                    path,
                    message: format!("unexpected inputs {inputs:?} / outputs {outputs:?}"),
                });
            }
            heads[slot] = Some(Head { graph, meta: lm });
        }
        let [sentence, paragraph] = heads;
        let model = OrderingModel {
            meta,
            sentence,
            paragraph,
            dir: dir.to_path_buf(),
            provider,
            models_dir: models_dir.to_path_buf(),
            options: options.clone(),
            reader: OnceLock::new(),
            flow: OnceLock::new(),
            memo: ScoresMemo::default(),
            cells: AtomicU64::new(0),
        };
        // One probe run per head, so a head of the wrong shape fails here, not on every document.
        for level in [Level::Sentence, Level::Paragraph] {
            if model.head(level).is_ok() {
                let units: Vec<Unit<'_>> = vec![vec!["Probe one."], vec!["Probe two."]];
                let vectors = vec![vec![0f32; model.meta.embedding.dim]; 2];
                let out = model.run(level, &units, &vectors)?;
                if out.opening.len() != 2 || out.precedence.len() != 4 {
                    return Err(OrderingError::Invalid {
                        path: model.dir.clone(),
                        message: format!(
                            "the {} head returns outputs of the wrong shape",
                            level.name()
                        ),
                    });
                }
            }
        }
        Ok(model)
    }

    /// The metadata.
    pub fn meta(&self) -> &OrderingMeta {
        &self.meta
    }

    /// One line for logs.
    pub fn summary(&self) -> String {
        let levels: Vec<&str> = [
            (Level::Sentence, &self.sentence),
            (Level::Paragraph, &self.paragraph),
        ]
        .iter()
        .filter(|(_, h)| h.is_some())
        .map(|(l, _)| l.name())
        .collect();
        let reader = match (&self.meta.reader, self.reader.get()) {
            (None, _) => "no paragraph reader".to_string(),
            (Some(_), None) => "paragraph reader loaded on first use".to_string(),
            (Some(_), Some(Ok(c))) => format!("paragraph reader on {}", c.provider()),
            (Some(_), Some(Err(e))) => format!("paragraph reader unavailable: {e}"),
        };
        format!(
            "ordering heads ({}) on {} from {}; {reader}",
            levels.join(", "),
            self.provider,
            self.dir.display()
        )
    }

    /// The paragraph reader, loaded on the first call (on the device the options select); `Err`
    /// says why it cannot be used (then the heads' own objective applies).
    pub fn reader(&self) -> Result<&Arc<ParagraphReader>, &str> {
        let Some(meta) = &self.meta.reader else {
            return Err("the ordering model has no paragraph reader");
        };
        self.reader
            .get_or_init(|| {
                let path = self.models_dir.join(&meta.file);
                ParagraphReader::load_from(&path, &self.models_dir, &self.options)
                    .map(Arc::new)
                    .map_err(|e| e.to_string())
            })
            .as_ref()
            .map_err(String::as_str)
    }

    /// The flow judge of the same models folder ([`crate::model::flow`]), loaded on the first
    /// call; `Err` says why it cannot be used (a models folder installed before it existed, a
    /// failed load): reorder proposals then fall back to the judge's own rule.
    pub fn flow(&self) -> Result<&Arc<FlowJudge>, &str> {
        self.flow
            .get_or_init(|| {
                FlowJudge::load_in(&self.models_dir, &self.options)
                    .map(Arc::new)
                    .map_err(|e| e.to_string())
            })
            .as_ref()
            .map_err(String::as_str)
    }

    /// Whether a set of `n` units at `level` is scored with the reader: the metadata has reader
    /// weights for the level and `2 ≤ n ≤ max_units` (the reader itself may still fail to load;
    /// see [`OrderingModel::reader`]).
    pub fn reader_applies(&self, level: Level, n: usize) -> bool {
        self.meta.reader.as_ref().is_some_and(|c| {
            (2..=c.max_units).contains(&n) && c.levels.contains_key(level_key(level))
        })
    }

    /// Whether the paragraph reader reads a set of `n`
    /// units at all, at any level: the metadata names one and `2 ≤ n ≤ max_units`. The ordering
    /// objective uses it only where [`OrderingModel::reader_applies`]; `tier1`'s reader terms
    /// wherever it reads.
    pub fn reader_reads(&self, n: usize) -> bool {
        self.meta
            .reader
            .as_ref()
            .is_some_and(|c| (2..=c.max_units).contains(&n))
    }

    /// The heads' scores for `units` at `level` with the set model's logits added when it reads
    /// the set ([`OrderingModel::reader_reads`]), whatever the level's weights; the second
    /// value says whether they were added, or why not.
    pub fn scores_with_reader(
        &self,
        level: Level,
        units: &[Unit<'_>],
        vectors: &[Vec<f32>],
    ) -> Result<(Arc<OrderScores>, ReaderUse), OrderingError> {
        let scores = self.scores(level, units, vectors)?;
        if !self.reader_reads(units.len()) {
            return Ok((scores, ReaderUse::NotApplicable));
        }
        let model = match self.reader() {
            Ok(m) => m,
            Err(why) => return Ok((scores, ReaderUse::Failed(why.to_string()))),
        };
        let texts: Vec<String> = units.iter().map(|u| u.join(" ")).collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        Ok(match model.set_logits(&refs) {
            Ok(x) => {
                let scores = Arc::unwrap_or_clone(scores).with_reader(&x.precedence);
                let scores = match &x.next {
                    Some(y) => scores.with_reader_successor(y),
                    None => scores,
                };
                (Arc::new(scores), ReaderUse::Used)
            }
            Err(e) => (scores, ReaderUse::Failed(e.to_string())),
        })
    }

    /// The weights of the objective with the reader's terms at `level`, if it has them.
    pub fn reader_weights(&self, level: Level) -> Option<OrderWeights> {
        let c = self.meta.reader.as_ref()?;
        c.levels.get(level_key(level)).map(|l| l.weights)
    }

    fn head(&self, level: Level) -> Result<&Head, OrderingError> {
        match level {
            Level::Sentence => self.sentence.as_ref(),
            Level::Paragraph => self.paragraph.as_ref(),
        }
        .ok_or(OrderingError::NoHead(level.name()))
    }

    /// The weights of the order objective at `level`.
    pub fn weights(&self, level: Level) -> Option<OrderWeights> {
        self.head(level).ok().map(|h| h.meta.weights)
    }

    /// The `units` input rows (row-major `[n, dim + cues]`) of units with the given unit vectors.
    pub fn unit_rows(&self, units: &[Unit<'_>], vectors: &[Vec<f32>]) -> Vec<f32> {
        let dim = self.meta.embedding.dim;
        let mut rows = Vec::with_capacity(units.len() * self.meta.unit_width());
        for (u, v) in units.iter().zip(vectors) {
            let mut e = v.clone();
            e.resize(dim, 0.0);
            rows.extend(e);
            rows.extend(unit_cues(&self.meta.cues, u));
        }
        rows
    }

    /// Runs the head of `level` on `units` with their unit vectors ([`super::cues::unit_vector`]).
    pub fn run(
        &self,
        level: Level,
        units: &[Unit<'_>],
        vectors: &[Vec<f32>],
    ) -> Result<HeadOutputs, OrderingError> {
        let n = units.len();
        if vectors.len() != n {
            return Err(OrderingError::Inference(format!(
                "{} vectors for {n} units",
                vectors.len()
            )));
        }
        if n == 0 {
            return Ok(HeadOutputs {
                n,
                precedence: Vec::new(),
                successor: Vec::new(),
                opening: Vec::new(),
                closing: Vec::new(),
            });
        }
        let head = self.head(level)?;
        self.cells.fetch_add((n * n) as u64, Ordering::Relaxed);
        let inputs = vec![
            GraphInput {
                name: "units",
                shape: vec![n, self.meta.unit_width()],
                data: self.unit_rows(units, vectors),
            },
            GraphInput {
                name: "pairs",
                shape: vec![n, n, 4],
                data: pair_cues(&self.meta.pairs, units),
            },
        ];
        let outputs = [
            ("precedence", Some(n * n)),
            ("successor", Some(n * n)),
            ("opening", Some(n)),
            ("closing", Some(n)),
        ];
        let mut got = head
            .graph
            .run(inputs, &outputs)
            .map_err(OrderingError::Inference)?
            .into_iter();
        let mut next = || got.next().unwrap_or_default();
        Ok(HeadOutputs {
            n,
            precedence: next(),
            successor: next(),
            opening: next(),
            closing: next(),
        })
    }

    /// The objective's ingredients for `units` at `level`: the heads' outputs as
    /// [`OrderScores`]. The heads run only when no scorer over this model has scored the same set
    /// lately ([`ScoresMemo`]); the scores are the same either way.
    pub fn scores(
        &self,
        level: Level,
        units: &[Unit<'_>],
        vectors: &[Vec<f32>],
    ) -> Result<Arc<OrderScores>, OrderingError> {
        if let Some(kept) = self.memo.get(level, units, vectors) {
            return Ok(Arc::new(kept.scores()));
        }
        let kept = Kept::new(self.run(level, units, vectors)?, vectors);
        let scores = Arc::new(kept.scores());
        self.memo.put(level, units, vectors, Arc::new(kept));
        Ok(scores)
    }

    /// What the memo keeps of one set of `units` ([`entry_bytes`]), for [`OrderingModel::plan`].
    pub fn memo_bytes(&self, units: &[Unit<'_>]) -> usize {
        entry_bytes(units, self.meta.embedding.dim)
    }

    /// Says that the sets of `level` about to be scored take `bytes` in the memo (the sum of
    /// [`OrderingModel::memo_bytes`] over the sets or windows the heads will read), so that they
    /// are all still kept for the next scorer over this model ([`ScoresMemo::plan`]).
    pub fn plan(&self, level: Level, bytes: usize) {
        self.memo.plan(level, bytes);
    }

    /// The same model with a memo whose base budget is `bytes` rather than
    /// [`super::memo::MEMO_BYTES`] (what it keeps when nothing larger is planned).
    pub fn with_memo_budget(mut self, bytes: usize) -> Self {
        self.memo = ScoresMemo::new(bytes);
        self
    }

    /// How many unit pairs (cells of the `[n, n]` outputs) the heads have scored since the model
    /// was loaded: what a set costs, counted rather than timed.
    pub fn cells_scored(&self) -> u64 {
        self.cells.load(Ordering::Relaxed)
    }

    /// The full objective for `units` at `level`: the head's scores with the reader's
    /// where it applies ([`OrderingModel::reader_applies`]) and the weights that go with them. When
    /// the reader cannot load or run, the head's own objective is returned and
    /// [`Objective::reader`] says why.
    pub fn objective(
        &self,
        level: Level,
        units: &[Unit<'_>],
        vectors: &[Vec<f32>],
    ) -> Result<Objective, OrderingError> {
        let head = self
            .weights(level)
            .ok_or(OrderingError::NoHead(level.name()))?;
        let (true, Some(weights)) = (
            self.reader_applies(level, units.len()),
            self.reader_weights(level),
        ) else {
            return Ok(Objective {
                scores: self.scores(level, units, vectors)?,
                weights: head,
                reader: ReaderUse::NotApplicable,
            });
        };
        let (scores, reader) = self.scores_with_reader(level, units, vectors)?;
        Ok(Objective {
            scores,
            weights: if reader == ReaderUse::Used {
                weights
            } else {
                head
            },
            reader,
        })
    }
}
