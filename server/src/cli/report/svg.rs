//! Small SVG and HTML building blocks for the HTML report: escaping, linear scales, a
//! colour-blind-safe colour scale, polylines and axes. Every function returns markup as a
//! `String`; none reads the document or the analysis.

use std::fmt::Write as _;

/// Escapes `text` for HTML and SVG text content and attribute values (`&`, `<`, `>`, `"`, `'`).
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // Control characters other than tab and line breaks are not allowed in XML.
            c if c.is_control() && !matches!(c, '\t' | '\n' | '\r') => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// A number as SVG coordinates show it: at most two decimals, no trailing zeros, never `-0`.
pub fn num(x: f64) -> String {
    if !x.is_finite() {
        return "0".to_string();
    }
    let rounded = (x * 100.0).round() / 100.0;
    let s = format!("{rounded:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" || s.is_empty() {
        "0".to_string()
    } else {
        s.to_string()
    }
}

/// A linear map from a domain interval onto a range interval (either may be reversed, as the
/// y axis of a plot is).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Linear {
    /// The domain (data values).
    pub domain: (f64, f64),
    /// The range (pixels).
    pub range: (f64, f64),
}

impl Linear {
    /// The scale from `domain` onto `range`.
    pub fn new(domain: (f64, f64), range: (f64, f64)) -> Linear {
        Linear { domain, range }
    }

    /// Where `x` falls in the range; values outside the domain are clamped to it, and an empty
    /// domain maps everything to the range's start.
    pub fn map(&self, x: f64) -> f64 {
        let (d0, d1) = self.domain;
        let (r0, r1) = self.range;
        let width = d1 - d0;
        if width == 0.0 || !width.is_finite() || !x.is_finite() {
            return r0;
        }
        let t = ((x - d0) / width).clamp(0.0, 1.0);
        r0 + t * (r1 - r0)
    }

    /// `n` + 1 evenly spaced tick values from the domain's start to its end.
    pub fn ticks(&self, n: usize) -> Vec<f64> {
        let n = n.max(1);
        let (d0, d1) = self.domain;
        (0..=n)
            .map(|i| d0 + (d1 - d0) * i as f64 / n as f64)
            .collect()
    }
}

/// Viridis at nine evenly spaced stops, dark purple (0) to yellow (1): perceptually uniform,
/// readable with the common colour-vision deficiencies and in greyscale.
const VIRIDIS: [(u8, u8, u8); 9] = [
    (0x44, 0x01, 0x54),
    (0x47, 0x2c, 0x7a),
    (0x3b, 0x51, 0x8b),
    (0x2c, 0x71, 0x8e),
    (0x21, 0x90, 0x8d),
    (0x27, 0xad, 0x81),
    (0x5c, 0xc8, 0x63),
    (0xaa, 0xdc, 0x32),
    (0xfd, 0xe7, 0x25),
];

