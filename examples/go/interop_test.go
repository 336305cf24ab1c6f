// Package interop checks the generated Go client against a running toolhost server.
//
// TOOLHOST_ADDR (host:port) selects the server; without it every test is skipped. When
// TOOLHOST_SAMPLE_PATH is set, ReadFile of that path (relative to the server's first root) must
// return exactly TOOLHOST_SAMPLE_TEXT. test/interop/interop.test.ts sets all three.
//
// With TOOLHOST_CA (a PEM file) the client connects over TLS and verifies the server against it;
// TOOLHOST_TOKEN adds "authorization: Bearer <token>" to every call, and TOOLHOST_CLIENT_CERT
// with TOOLHOST_CLIENT_KEY present a client certificate (mTLS). test/interop/interop-tls.test.ts
// sets them.
package interop

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	filesv1 "github.com/toolhost/toolhost/gen/go/toolhost/files/v1"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
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
	conn, err := grpc.NewClient(addr, dialOptions(t)...)
	if err != nil {
		t.Fatalf("grpc.NewClient(%q): %v", addr, err)
	}
	t.Cleanup(func() { conn.Close() })
	// A deadline only so that a hung server fails the test instead of hanging it.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return conn, ctx
}

// dialOptions are plaintext, or TLS with an optional client certificate and bearer token.
func dialOptions(t *testing.T) []grpc.DialOption {
	t.Helper()
	caFile := os.Getenv("TOOLHOST_CA")
	if caFile == "" {
		return []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}
	}
	pem, err := os.ReadFile(caFile)
	if err != nil {
		t.Fatalf("TOOLHOST_CA: %v", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		t.Fatalf("TOOLHOST_CA %s holds no PEM certificate", caFile)
	}
	config := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	if certFile := os.Getenv("TOOLHOST_CLIENT_CERT"); certFile != "" {
		pair, err := tls.LoadX509KeyPair(certFile, os.Getenv("TOOLHOST_CLIENT_KEY"))
		if err != nil {
			t.Fatalf("client certificate: %v", err)
		}
		config.Certificates = []tls.Certificate{pair}
	}
	options := []grpc.DialOption{grpc.WithTransportCredentials(credentials.NewTLS(config))}
	if token := os.Getenv("TOOLHOST_TOKEN"); token != "" {
		options = append(options, grpc.WithPerRPCCredentials(bearerToken(token)))
	}
	return options
}

// bearerToken sends "authorization: Bearer <token>" with every call, over TLS only.
type bearerToken string

func (b bearerToken) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer " + string(b)}, nil
}

func (bearerToken) RequireTransportSecurity() bool { return true }

func TestListToolsStartsWithTheFourSeedFileTools(t *testing.T) {
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
	}
	tools := resp.GetTools()
	if len(tools) < len(want) {
		t.Fatalf("ListTools returned %d tools, want at least %d: %v", len(tools), len(want), tools)
	}
	functionName := regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	for _, tool := range tools {
		if !functionName.MatchString(tool.GetFunctionName()) {
			t.Errorf("%s: function_name %q is not a name model APIs accept", tool.GetName(), tool.GetFunctionName())
		}
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

// TestTreeToolsAndReadFiles makes a directory, writes, moves and copies a file in it, reads both
// back with ReadFiles (a missing file answered with its own error), reads a tail, refuses a move
// over an existing file with ALREADY_EXISTS, and removes the tree. Everything under go-interop/.
func TestTreeToolsAndReadFiles(t *testing.T) {
	conn, ctx := dial(t)
	client := filesv1.NewFileToolsClient(conn)
	base := "go-interop"
	t.Cleanup(func() {
		client.RemoveDirectory(context.Background(), &filesv1.RemoveDirectoryRequest{Path: base, Recursive: true})
	})
	made, err := client.MakeDirectory(ctx, &filesv1.MakeDirectoryRequest{Path: base + "/work", Parents: true})
	if err != nil || !made.GetCreated() {
		t.Fatalf("MakeDirectory: %v (created=%v)", err, made.GetCreated())
	}
	text := "one\ntwo\nthree\n"
	if _, err := client.WriteFile(ctx, &filesv1.WriteFileRequest{Path: base + "/work/a.txt", Content: &filesv1.WriteFileRequest_Text{Text: text}}); err != nil {
		t.Fatalf("WriteFile: %v", err)
	}
	moved, err := client.MoveFile(ctx, &filesv1.MoveFileRequest{From: base + "/work/a.txt", To: base + "/b.txt"})
	sum := sha256.Sum256([]byte(text))
	if err != nil || moved.GetType() != filesv1.FileType_FILE_TYPE_FILE || moved.GetSha256() != hex.EncodeToString(sum[:]) {
		t.Fatalf("MoveFile: %v %v", err, moved)
	}
	if _, err := client.CopyFile(ctx, &filesv1.CopyFileRequest{From: base + "/b.txt", To: base + "/c.txt"}); err != nil {
		t.Fatalf("CopyFile: %v", err)
	}
	_, err = client.MoveFile(ctx, &filesv1.MoveFileRequest{From: base + "/b.txt", To: base + "/c.txt"})
	if status.Code(err) != codes.AlreadyExists || reasonOf(err) != "ALREADY_EXISTS" {
		t.Fatalf("MoveFile over c.txt: %v, want AlreadyExists / ALREADY_EXISTS", err)
	}
	stream, err := client.ReadFiles(ctx, &filesv1.ReadFilesRequest{Files: []*filesv1.ReadFileRequest{
		{Path: base + "/b.txt"}, {Path: base + "/missing.txt"}, {Path: base + "/c.txt", TailLines: 1},
	}})
	if err != nil {
		t.Fatalf("ReadFiles: %v", err)
	}
	contents := map[uint32]string{}
	errs := map[uint32]string{}
	for {
		msg, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("ReadFiles stream: %v", err)
		}
		contents[msg.GetIndex()] += msg.GetText()
		if e := msg.GetError(); e != nil {
			errs[msg.GetIndex()] = e.GetReason()
		}
	}
	if contents[0] != text || errs[1] != "NOT_FOUND" || contents[2] != "three\n" {
		t.Fatalf("ReadFiles: contents %v, errors %v", contents, errs)
	}
	removed, err := client.RemoveDirectory(ctx, &filesv1.RemoveDirectoryRequest{Path: base, Recursive: true})
	if err != nil || removed.GetRemovedEntries() != 4 {
		t.Fatalf("RemoveDirectory: %v %v", err, removed)
	}
}

