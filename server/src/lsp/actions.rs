//! Code actions: reorder the paragraphs of a section or the sentences of a paragraph, and insert
//! a disable comment.
//!
//! - **Reorder** (`quickfix` when attached to a Segue diagnostic, `refactor.rewrite` otherwise):
//!   the proposal comes from [`crate::order::reorder`] (the same as `segue reorder`) and the edit
//!   only permutes the original text ([`crate::order::permute`]); the title shows the expected
//!   gain, and no action is offered unless the proposal is
//!   [worthwhile](crate::order::reorder::Proposal::worthwhile) (it moves something and gains at
//!   least [`crate::order::reorder::MIN_GAIN`]).
//! - **Disable this check here** (`quickfix`): inserts the disable comment on its own line before
//!   the paragraph (`<!-- segue-disable-next -->` in Markdown, `% segue-disable-next` in LaTeX;
//!   plain text has no comment syntax, so no action).

use super::convert;
use super::diagnostics::data_of;
use super::engine::{Analyzed, Container, Proposal};
use super::hover::place_at;
use crate::order::permute::permute;
use crate::score::Level;
use crate::text::{Format, Span};
use std::collections::{BTreeSet, HashMap};
use tower_lsp_server::ls_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, Diagnostic, DocumentChanges, OneOf,
    OptionalVersionedTextDocumentIdentifier, Range, TextDocumentEdit, TextEdit, Uri, WorkspaceEdit,
};

/// The disable comment in Markdown.
pub const DISABLE_MARKDOWN: &str = "<!-- segue-disable-next -->";
/// The disable comment in LaTeX.
pub const DISABLE_LATEX: &str = "% segue-disable-next";
/// The reStructuredText disable comment (a comment needs a blank line after it).
pub const DISABLE_RST: &str = ".. segue-disable-next";

/// What a code-action request is about.
pub struct ActionRequest<'a> {
    /// The document.
    pub uri: &'a Uri,
    /// The up-to-date analysis of the document.
    pub analyzed: &'a Analyzed,
    /// The range the client asked about.
    pub range: Range,
    /// The diagnostics the client attached.
    pub diagnostics: &'a [Diagnostic],
    /// The kinds the client asked for (`None`: all).
    pub only: Option<&'a [CodeActionKind]>,
    /// Whether the client accepts versioned `documentChanges`.
    pub versioned_edits: bool,
}

/// The code actions for a request.
pub fn code_actions(req: &ActionRequest<'_>) -> Vec<CodeActionOrCommand> {
    let a = req.analyzed;
    let mut out = Vec::new();
    let mut offered: BTreeSet<Container> = BTreeSet::new();
    let mut disabled_offered: BTreeSet<(usize, usize)> = BTreeSet::new();

    // Quick fixes for our diagnostics on this version.
    let mut by_container: Vec<(Container, Vec<Diagnostic>)> = Vec::new();
    for d in req.diagnostics {
        let Some(data) = data_of(d).filter(|x| x.version == a.version) else {
            continue;
        };
        // A finding is fixed by reordering its container, and a sentence's finding also by
        // reordering its section's paragraphs (when the judge proposes either).
        let containers: &[Container] = match data.level {
            Level::Paragraph => &[Container::Section(data.section)],
            Level::Sentence => &[
                Container::Paragraph {
                    section: data.section,
                    paragraph: data.paragraph,
                },
                Container::Section(data.section),
            ],
        };
        for &container in containers {
            match by_container.iter_mut().find(|(c, _)| *c == container) {
                Some((_, ds)) => ds.push(d.clone()),
                None => by_container.push((container, vec![d.clone()])),
            }
        }
        if wants(req.only, &CodeActionKind::QUICKFIX)
            && disabled_offered.insert((data.section, data.paragraph))
        {
            if let Some(action) = disable_action(req, data.section, data.paragraph, d.clone()) {
                out.push(action);
            }
        }
    }
    if wants(req.only, &CodeActionKind::QUICKFIX) {
        for (container, ds) in by_container {
            if let Some(action) = reorder_action(req, container, CodeActionKind::QUICKFIX, Some(ds))
            {
                offered.insert(container);
                out.insert(0, action);
            }
        }
    }

    // Refactors for the containers under the cursor.
    if wants(req.only, &CodeActionKind::REFACTOR_REWRITE) {
        let offset = convert::offset(&a.line_index, &a.text, req.range.start);
        if let Some(place) = place_at(a, offset) {
            let containers = [
                Container::Paragraph {
                    section: place.paragraph.section,
                    paragraph: place.paragraph.paragraph,
                },
                Container::Section(place.paragraph.section),
            ];
            for c in containers {
                if offered.contains(&c) {
                    continue;
                }
                if let Some(action) = reorder_action(req, c, CodeActionKind::REFACTOR_REWRITE, None)
                {
                    out.push(action);
                }
            }
        }
    }
    out
}

