use std::fmt;

/// Error is what a helper fails with: the call's status (see [`crate::reason`]), a local I/O
/// error, a connection that could not be set up, or bytes whose sha256 did not match.
#[derive(Debug)]
pub enum Error {
    Status(tonic::Status),
    Transport(tonic::transport::Error),
    Io(std::io::Error),
    Verify(String),
    Config(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Status(s) => write!(f, "{}: {}", s.code(), s.message()),
            Error::Transport(e) => write!(f, "connecting to toolhost: {e}"),
            Error::Io(e) => write!(f, "{e}"),
            Error::Verify(m) | Error::Config(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for Error {}

impl From<tonic::Status> for Error {
    fn from(s: tonic::Status) -> Self {
        Error::Status(s)
    }
}

impl From<tonic::transport::Error> for Error {
    fn from(e: tonic::transport::Error) -> Self {
        Error::Transport(e)
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(e)
    }
}