/// The colour of a transition score in [0, 1] (clamped) on the viridis scale, as `#rrggbb`:
/// low scores dark, high scores light.
pub fn score_color(score: f64) -> String {
    let t = if score.is_finite() {
        score.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let at = t * (VIRIDIS.len() - 1) as f64;
    let i = (at.floor() as usize).min(VIRIDIS.len() - 2);
    let f = at - i as f64;
    let (a, b) = (VIRIDIS[i], VIRIDIS[i + 1]);
    let mix = |x: u8, y: u8| (x as f64 + (y as f64 - x as f64) * f).round() as u8;
    format!(
        "#{:02x}{:02x}{:02x}",
        mix(a.0, b.0),
        mix(a.1, b.1),
        mix(a.2, b.2)
    )
}

/// The `points` attribute of a polyline through `points` (pixels), e.g. `"0,10 5,2.5"`.
pub fn points(points: &[(f64, f64)]) -> String {
    points
        .iter()
        .map(|&(x, y)| format!("{},{}", num(x), num(y)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A `<polyline>` through `pts` with the given CSS class; empty when there are fewer than two
/// points.
pub fn polyline(pts: &[(f64, f64)], class: &str) -> String {
    if pts.len() < 2 {
        return String::new();
    }
    format!(
        "<polyline class=\"{}\" fill=\"none\" points=\"{}\"/>",
        escape(class),
        points(pts)
    )
}

/// A left y axis at `x` for `scale`: its line, `n` + 1 ticks with labels (two decimals) and
/// faint grid lines across to `right`.
pub fn y_axis(scale: &Linear, x: f64, right: f64, n: usize) -> String {
    let (r0, r1) = scale.range;
    let mut out = format!(
        "<g class=\"axis y\"><line x1=\"{x}\" y1=\"{a}\" x2=\"{x}\" y2=\"{b}\"/>",
        x = num(x),
        a = num(r0),
        b = num(r1)
    );
    for v in scale.ticks(n) {
        let y = num(scale.map(v));
        let _ = write!(
            out,
            "<line class=\"grid\" x1=\"{x}\" y1=\"{y}\" x2=\"{r}\" y2=\"{y}\"/>\
             <text x=\"{lx}\" y=\"{y}\" text-anchor=\"end\" dominant-baseline=\"middle\">{v:.2}</text>",
            x = num(x),
            r = num(right),
            lx = num(x - 4.0),
        );
    }
    out.push_str("</g>");
    out
}

/// A bottom x axis at `y` for `scale`, labelled with `n` + 1 ticks as percentages of the domain
/// (where in the document a point lies).
pub fn x_axis_percent(scale: &Linear, y: f64, n: usize) -> String {
    let (r0, r1) = scale.range;
    let mut out = format!(
        "<g class=\"axis x\"><line x1=\"{a}\" y1=\"{y}\" x2=\"{b}\" y2=\"{y}\"/>",
        a = num(r0),
        b = num(r1),
        y = num(y)
    );
    let (d0, d1) = scale.domain;
    for v in scale.ticks(n) {
        let x = num(scale.map(v));
        let share = if d1 > d0 { (v - d0) / (d1 - d0) } else { 0.0 };
        let _ = write!(
            out,
            "<line x1=\"{x}\" y1=\"{y}\" x2=\"{x}\" y2=\"{t}\"/>\
             <text x=\"{x}\" y=\"{ly}\" text-anchor=\"middle\" dominant-baseline=\"hanging\">{p:.0}%</text>",
            y = num(y),
            t = num(y + 4.0),
            ly = num(y + 6.0),
            p = share * 100.0,
        );
    }
    out.push_str("</g>");
    out
}

/// A downward triangle marker centred on (`x`, `y`) with half-width `r`, with a `<title>`.
pub fn marker(x: f64, y: f64, r: f64, class: &str, title: &str) -> String {
    format!(
        "<path class=\"{}\" d=\"M{} {}L{} {}L{} {}Z\"><title>{}</title></path>",
        escape(class),
        num(x - r),
        num(y - r),
        num(x + r),
        num(y - r),
        num(x),
        num(y + r),
        escape(title)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_covers_markup_quotes_and_control_characters() {
        assert_eq!(
            escape("<script>alert('x & \"y\"')</script>"),
            "&lt;script&gt;alert(&#39;x &amp; &quot;y&quot;&#39;)&lt;/script&gt;"
        );
        assert_eq!(escape("a\u{0}b\tc\n"), "a\u{fffd}b\tc\n");
        assert_eq!(escape("plain ‘text’"), "plain ‘text’");
    }

    #[test]
    fn numbers_have_at_most_two_decimals_and_no_negative_zero() {
        assert_eq!(num(1.0), "1");
        assert_eq!(num(2.5), "2.5");
        assert_eq!(num(1.23456), "1.23");
        assert_eq!(num(-0.001), "0");
        assert_eq!(num(f64::NAN), "0");
        assert_eq!(num(-12.345), "-12.35");
    }

    #[test]
    fn a_linear_scale_maps_clamps_and_reverses() {
        let y = Linear::new((0.0, 1.0), (100.0, 0.0));
        assert_eq!(y.map(0.0), 100.0);
        assert_eq!(y.map(1.0), 0.0);
        assert_eq!(y.map(0.25), 75.0);
        assert_eq!(y.map(2.0), 0.0);
        assert_eq!(y.map(-1.0), 100.0);
        assert_eq!(y.map(f64::NAN), 100.0);
        let empty = Linear::new((3.0, 3.0), (10.0, 20.0));
        assert_eq!(empty.map(3.0), 10.0);
        assert_eq!(y.ticks(4), vec![0.0, 0.25, 0.5, 0.75, 1.0]);
        assert_eq!(y.ticks(0), vec![0.0, 1.0]);
    }

    #[test]
    fn the_colour_scale_runs_from_dark_to_light_and_clamps() {
        assert_eq!(score_color(0.0), "#440154");
        assert_eq!(score_color(1.0), "#fde725");
        assert_eq!(score_color(-3.0), "#440154");
        assert_eq!(score_color(7.0), "#fde725");
        assert_eq!(score_color(f64::NAN), "#440154");
        assert_eq!(score_color(0.5), "#21908d");
        // Lightness rises with the score, so the scale reads in greyscale too.
        let luma = |c: &str| {
            let v = |i: usize| u8::from_str_radix(&c[i..i + 2], 16).unwrap() as f64;
            0.2126 * v(1) + 0.7152 * v(3) + 0.0722 * v(5)
        };
        let mut last = -1.0;
        for i in 0..=20 {
            let l = luma(&score_color(i as f64 / 20.0));
            assert!(l > last, "lightness falls at {i}");
            last = l;
        }
    }

    #[test]
    fn polylines_need_two_points() {
        assert_eq!(polyline(&[(1.0, 2.0)], "line"), "");
        assert_eq!(
            polyline(&[(0.0, 10.0), (5.0, 2.5)], "line"),
            "<polyline class=\"line\" fill=\"none\" points=\"0,10 5,2.5\"/>"
        );
    }

    #[test]
    fn axes_label_their_ticks() {
        let y = Linear::new((0.0, 1.0), (100.0, 0.0));
        let axis = y_axis(&y, 40.0, 300.0, 2);
        assert!(axis.contains(">0.00</text>"));
        assert!(axis.contains(">0.50</text>"));
        assert!(axis.contains(">1.00</text>"));
        assert_eq!(axis.matches("class=\"grid\"").count(), 3);
        let x = Linear::new((0.0, 2000.0), (40.0, 440.0));
        let axis = x_axis_percent(&x, 100.0, 4);
        for p in ["0%", "25%", "50%", "75%", "100%"] {
            assert!(axis.contains(&format!(">{p}</text>")), "{p} missing");
        }
    }

    #[test]
    fn markers_escape_their_title() {
        let m = marker(10.0, 10.0, 4.0, "finding", "a <b> c");
        assert!(m.contains("<title>a &lt;b&gt; c</title>"));
        assert!(m.starts_with("<path class=\"finding\" d=\"M6 6L14 6L10 14Z\">"));
    }
}
