package toolhostclient

import (
	"strings"

	errorsv1 "github.com/toolhost/toolhost/gen/go/toolhost/errors/v1"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/status"
)

// Domain is the ErrorInfo domain of every toolhost error.
const Domain = "toolhost"

// Reason returns the ErrorInfo reason of a failed toolhost call ("PATH_TRAVERSAL", ...), or ""
// when the error carries none (nil, a transport failure such as UNAVAILABLE, a non-gRPC error).
func Reason(err error) string {
	if err == nil {
		return ""
	}
	st, ok := status.FromError(err)
	if !ok {
		return ""
	}
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok && info.GetDomain() == Domain {
			return info.GetReason()
		}
	}
	return ""
}

// ReasonName is the wire string of an ErrorReason constant: the value's name without the
// "ERROR_REASON_" prefix (ErrorReason_ERROR_REASON_PATH_TRAVERSAL -> "PATH_TRAVERSAL").
func ReasonName(r errorsv1.ErrorReason) string {
	return strings.TrimPrefix(r.String(), "ERROR_REASON_")
}

// HasReason tells whether err carries the given reason.
func HasReason(err error, r errorsv1.ErrorReason) bool {
	return err != nil && Reason(err) == ReasonName(r)
}
