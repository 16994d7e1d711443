//! Short verbatim characters: `|\section|` where a document made `|` read like `\verb|…|`.
//!
//! The `doc` package's `\MakeShortVerb{\|}` (and fancyvrb's `\DefineShortVerb{\|}`) turn a
//! character into a verbatim delimiter from that point on; `\DeleteShortVerb{\|}` and
//! `\UndefineShortVerb{\|}` turn it back. The LaTeX team's guides (`\documentclass{ltxguide}`)
//! and `ltxdoc` documents get `|` without declaring it: their class does, as plain TeX's TUGboat
//! macros do for a document that starts `\input tugboat.sty`. Without this, the scanner reads
//! `It redefines |\section| and …` as a sentence cut by a heading, and `|\endinput|` as the end
//! of the document.

use super::scan::{commands, skip_blanks};

/// Where each short verbatim character is turned on or off, in document order.
#[derive(Debug, Default, Clone)]
pub(super) struct ShortVerbs {
    /// Per character, (byte offset of a declaration, on), in document order.
    events: Vec<(u8, Vec<(usize, bool)>)>,
    /// Characters that some declaration mentions, one bit per ASCII byte: a quick test before
    /// the events are searched.
    mentioned: u128,
}

/// Classes that make `|` a short verbatim character themselves.
const CLASSES: &[&str] = &["ltxguide", "ltxdoc"];

impl ShortVerbs {
    /// The declarations in `source` (outside comments), and the class's own.
    pub(super) fn scan(source: &str) -> Self {
        let mut out = ShortVerbs::default();
        if class(source).is_some_and(|c| CLASSES.contains(&c)) || inputs_tugboat(source) {
            out.push(0, b'|', true);
        }
        let b = source.as_bytes();
        const DECLARERS: &[&str] = &[
            "MakeShortVerb",
            "DefineShortVerb",
            "DeleteShortVerb",
            "UndefineShortVerb",
        ];
        for (name, after) in commands(source, DECLARERS) {
            let on = matches!(name, "MakeShortVerb" | "DefineShortVerb");
            if let Some(c) = declared_char(b, after) {
                out.push(after - name.len() - 1, c, on);
            }
        }
        out
    }

    fn push(&mut self, at: usize, c: u8, on: bool) {
        if !c.is_ascii() {
            return;
        }
        self.mentioned |= 1 << c;
        match self.events.iter_mut().find(|(ch, _)| *ch == c) {
            Some((_, list)) => list.push((at, on)),
            None => self.events.push((c, vec![(at, on)])),
        }
    }

    /// Whether `c` at byte `at` opens a short verbatim run.
    pub(super) fn active(&self, c: u8, at: usize) -> bool {
        if !c.is_ascii() || self.mentioned & (1 << c) == 0 {
            return false;
        }
        // Declarations come in document order: the last one before `at` decides.
        let Some((_, list)) = self.events.iter().find(|(ch, _)| *ch == c) else {
            return false;
        };
        let before = list.partition_point(|&(pos, _)| pos < at);
        before
            .checked_sub(1)
            .and_then(|k| list.get(k))
            .is_some_and(|&(_, on)| on)
    }
}

/// The document class named by `\documentclass[…]{name}` outside comments, if any.
fn class(source: &str) -> Option<&str> {
    let b = source.as_bytes();
    let (_, after) = commands(source, &["documentclass"]).next()?;
    let mut j = skip_blanks(b, after);
    if b.get(j) == Some(&b'[') {
        j += b.get(j..)?.iter().take(400).position(|&c| c == b']')? + 1;
        j = skip_blanks(b, j);
    }
    if b.get(j) != Some(&b'{') {
        return None;
    }
    let len = b.get(j + 1..)?.iter().take(64).position(|&c| c == b'}')?;
    source.get(j + 1..j + 1 + len).map(str::trim)
}