/// Whether the client asked for actions of `kind` (hierarchically: `refactor` covers
/// `refactor.rewrite`).
fn wants(only: Option<&[CodeActionKind]>, kind: &CodeActionKind) -> bool {
    match only {
        None => true,
        Some(only) => only.iter().any(|o| {
            kind.as_str() == o.as_str() || kind.as_str().starts_with(&format!("{}.", o.as_str()))
        }),
    }
}

/// The title of a reorder action: what moves, and the coherence before and after.
pub fn reorder_title(p: &Proposal, source: &str) -> String {
    format!(
        "{} (coherence {:.2} → {:.2})",
        p.summary(source),
        p.before,
        p.after
    )
}

fn reorder_action(
    req: &ActionRequest<'_>,
    container: Container,
    kind: CodeActionKind,
    diagnostics: Option<Vec<Diagnostic>>,
) -> Option<CodeActionOrCommand> {
    let a = req.analyzed;
    let p = a.proposal(container)?;
    if !p.worthwhile() {
        return None;
    }
    let replacement = permute(&a.text, &p.spans, &p.order).ok()??;
    let edit = TextEdit {
        range: convert::range(&a.line_index, &a.text, replacement.span),
        new_text: replacement.text,
    };
    Some(CodeActionOrCommand::CodeAction(CodeAction {
        title: reorder_title(&p, &a.text),
        kind: Some(kind),
        diagnostics,
        edit: Some(workspace_edit(req, edit)),
        command: None,
        is_preferred: None,
        disabled: None,
        data: None,
    }))
}

fn disable_action(
    req: &ActionRequest<'_>,
    section: usize,
    paragraph: usize,
    d: Diagnostic,
) -> Option<CodeActionOrCommand> {
    let a = req.analyzed;
    let para = a
        .document
        .sections
        .get(section)?
        .paragraphs
        .get(paragraph)?;
    if para.disabled {
        return None;
    }
    let (at, insert) = disable_insertion(&a.text, a.format?, para.span)?;
    let edit = TextEdit {
        range: convert::range(&a.line_index, &a.text, Span::new(at, at)),
        new_text: insert,
    };
    Some(CodeActionOrCommand::CodeAction(CodeAction {
        title: "Disable this check here (segue-disable-next)".to_string(),
        kind: Some(CodeActionKind::QUICKFIX),
        diagnostics: Some(vec![d]),
        edit: Some(workspace_edit(req, edit)),
        command: None,
        is_preferred: None,
        disabled: None,
        data: None,
    }))
}

fn workspace_edit(req: &ActionRequest<'_>, edit: TextEdit) -> WorkspaceEdit {
    if req.versioned_edits {
        WorkspaceEdit {
            changes: None,
            document_changes: Some(DocumentChanges::Edits(vec![TextDocumentEdit {
                text_document: OptionalVersionedTextDocumentIdentifier {
                    uri: req.uri.clone(),
                    version: Some(req.analyzed.version),
                },
                edits: vec![OneOf::Left(edit)],
            }])),
            change_annotations: None,
        }
    } else {
        WorkspaceEdit {
            changes: Some(HashMap::from([(req.uri.clone(), vec![edit])])),
            document_changes: None,
            change_annotations: None,
        }
    }
}

