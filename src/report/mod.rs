//! Rendering reports: rustc-style text (ariadne) and JSON, with the
//! explanations of failures that both share.

pub mod explain;
pub mod json;
pub mod text;