/// Whether `source` reads plain TeX's TUGboat macros (`\input tugboat.sty`, `\input tugboat`),
/// which make `|` a short verbatim character.
fn inputs_tugboat(source: &str) -> bool {
    let b = source.as_bytes();
    commands(source, &["input"]).any(|(_, after)| {
        let mut j = skip_blanks(b, after);
        if b.get(j) == Some(&b'{') {
            j += 1;
        }
        b.get(j..j + 7)
            .is_some_and(|w| w.eq_ignore_ascii_case(b"tugboat"))
            && !b.get(j + 7).is_some_and(|c| c.is_ascii_alphanumeric())
    })
}

/// The character a declaration names: `{\|}`, `\|`, `*{\|}`, `[opts]{\|}`, or a bare `|`.
fn declared_char(b: &[u8], mut j: usize) -> Option<u8> {
    j = skip_blanks(b, j);
    if b.get(j) == Some(&b'*') {
        j = skip_blanks(b, j + 1);
    }
    if b.get(j) == Some(&b'[') {
        j += b.get(j..)?.iter().take(400).position(|&c| c == b']')? + 1;
        j = skip_blanks(b, j);
    }
    let braced = b.get(j) == Some(&b'{');
    if braced {
        j = skip_blanks(b, j + 1);
    }
    if b.get(j) == Some(&b'\\') {
        j += 1;
    }
    let c = *b.get(j)?;
    if braced && b.get(skip_blanks(b, j + 1)) != Some(&b'}') {
        return None;
    }
    (c.is_ascii_punctuation() && !matches!(c, b'\\' | b'{' | b'}' | b'%')).then_some(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations_turn_characters_on_and_off() {
        let src = "\\documentclass{article}\n\\usepackage{shortvrb}\n\\MakeShortVerb{\\|}\n\
                   % \\MakeShortVerb{\\!}\n\\DefineShortVerb[commandchars=\\\\\\{\\}]{\\+}\n\
                   \\begin{document}\nA |x| and +y+.\n\\DeleteShortVerb\\|\nNow |z|.\n";
        let v = ShortVerbs::scan(src);
        let body = src.find("A |x|").unwrap();
        let later = src.find("Now").unwrap();
        assert!(v.active(b'|', body));
        assert!(v.active(b'+', body));
        assert!(
            !v.active(b'!', body),
            "a commented declaration counts for nothing"
        );
        assert!(!v.active(b'|', later), "deleted");
        assert!(!v.active(b'|', 0), "not before its declaration");
    }

    #[test]
    fn the_latex_teams_classes_imply_the_bar() {
        for class in [
            "\\documentclass{ltxguide}[1995/11/28]",
            "\\documentclass[a4paper]{ltxdoc}",
        ] {
            assert!(ShortVerbs::scan(class).active(b'|', 5), "{class}");
        }
        for class in [
            "\\documentclass{article}",
            "%\\documentclass{ltxguide}\n",
            "\\documentclass",
        ] {
            assert!(!ShortVerbs::scan(class).active(b'|', 5), "{class}");
        }
    }

    #[test]
    fn plain_tugboat_implies_the_bar() {
        // The TUGboat authors' guide (tubguide.tex), which writes `|\endinput|`.
        let src =
            "%% tubguide.tex\n\\input tugboat.sty\n\nWe redefine it as |\\endinput| to stop.\n";
        assert!(ShortVerbs::scan(src).active(b'|', src.find("|\\endinput").unwrap()));
        for src in ["\\input tugboat\n", "\\input{tugboat.cmn}\n"] {
            assert!(ShortVerbs::scan(src).active(b'|', src.len()), "{src}");
        }
        for src in [
            "\\input tugboatx\n",
            "% \\input tugboat.sty\n",
            "\\input other\n",
        ] {
            assert!(!ShortVerbs::scan(src).active(b'|', src.len()), "{src}");
        }
    }

    #[test]
    fn odd_declarations_name_no_character() {
        for src in [
            "\\MakeShortVerb",
            "\\MakeShortVerb{\\foo}",
            "\\MakeShortVerb{a}",
            "\\MakeShortVerbs{\\|}",
        ] {
            assert!(!ShortVerbs::scan(src).active(b'|', src.len()), "{src}");
        }
    }
}
