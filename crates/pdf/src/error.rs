use docsift_model::{Error, ErrorKind};

/// What can stop a PDF from opening at all; anything less is a warning on the page.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PdfError {
    #[error("the file is empty")]
    Empty,
    #[error("not a PDF file (no %PDF- header)")]
    NotPdf,
    #[error("the PDF could not be read: {0}")]
    Load(String),
    #[error("{}", if *supplied { "the password is wrong" } else { "the PDF is encrypted and needs a password" })]
    Password { supplied: bool },
    #[error("the page tree is nested deeper than {0} levels")]
    PageTreeTooDeep(usize),
    #[error("the page tree is a cycle with no pages")]
    PageTreeCycle,
    #[error("the PDF has no pages")]
    NoPages,
    #[error("page {0} does not exist (the document has {1})")]
    NoSuchPage(usize, usize),
}

impl From<PdfError> for Error {
    fn from(e: PdfError) -> Error {
        let kind = match e {
            PdfError::Password { .. } => ErrorKind::Encrypted { needs_password: true },
            PdfError::PageTreeTooDeep(_) => ErrorKind::LimitExceeded,
            PdfError::NoSuchPage(..) => ErrorKind::Unsupported,
            _ => ErrorKind::Malformed,
        };
        Error::new(kind, e.to_string())
    }
}
