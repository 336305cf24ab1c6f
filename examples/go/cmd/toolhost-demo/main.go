// Command toolhost-demo shows the generated Go client: it lists the file tools, reads one file
// and reads a path outside the roots to show how a client branches on the ErrorInfo reason.
//
//	go run ./cmd/toolhost-demo -addr 127.0.0.1:50051 -path README.md
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"strings"
	"time"

	filesv1 "github.com/toolhost/toolhost/gen/go/toolhost/files/v1"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

func main() {
	addr := flag.String("addr", envOr("TOOLHOST_ADDR", "127.0.0.1:50051"), "toolhost gRPC address")
	path := flag.String("path", "README.md", "file to read, relative to the server's first root")
	flag.Parse()

	// Plaintext is fine on loopback; use credentials.NewTLS for a remote server.
	conn, err := grpc.NewClient(*addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		log.Fatalf("connect %s: %v", *addr, err)
	}
	defer conn.Close()
	client := filesv1.NewFileToolsClient(conn)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	tools, err := client.ListTools(ctx, &filesv1.ListToolsRequest{})
	if err != nil {
		log.Fatalf("ListTools: %v", err)
	}
	for _, t := range tools.GetTools() {
		fmt.Printf("tool %-18s read_only=%-5v writes=%-5v %s\n", t.GetName(), t.GetReadOnly(), t.GetWrites(), t.GetMethod())
	}

	text, err := readText(ctx, client, *path)
	if err != nil {
		log.Fatalf("ReadFile %s: %v (reason %s)", *path, err, reason(err))
	}
	fmt.Printf("read %s: %d bytes\n%s", *path, len(text), text)
	if !strings.HasSuffix(text, "\n") {
		fmt.Println()
	}

	_, err = readText(ctx, client, "../../etc/passwd")
	switch reason(err) {
	case "PATH_TRAVERSAL":
		fmt.Printf("refused as expected: %s: %s\n", status.Code(err), status.Convert(err).Message())
	default:
		log.Fatalf("reading ../../etc/passwd: want PATH_TRAVERSAL, got %v", err)
	}
}

// readText concatenates the text chunks of a ReadFile stream. The server sends errors at the
// first Recv, so one loop handles both.
func readText(ctx context.Context, client filesv1.FileToolsClient, path string) (string, error) {
	stream, err := client.ReadFile(ctx, &filesv1.ReadFileRequest{Path: path})
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for {
		msg, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return b.String(), nil
		}
		if err != nil {
			return "", err
		}
		b.WriteString(msg.GetText())
	}
}

// reason returns the google.rpc.ErrorInfo reason of a toolhost error ("" when there is none).
// Branch on it rather than on the message text, which may change.
func reason(err error) string {
	for _, d := range status.Convert(err).Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok && info.GetDomain() == "toolhost" {
			return info.GetReason()
		}
	}
	return ""
}

func envOr(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}
