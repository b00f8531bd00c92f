//! Requests after `initialize`: hover, go to definition, code lenses.

use lsp_server::{ErrorCode, Request, Response};
use lsp_types::{
    CodeLensOptions, CodeLensParams, GotoDefinitionParams, GotoDefinitionResponse, Hover,
    HoverContents, HoverParams, HoverProviderCapability, InitializeResult, Location, MarkupContent,
    MarkupKind, OneOf, PositionEncodingKind, SaveOptions, ServerCapabilities, ServerInfo,
    TextDocumentSyncCapability, TextDocumentSyncKind, TextDocumentSyncOptions,
    TextDocumentSyncSaveOptions,
};
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::{DocState, Server, definition, diagnostics, hover};

pub fn initialize_result() -> InitializeResult {
    InitializeResult {
        capabilities: ServerCapabilities {
            position_encoding: Some(PositionEncodingKind::UTF16),
            text_document_sync: Some(TextDocumentSyncCapability::Options(
                TextDocumentSyncOptions {
                    open_close: Some(true),
                    change: Some(TextDocumentSyncKind::INCREMENTAL),
                    will_save: None,
                    will_save_wait_until: None,
                    save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions {
                        include_text: Some(false),
                    })),
                },
            )),
            hover_provider: Some(HoverProviderCapability::Simple(true)),
            definition_provider: Some(OneOf::Left(true)),
            code_lens_provider: Some(CodeLensOptions {
                resolve_provider: Some(false),
            }),
            ..ServerCapabilities::default()
        },
        server_info: Some(ServerInfo {
            name: "sift".to_string(),
            version: Some(env!("CARGO_PKG_VERSION").to_string()),
        }),
    }
}

/// The answer to a request (an error for unknown methods and bad params).
pub fn handle(server: &Server, r: Request) -> Response {
    let id = r.id.clone();
    let result = match r.method.as_str() {
        "textDocument/hover" => with_params(r, |p: HoverParams| {
            let tdp = p.text_document_position_params;
            let doc = server.docs.get(tdp.text_document.uri.as_str());
            to_value(doc.and_then(|d| hover_at(d, tdp.position)))
        }),
        "textDocument/definition" => with_params(r, |p: GotoDefinitionParams| {
            let tdp = p.text_document_position_params;
            let doc = server.docs.get(tdp.text_document.uri.as_str());
            to_value(doc.and_then(|d| definition_at(d, tdp.position)))
        }),
        "textDocument/codeLens" => with_params(r, |p: CodeLensParams| {
            let doc = server.docs.get(p.text_document.uri.as_str());
            to_value(doc.map(code_lenses).unwrap_or_default())
        }),
        other => Err((
            ErrorCode::MethodNotFound,
            format!("unknown method `{other}`"),
        )),
    };
    match result {
        Ok(v) => Response::new_ok(id, v),
        Err((code, msg)) => Response::new_err(id, code as i32, msg),
    }
}

type Answer = Result<Value, (ErrorCode, String)>;

fn with_params<P: DeserializeOwned>(r: Request, f: impl FnOnce(P) -> Answer) -> Answer {
    match serde_json::from_value::<P>(r.params) {
        Ok(p) => f(p),
        Err(e) => Err((
            ErrorCode::InvalidParams,
            format!("invalid params for `{}`: {e}", r.method),
        )),
    }
}

fn to_value(v: impl serde::Serialize) -> Answer {
    serde_json::to_value(v).map_err(|e| (ErrorCode::InternalError, e.to_string()))
}

fn hover_at(d: &DocState, pos: lsp_types::Position) -> Option<Hover> {
    let text = &d.doc.text;
    let offset = d.doc.offset(pos);
    let symbol = d
        .program
        .as_ref()
        .and_then(|p| definition::symbol_at(p, offset));
    let mut parts = Vec::new();
    let mut span = None;
    if let Some(s) = &symbol {
        parts.push(hover::declaration(text, s));
        span = hover::word_at(text, offset);
    }
    match &d.report {
        Some(report) if report.source == *text => {
            if let Some(h) = hover::states(report, offset) {
                parts.push(h.markdown);
                span = span.or(Some(h.span));
            } else if report
                .members
                .iter()
                .any(|m| m.span.start <= offset && offset < m.span.end && m.tree.is_empty())
            {
                parts.push(
                    "*No symbolic states: they are not recorded for files this large.*".to_string(),
                );
            }
        }
        Some(report)
            if report
                .members
                .iter()
                .any(|m| m.span.start <= offset && offset < m.span.end) =>
        {
            parts.push(
                "*No symbolic states: the last verification was of an older text.*".to_string(),
            );
        }
        _ => {}
    }
    if parts.is_empty() {
        return None;
    }
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: parts.join("\n\n---\n\n"),
        }),
        range: span.map(|s| d.doc.range(&s)),
    })
}

fn definition_at(d: &DocState, pos: lsp_types::Position) -> Option<GotoDefinitionResponse> {
    let program = d.program.as_ref()?;
    let symbol = definition::symbol_at(program, d.doc.offset(pos))?;
    Some(GotoDefinitionResponse::Scalar(Location {
        uri: d.uri.clone(),
        range: d.doc.range(&symbol.name),
    }))
}

fn code_lenses(d: &DocState) -> Vec<lsp_types::CodeLens> {
    let outdated = d.lens_generation != d.doc.generation;
    d.lenses
        .iter()
        .map(|l| {
            let mut lens = diagnostics::lens_to_lsp(l);
            if outdated && let Some(c) = lens.command.as_mut() {
                c.title.push_str(" (outdated)");
            }
            lens
        })
        .collect()
}
