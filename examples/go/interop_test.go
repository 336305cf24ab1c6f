// Package interop checks the generated Go client against a running toolhost server.
//
// TOOLHOST_ADDR (host:port) selects the server; without it every test is skipped. When
// TOOLHOST_SAMPLE_PATH is set, ReadFile of that path (relative to the server's first root) must
// return exactly TOOLHOST_SAMPLE_TEXT. test/interop/interop.test.ts sets all three.
package interop

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	filesv1 "github.com/toolhost/toolhost/gen/go/toolhost/files/v1"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
)

func dial(t *testing.T) (*grpc.ClientConn, context.Context) {
	t.Helper()
	addr := os.Getenv("TOOLHOST_ADDR")
	if addr == "" {
		t.Skip("TOOLHOST_ADDR is not set; start `toolhost serve` and set it to host:port")
	}
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatalf("grpc.NewClient(%q): %v", addr, err)
	}
	t.Cleanup(func() { conn.Close() })
	// A deadline only so that a hung server fails the test instead of hanging it.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return conn, ctx
}

func TestListToolsReturnsTheFileTools(t *testing.T) {
	conn, ctx := dial(t)
	resp, err := filesv1.NewFileToolsClient(conn).ListTools(ctx, &filesv1.ListToolsRequest{})
	if err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	want := []struct {
		name             string
		readOnly, writes bool
	}{
		{"skill/file-read", true, false},
		{"skill/file-write", false, true},
		{"skill/file-edit", false, true},
		{"skill/file-delete", false, true},
		{"skill/file-search", true, false},
		{"skill/file-watch", true, false},
	}
	tools := resp.GetTools()
	if len(tools) != len(want) {
		t.Fatalf("ListTools returned %d tools, want %d: %v", len(tools), len(want), tools)
	}
	for i, w := range want {
		got := tools[i]
		if got.GetName() != w.name {
			t.Errorf("tools[%d].name = %q, want %q", i, got.GetName(), w.name)
		}
		if got.GetReadOnly() != w.readOnly || got.GetWrites() != w.writes {
			t.Errorf("%s: read_only=%v writes=%v, want read_only=%v writes=%v", w.name, got.GetReadOnly(), got.GetWrites(), w.readOnly, w.writes)
		}
		var schema map[string]any
		if err := json.Unmarshal([]byte(got.GetInputSchema()), &schema); err != nil || len(schema) == 0 {
			t.Errorf("%s: input_schema is not a non-empty JSON object (%v): %q", w.name, err, got.GetInputSchema())
		}
	}
}

func TestHealthCheckIsServing(t *testing.T) {
	conn, ctx := dial(t)
	resp, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{})
	if err != nil {
		t.Fatalf("Health.Check: %v", err)
	}
	if resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("Health.Check status = %v, want SERVING", resp.GetStatus())
	}
}

func TestReadFileOutsideTheRootsIsPathTraversal(t *testing.T) {
	conn, ctx := dial(t)
	_, _, err := readFile(ctx, filesv1.NewFileToolsClient(conn), "../../etc/passwd")
	if status.Code(err) != codes.PermissionDenied {
		t.Fatalf("ReadFile ../../etc/passwd: code %v (%v), want PermissionDenied", status.Code(err), err)
	}
	var info *errdetails.ErrorInfo
	for _, d := range status.Convert(err).Details() {
		if i, ok := d.(*errdetails.ErrorInfo); ok {
			info = i
		}
	}
	if info == nil {
		t.Fatalf("ReadFile ../../etc/passwd: no google.rpc.ErrorInfo in the status details: %v", err)
	}
	if info.GetReason() != "PATH_TRAVERSAL" || info.GetDomain() != "toolhost" {
		t.Fatalf("ErrorInfo = reason %q domain %q, want PATH_TRAVERSAL / toolhost", info.GetReason(), info.GetDomain())
	}
}