/// Where to insert the disable comment for the paragraph at `para`, and the text to insert: the
/// comment on its own line right before the paragraph's first line, with the document's line
/// ending. `None` for plain text, and in Markdown when the paragraph's line starts with
/// something other than whitespace before it (inside a block quote, say), where a comment line
/// would change the structure.
pub fn disable_insertion(text: &str, format: Format, para: Span) -> Option<(usize, String)> {
    let comment = match format {
        Format::Markdown => DISABLE_MARKDOWN,
        Format::Latex => DISABLE_LATEX,
        Format::Rst => DISABLE_RST,
        Format::Plain => return None,
    };
    let start = para.start.min(text.len());
    let before = text.get(..start)?;
    let line_start = before.rfind(['\n', '\r']).map_or(0, |i| i + 1);
    let eol = line_ending(text, line_start);
    let prefix = text.get(line_start..start)?;
    if prefix.chars().all(char::is_whitespace) && format == Format::Rst {
        // At the paragraph's own indentation, so that it does not swallow an indented block.
        Some((line_start, format!("{prefix}{comment}{eol}{eol}")))
    } else if prefix.chars().all(char::is_whitespace) {
        Some((line_start, format!("{comment}{eol}")))
    } else if format == Format::Latex {
        // The paragraph starts mid-line: break the line before it (a single line break is only
        // a space in LaTeX).
        Some((start, format!("{eol}{comment}{eol}")))
    } else {
        None
    }
}

/// The line ending used around `at`: that of the line at `at`, else of the line before it,
/// else `\n`.
fn line_ending(text: &str, at: usize) -> &'static str {
    let after = text.get(at..).unwrap_or("");
    let kind = |s: &str, i: usize| {
        if s.get(i..).is_some_and(|r| r.starts_with("\r\n")) {
            "\r\n"
        } else if s.get(i..).is_some_and(|r| r.starts_with('\r')) {
            "\r"
        } else {
            "\n"
        }
    };
    if let Some(i) = after.find(['\n', '\r']) {
        return kind(after, i);
    }
    let before = text.get(..at).unwrap_or("");
    let trimmed = before.trim_end_matches(['\n', '\r']);
    if trimmed.len() < before.len() {
        return kind(before, trimmed.len());
    }
    "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span_of(text: &str, needle: &str) -> Span {
        let s = text.find(needle).expect("needle");
        Span::new(s, s + needle.len())
    }

    #[test]
    fn disable_comment_goes_on_its_own_line() {
        let md = "# T\r\n\r\nFirst.\r\n\r\nSecond para.\r\n";
        let (at, ins) = disable_insertion(md, Format::Markdown, span_of(md, "Second")).expect("md");
        assert_eq!(at, md.find("Second").expect("s"));
        assert_eq!(ins, "<!-- segue-disable-next -->\r\n");
        let tex = "\\section{A} Text starts here.\n";
        let (at, ins) = disable_insertion(tex, Format::Latex, span_of(tex, "Text")).expect("tex");
        assert_eq!(at, tex.find("Text").expect("t"));
        assert_eq!(ins, "\n% segue-disable-next\n");
        assert_eq!(
            disable_insertion("a\n\nb\n", Format::Plain, Span::new(3, 4)),
            None
        );
        let quote = "> a\n>\n> b\n";
        assert_eq!(
            disable_insertion(quote, Format::Markdown, Span::new(8, 9)),
            None
        );
        let indented = "x\n\n   Para.\n";
        assert_eq!(
            disable_insertion(indented, Format::Markdown, span_of(indented, "Para")),
            Some((3, "<!-- segue-disable-next -->\n".to_string()))
        );
        let rst = "Title\n=====\n\nFirst.\n\n   Quoted para.\n";
        assert_eq!(
            disable_insertion(rst, Format::Rst, span_of(rst, "Quoted")),
            Some((
                rst.find("   Quoted").expect("q"),
                "   .. segue-disable-next\n\n".to_string()
            ))
        );
        assert_eq!(
            disable_insertion("- a\n", Format::Rst, Span::new(2, 3)),
            None
        );
    }

    #[test]
    fn kinds_filter_hierarchically() {
        let refactor = [CodeActionKind::REFACTOR];
        assert!(wants(Some(&refactor), &CodeActionKind::REFACTOR_REWRITE));
        assert!(!wants(Some(&refactor), &CodeActionKind::QUICKFIX));
        assert!(wants(None, &CodeActionKind::QUICKFIX));
    }
}
