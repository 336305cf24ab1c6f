// Command scratch is a user's program built in a module outside the repository by
// test/clients/go-client-module.stress.test.ts, depending on github.com/toolhost/toolhost/gen/go
// through a replace to the checkout, exactly as docs/clients.md tells users to.
package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log"
	"os"
	"strings"
	"time"

	errorsv1 "github.com/toolhost/toolhost/gen/go/toolhost/errors/v1"
	filesv1 "github.com/toolhost/toolhost/gen/go/toolhost/files/v1"
	"github.com/toolhost/toolhost/gen/go/toolhostclient"
)

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	client, err := toolhostclient.Dial(os.Args[1], toolhostclient.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()

	tools, err := client.Files.ListTools(ctx, &filesv1.ListToolsRequest{})
	if err != nil {
		log.Fatal(err)
	}
	names := make([]string, 0, len(tools.GetTools()))
	for _, t := range tools.GetTools() {
		names = append(names, t.GetName())
	}
	fmt.Println("tools", strings.Join(names, ","))

	content := bytes.Repeat([]byte("0123456789abcdef"), 200_000)
	sum := sha256.Sum256(content)
	size := uint64(len(content))
	up, err := toolhostclient.Upload(ctx, client.Files, &filesv1.UploadHeader{
		Path: "go/upload.bin", CreateParents: ptr(true), ExpectedSize: &size, ExpectedSha256: hex.EncodeToString(sum[:]),
	}, bytes.NewReader(content))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("upload", up.GetSize(), up.GetSha256() == hex.EncodeToString(sum[:]))

	data, err := toolhostclient.ReadAll(ctx, client.Files, &filesv1.ReadFileRequest{Path: "go/upload.bin"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("readall", len(data), bytes.Equal(data, content))

	summary, err := toolhostclient.ReadTo(ctx, client.Files, &filesv1.ReadFileRequest{Path: "go/upload.bin", ByteOffset: 16, ByteLimit: ptr(uint64(32))}, io.Discard)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("readto", summary.GetBytesSent())

	_, err = toolhostclient.ReadAll(ctx, client.Files, &filesv1.ReadFileRequest{Path: "../../etc/passwd"})
	fmt.Println("reason", toolhostclient.Reason(err), toolhostclient.HasReason(err, errorsv1.ErrorReason_ERROR_REASON_PATH_TRAVERSAL))

	_, err = toolhostclient.Upload(ctx, client.Files, &filesv1.UploadHeader{Path: "go/bad.bin", ExpectedSize: ptr(uint64(1))}, strings.NewReader("two"))
	fmt.Println("mismatch", toolhostclient.Reason(err))

	down, err := toolhostclient.Dial("127.0.0.1:1", toolhostclient.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer down.Close()
	_, err = down.Files.ListTools(ctx, &filesv1.ListToolsRequest{})
	fmt.Printf("unavailable %q %v\n", toolhostclient.Reason(err), err != nil)
}

func ptr[T any](v T) *T { return &v }
