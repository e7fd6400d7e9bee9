use serde::{Deserialize, Serialize};

/// The kinds every docsift error maps to; front-ends (CLI exit codes, JS error classes)
/// switch on these.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ErrorKind {
    #[error("malformed input")]
    Malformed,
    #[error("encrypted document")]
    Encrypted { needs_password: bool },
    #[error("unsupported input")]
    Unsupported,
    #[error("limit exceeded")]
    LimitExceeded,
    #[error("cancelled")]
    Cancelled,
    #[error("model error")]
    Model,
    #[error("i/o error")]
    Io,
}

/// An error with a message a user can act on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{message}")]
pub struct Error {
    #[serde(flatten)]
    pub kind: ErrorKind,
    pub message: String,
}

impl Error {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error { kind, message: message.into() }
    }

    pub fn malformed(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::Malformed, message)
    }

    pub fn limit(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::LimitExceeded, message)
    }

    /// Stable short code (`malformed`, `password_required`, ...) for scripts and JS.
    pub fn code(&self) -> &'static str {
        match self.kind {
            ErrorKind::Malformed => "malformed",
            ErrorKind::Encrypted { needs_password: true } => "password_required",
            ErrorKind::Encrypted { needs_password: false } => "encrypted",
            ErrorKind::Unsupported => "unsupported",
            ErrorKind::LimitExceeded => "limit_exceeded",
            ErrorKind::Cancelled => "cancelled",
            ErrorKind::Model => "model",
            ErrorKind::Io => "io",
        }
    }
}

/// Something went wrong but a result was still produced.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Warning {
    /// 1-based page the warning concerns, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<usize>,
    pub message: String,
}

impl Warning {
    pub fn page(page: usize, message: impl Into<String>) -> Self {
        Warning { page: Some(page), message: message.into() }
    }

    pub fn document(message: impl Into<String>) -> Self {
        Warning { page: None, message: message.into() }
    }
}
