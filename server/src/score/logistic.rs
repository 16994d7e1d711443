//! A small logistic-regression model: the "small model" behind the entity grid, the combined
//! tier-0 score and the intrusion and verdict models. Weights are trained by `segue train` and shipped as JSON in `models/`.

use serde::{Deserialize, Serialize};

/// Logistic regression over standardised features: the entity grid's and tier0's models, and the
/// linear part of the intrusion and verdict models (flattened into their JSON, without names).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Logistic {
    /// Feature names, for the model card and sanity checks (empty where the file names them once
    /// for all its models).
    #[serde(default)]
    pub features: Vec<String>,
    /// Per-feature mean used for standardisation.
    pub mean: Vec<f64>,
    /// Per-feature standard deviation used for standardisation.
    pub scale: Vec<f64>,
    /// Weights on standardised features.
    pub weights: Vec<f64>,
    /// Intercept.
    pub bias: f64,
}

impl Logistic {
    /// The linear score (log-odds) of `x`.
    pub fn logit(&self, x: &[f64]) -> f64 {
        let mut z = self.bias;
        for (i, v) in x.iter().enumerate() {
            let (m, s, w) = (
                self.mean.get(i).copied().unwrap_or(0.0),
                self.scale.get(i).copied().unwrap_or(1.0),
                self.weights.get(i).copied().unwrap_or(0.0),
            );
            z += w * (v - m) / if s > 0.0 { s } else { 1.0 };
        }
        z
    }

    /// Whether it has exactly `n` features.
    pub fn has_features(&self, n: usize) -> bool {
        self.mean.len() == n && self.scale.len() == n && self.weights.len() == n
    }

    /// The probability of the positive class for `x`.
    pub fn predict(&self, x: &[f64]) -> f64 {
        sigmoid(self.logit(x))
    }

    /// Fits weights on `xs` / `ys` (labels 0 or 1) by full-batch gradient descent with L2 penalty.
    pub fn fit(features: Vec<String>, xs: &[Vec<f64>], ys: &[f64], l2: f64, epochs: usize) -> Self {
        let d = features.len();
        let n = xs.len().max(1) as f64;
        let mut mean = vec![0.0; d];
        let mut scale = vec![0.0; d];
        for x in xs {
            for j in 0..d {
                mean[j] += x[j] / n;
            }
        }
        for x in xs {
            for j in 0..d {
                scale[j] += (x[j] - mean[j]).powi(2) / n;
            }
        }
        for s in &mut scale {
            *s = s.sqrt().max(1e-9);
        }
        let z: Vec<Vec<f64>> = xs
            .iter()
            .map(|x| (0..d).map(|j| (x[j] - mean[j]) / scale[j]).collect())
            .collect();
        let mut w = vec![0.0; d];
        let mut b = 0.0;
        // Adam on the mean log-loss.
        let (mut mw, mut vw, mut mb, mut vb) = (vec![0.0; d], vec![0.0; d], 0.0, 0.0);
        let (lr, b1, b2, eps) = (0.05, 0.9, 0.999, 1e-8);
        for t in 1..=epochs {
            let mut gw = vec![0.0; d];
            let mut gb = 0.0;
            for (x, y) in z.iter().zip(ys) {
                let p = sigmoid(b + x.iter().zip(&w).map(|(a, c)| a * c).sum::<f64>());
                let g = p - y;
                for j in 0..d {
                    gw[j] += g * x[j] / n;
                }
                gb += g / n;
            }
            for j in 0..d {
                gw[j] += l2 * w[j];
                mw[j] = b1 * mw[j] + (1.0 - b1) * gw[j];
                vw[j] = b2 * vw[j] + (1.0 - b2) * gw[j] * gw[j];
                let mh = mw[j] / (1.0 - b1.powi(t as i32));
                let vh = vw[j] / (1.0 - b2.powi(t as i32));
                w[j] -= lr * mh / (vh.sqrt() + eps);
            }
            mb = b1 * mb + (1.0 - b1) * gb;
            vb = b2 * vb + (1.0 - b2) * gb * gb;
            b -= lr * (mb / (1.0 - b1.powi(t as i32)))
                / ((vb / (1.0 - b2.powi(t as i32))).sqrt() + eps);
        }
        Logistic {
            features,
            mean,
            scale,
            weights: w,
            bias: b,
        }
    }
}

/// The logistic function.
pub fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn learns_a_separable_rule() {
        let xs: Vec<Vec<f64>> = (0..200)
            .map(|i| vec![i as f64 / 10.0, (i % 7) as f64])
            .collect();
        let ys: Vec<f64> = xs
            .iter()
            .map(|x| f64::from(u8::from(x[0] > 10.0)))
            .collect();
        let m = Logistic::fit(vec!["a".into(), "b".into()], &xs, &ys, 1e-4, 300);
        let acc = xs
            .iter()
            .zip(&ys)
            .filter(|(x, y)| (m.predict(x) > 0.5) == (**y > 0.5))
            .count();
        assert!(acc >= 190, "accuracy {acc}/200");
        assert!(m.weights[0] > 0.0);
    }
}