func TestReadFileReturnsTheSampleText(t *testing.T) {
	conn, ctx := dial(t)
	path := os.Getenv("TOOLHOST_SAMPLE_PATH")
	if path == "" {
		t.Skip("TOOLHOST_SAMPLE_PATH is not set")
	}
	want := os.Getenv("TOOLHOST_SAMPLE_TEXT")
	text, summary, err := readFile(ctx, filesv1.NewFileToolsClient(conn), path)
	if err != nil {
		t.Fatalf("ReadFile %s: %v", path, err)
	}
	if text != want {
		t.Fatalf("ReadFile %s = %q, want %q", path, text, want)
	}
	sum := sha256.Sum256([]byte(want))
	if summary.GetSha256() != hex.EncodeToString(sum[:]) || !summary.GetEof() {
		t.Fatalf("ReadFile %s summary = %v, want sha256 %x and eof", path, summary, sum)
	}
}

// readFile collects a ReadFile stream: the text chunks and the closing summary.
func readFile(ctx context.Context, client filesv1.FileToolsClient, path string) (string, *filesv1.ReadSummary, error) {
	stream, err := client.ReadFile(ctx, &filesv1.ReadFileRequest{Path: path})
	if err != nil {
		return "", nil, err
	}
	var text strings.Builder
	var summary *filesv1.ReadSummary
	for {
		msg, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return text.String(), summary, nil
		}
		if err != nil {
			return "", nil, err
		}
		text.WriteString(msg.GetText())
		if s := msg.GetSummary(); s != nil {
			summary = s
		}
	}
}

func TestSearchFilesFindsTheSampleLine(t *testing.T) {
	conn, ctx := dial(t)
	path := os.Getenv("TOOLHOST_SAMPLE_PATH")
	if path == "" {
		t.Skip("TOOLHOST_SAMPLE_PATH is not set")
	}
	lines := strings.Split(strings.TrimRight(os.Getenv("TOOLHOST_SAMPLE_TEXT"), "\n"), "\n")
	last := lines[len(lines)-1]
	stream, err := filesv1.NewFileToolsClient(conn).SearchFiles(ctx, &filesv1.SearchFilesRequest{Pattern: last})
	if err != nil {
		t.Fatalf("SearchFiles: %v", err)
	}
	var matches []*filesv1.SearchMatch
	var summary *filesv1.SearchSummary
	for {
		msg, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("SearchFiles: %v", err)
		}
		if m := msg.GetMatch(); m != nil {
			matches = append(matches, m)
		}
		if s := msg.GetSummary(); s != nil {
			summary = s
		}
	}
	if len(matches) != 1 || matches[0].GetPath() != path || matches[0].GetLineNumber() != uint64(len(lines)) || matches[0].GetLine() != last {
		t.Fatalf("SearchFiles %q matches = %v, want %s:%d", last, matches, path, len(lines))
	}
	if summary == nil || summary.GetMatches() != 1 || summary.GetFilesMatched() != 1 {
		t.Fatalf("SearchFiles summary = %v, want 1 match in 1 file", summary)
	}
}

func TestWatchFilesReportsAWrite(t *testing.T) {
	conn, ctx := dial(t)
	client := filesv1.NewFileToolsClient(conn)
	watchCtx, stop := context.WithCancel(ctx)
	defer stop()
	const name = "interop-watch-go.txt"
	stream, err := client.WatchFiles(watchCtx, &filesv1.WatchFilesRequest{Include: []string{name}})
	if err != nil {
		t.Fatalf("WatchFiles: %v", err)
	}
	first, err := stream.Recv()
	if err != nil || first.GetType() != filesv1.WatchEventType_WATCH_EVENT_TYPE_READY {
		t.Fatalf("WatchFiles first event = %v, %v; want READY", first, err)
	}
	if _, err := client.WriteFile(ctx, &filesv1.WriteFileRequest{Path: name, Content: &filesv1.WriteFileRequest_Text{Text: "watched\n"}}); err != nil {
		t.Fatalf("WriteFile: %v", err)
	}
	event, err := stream.Recv()
	if err != nil {
		t.Fatalf("WatchFiles: %v", err)
	}
	if event.GetType() != filesv1.WatchEventType_WATCH_EVENT_TYPE_CREATED || event.GetPath() != name || event.GetFileType() != filesv1.FileType_FILE_TYPE_FILE || event.GetSize() != 8 {
		t.Fatalf("WatchFiles event = %v, want CREATED %s, a file of 8 bytes", event, name)
	}
}
