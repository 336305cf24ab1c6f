use tonic_types::StatusExt;

use crate::proto::toolhost::errors::v1::ErrorReason;
use crate::Error;

/// The ErrorInfo domain of every toolhost error.
pub const DOMAIN: &str = "toolhost";

/// The ErrorInfo reason of a failed call ("PATH_TRAVERSAL", ...), or None when the error carries
/// none: a connection failure, a deadline, a local I/O or verification error.
pub fn reason(err: &Error) -> Option<String> {
    let Error::Status(status) = err else { return None };
    let info = status.get_error_details().error_info()?.clone();
    (info.domain == DOMAIN && !info.reason.is_empty()).then_some(info.reason)
}

/// The wire string of an ErrorReason: the value's name without its `ERROR_REASON_` prefix
/// (`ErrorReason::PathTraversal` -> "PATH_TRAVERSAL").
pub fn reason_name(value: ErrorReason) -> &'static str {
    let name = value.as_str_name();
    name.strip_prefix("ERROR_REASON_").unwrap_or(name)
}

/// Whether a failed call carries the given reason.
pub fn has_reason(err: &Error, value: ErrorReason) -> bool {
    reason(err).as_deref() == Some(reason_name(value))
}
