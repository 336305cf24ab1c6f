package toolhostclient

import (
	"errors"
	"testing"

	errorsv1 "github.com/toolhost/toolhost/gen/go/toolhost/errors/v1"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestReason(t *testing.T) {
	st, err := status.New(codes.PermissionDenied, "refused").WithDetails(&errdetails.ErrorInfo{Reason: "PATH_TRAVERSAL", Domain: Domain})
	if err != nil {
		t.Fatal(err)
	}
	if got := Reason(st.Err()); got != "PATH_TRAVERSAL" {
		t.Errorf("Reason = %q, want PATH_TRAVERSAL", got)
	}
	if !HasReason(st.Err(), errorsv1.ErrorReason_ERROR_REASON_PATH_TRAVERSAL) {
		t.Error("HasReason(PATH_TRAVERSAL) = false")
	}
	other, _ := status.New(codes.PermissionDenied, "x").WithDetails(&errdetails.ErrorInfo{Reason: "PATH_TRAVERSAL", Domain: "elsewhere"})
	for name, err := range map[string]error{
		"nil":          nil,
		"no details":   status.Error(codes.Unavailable, "connection refused"),
		"not grpc":     errors.New("plain"),
		"other domain": other.Err(),
	} {
		if got := Reason(err); got != "" {
			t.Errorf("%s: Reason = %q, want empty", name, got)
		}
	}
}

func TestReasonName(t *testing.T) {
	if got := ReasonName(errorsv1.ErrorReason_ERROR_REASON_UPLOAD_MISMATCH); got != "UPLOAD_MISMATCH" {
		t.Errorf("ReasonName = %q", got)
	}
}

func TestDialRefusesAPlaintextTokenBeyondLoopback(t *testing.T) {
	if _, err := Dial("10.1.2.3:50051", Options{Token: "secret"}); err == nil {
		t.Fatal("Dial sent a token in plaintext to a non-loopback address")
	}
	for _, address := range []string{"127.0.0.1:50051", "localhost:50051", "[::1]:50051"} {
		c, err := Dial(address, Options{Token: "secret"})
		if err != nil {
			t.Fatalf("%s: %v", address, err)
		}
		c.Close()
	}
}
