//! Rendering reports: rustc-style text (ariadne) and JSON.

pub mod json;
pub mod text;
