//! A small ONNX graph over float32 tensors: the trained heads that take vectors and give vectors
//! (the ordering heads, the BBScore head and classifier). Every call into ONNX Runtime for them
//! goes through here; the callers name inputs and outputs and pass plain `Vec<f32>`s.

use super::runtime::{Provider, Runtime};
use super::session::{f32_values, ModelSession};
use super::{ModelError, ModelOptions};
use ort::value::Tensor;
use std::path::Path;

/// A loaded graph with its input and output names. Shareable across threads; runs are serialised.
#[derive(Debug)]
pub struct Graph {
    session: ModelSession,
    inputs: Vec<String>,
    outputs: Vec<String>,
}

/// One input of a run: its name, its shape and its values, row-major.
pub struct GraphInput<'a> {
    /// The input's name in the graph.
    pub name: &'a str,
    /// Its shape.
    pub shape: Vec<usize>,
    /// Its values (as many as the shape holds).
    pub data: Vec<f32>,
}

impl Graph {
    /// Loads the ONNX file at `path` with `runtime`, on the device `options` ask for (ONNX
    /// Runtime's own search for its library starts from `models_dir`); on the CPU without a
    /// memory arena ([`Runtime::session_with`]).
    pub fn load(
        runtime: &Runtime,
        path: &Path,
        options: &ModelOptions,
        models_dir: &Path,
    ) -> Result<Graph, ModelError> {
        let choice = runtime.session_with(path, options, Some(models_dir), false)?;
        let session = &choice.session;
        let inputs = session
            .inputs()
            .iter()
            .map(|i| i.name().to_string())
            .collect();
        let outputs = session
            .outputs()
            .iter()
            .map(|o| o.name().to_string())
            .collect();
        Ok(Graph {
            session: ModelSession::new(choice, path),
            inputs,
            outputs,
        })
    }

    /// The input names, in the graph's order.
    pub fn inputs(&self) -> &[String] {
        &self.inputs
    }

    /// The output names, in the graph's order.
    pub fn outputs(&self) -> &[String] {
        &self.outputs
    }

    /// Where it runs.
    pub fn provider(&self) -> Provider {
        self.session.provider()
    }

    /// Runs the graph and returns the values of `outputs`, in that order; an output named with a
    /// length must hold exactly that many values. `Err` is ONNX Runtime's message.
    pub fn run(
        &self,
        inputs: Vec<GraphInput<'_>>,
        outputs: &[(&str, Option<usize>)],
    ) -> Result<Vec<Vec<f32>>, String> {
        let mut values = Vec::with_capacity(inputs.len());
        for input in inputs {
            let tensor =
                Tensor::from_array((input.shape, input.data)).map_err(|e| e.to_string())?;
            values.push((
                std::borrow::Cow::Borrowed(input.name),
                ort::session::SessionInputValue::from(tensor),
            ));
        }
        let mut session = self.session.lock();
        let result = session.run(values).map_err(|e| e.to_string())?;
        outputs
            .iter()
            .map(|&(name, len)| {
                let data = f32_values(&result, name)?;
                match len {
                    Some(len) if data.len() != len => Err(format!(
                        "output `{name}` has {} values, expected {len}",
                        data.len()
                    )),
                    _ => Ok(data),
                }
            })
            .collect()
    }
}