// reasonOf returns the google.rpc.ErrorInfo reason of an error, or "".
func reasonOf(err error) string {
	for _, d := range status.Convert(err).Details() {
		if i, ok := d.(*errdetails.ErrorInfo); ok {
			return i.GetReason()
		}
	}
	return ""
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
	// A name of its own per run: the interop suites run more than once against one root.
	name := "interop-watch-go-" + strconv.FormatInt(time.Now().UnixNano(), 36) + ".txt"
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

// TestApplyPatchHistoryAndUndo applies a two-file patch, lists the history it left, undoes it
// through one of its files (a patch is one change: both files go back), and checks that a patch
// whose second file does not apply changes neither (PATCH_FAILED). File names of their own per run.
func TestApplyPatchHistoryAndUndo(t *testing.T) {
	conn, ctx := dial(t)
	client := filesv1.NewFileToolsClient(conn)
	suffix := strconv.FormatInt(time.Now().UnixNano(), 36)
	a, b := "go-patch-a-"+suffix+".txt", "go-patch-b-"+suffix+".txt"
	t.Cleanup(func() {
		client.DeleteFile(context.Background(), &filesv1.DeleteFileRequest{Path: a})
		client.DeleteFile(context.Background(), &filesv1.DeleteFileRequest{Path: b})
	})
	if _, err := client.WriteFile(ctx, &filesv1.WriteFileRequest{Path: a, Content: &filesv1.WriteFileRequest_Text{Text: "one\n"}}); err != nil {
		t.Fatalf("WriteFile: %v", err)
	}
	patch := "*** Begin Patch\n*** Update File: " + a + "\n@@\n-one\n+two\n*** Add File: " + b + "\n+new\n*** End Patch"
	applied, err := client.ApplyPatch(ctx, &filesv1.ApplyPatchRequest{Patch: patch})
	if err != nil || !applied.GetApplied() || len(applied.GetFiles()) != 2 {
		t.Fatalf("ApplyPatch: %v %v", err, applied)
	}
	history, err := client.ListFileHistory(ctx, &filesv1.ListFileHistoryRequest{Path: a})
	if err != nil || len(history.GetChanges()) != 2 || history.GetChanges()[0].GetOperation() != filesv1.ChangeOperation_CHANGE_OPERATION_PATCH {
		t.Fatalf("ListFileHistory: %v %v", err, history)
	}
	if _, err := client.UndoLastChange(ctx, &filesv1.UndoLastChangeRequest{Path: a}); err != nil {
		t.Fatalf("UndoLastChange: %v", err)
	}
	if text, _, err := readFile(ctx, client, a); err != nil || text != "one\n" {
		t.Fatalf("after undo: %q, %v; want \"one\\n\"", text, err)
	}
	if _, err := client.StatFile(ctx, &filesv1.StatFileRequest{Path: b}); reasonOf(err) != "NOT_FOUND" {
		t.Fatalf("StatFile of the patch's added file after undo: %v, want NOT_FOUND", err)
	}
	if _, err := client.WriteFile(ctx, &filesv1.WriteFileRequest{Path: b, Content: &filesv1.WriteFileRequest_Text{Text: "new\n"}}); err != nil {
		t.Fatalf("WriteFile: %v", err)
	}
	bad := "*** Begin Patch\n*** Update File: " + a + "\n@@\n-one\n+three\n*** Update File: " + b + "\n@@\n-absent\n+x\n*** End Patch"
	if _, err := client.ApplyPatch(ctx, &filesv1.ApplyPatchRequest{Patch: bad}); reasonOf(err) != "PATCH_FAILED" {
		t.Fatalf("ApplyPatch of a failing patch: %v, want PATCH_FAILED", err)
	}
	if text, _, err := readFile(ctx, client, a); err != nil || text != "one\n" {
		t.Fatalf("after the failed patch: %q, %v; want \"one\\n\" unchanged", text, err)
	}
}
