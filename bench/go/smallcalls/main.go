// Command smallcalls makes bench/mcp/small-calls.sh's three small calls against toolhost with the
// generated Go client, one at a time over one connection: a text ReadFile of 35k.txt, a single
// replacement EditFile of edit-go.txt, a text ReadFile of 10m.txt. It prints "go work ms" per call.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"strings"
	"time"

	filesv1 "github.com/toolhost/toolhost/gen/go/toolhost/files/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:50051", "toolhost gRPC address")
	rounds := flag.Int("rounds", 20, "how many times to make each call")
	only := flag.String("only", "", "make only this call (read35k, edit4k, read10m, write4k or stat), e.g. under a profiler")
	flag.Parse()
	conn, err := grpc.NewClient(*addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(64<<20)),
		grpc.WithInitialWindowSize(16<<20), grpc.WithInitialConnWindowSize(64<<20))
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	client := filesv1.NewFileToolsClient(conn)
	edits := [2][2]string{{"alpha-marker", "omega-marker"}, {"omega-marker", "alpha-marker"}}
	calls := []struct {
		work string
		call func(round int) error
	}{
		{"read35k", func(int) error { return readText(client, "35k.txt") }},
		{"edit4k", func(r int) error {
			_, err := client.EditFile(context.Background(), &filesv1.EditFileRequest{Path: "edit-go.txt", Edits: []*filesv1.Edit{{
				Kind: &filesv1.Edit_Replace{Replace: &filesv1.ReplaceEdit{OldText: edits[r%2][0], NewText: edits[r%2][1]}}}}})
			return err
		}},
		{"read10m", func(int) error { return readText(client, "10m.txt") }},
		// Not in bench:mcp's three: an overwrite (its previous_sha256 reads the replaced file) and a stat.
		{"write4k", func(r int) error {
			_, err := client.WriteFile(context.Background(), &filesv1.WriteFileRequest{Path: "write-go.txt", Content: &filesv1.WriteFileRequest_Text{Text: edits[r%2][0] + writeBody}})
			return err
		}},
		{"stat", func(int) error {
			_, err := client.StatFile(context.Background(), &filesv1.StatFileRequest{Path: "35k.txt"})
			return err
		}},
	}
	for round := -1; round < *rounds; round++ { // round -1 warms up and is not printed
		for _, c := range calls {
			if *only != "" && c.work != *only {
				continue
			}
			start := time.Now()
			if err := c.call(round + 1); err != nil {
				log.Fatalf("%s: %v", c.work, err)
			}
			if round >= 0 {
				fmt.Printf("go %s %.3f\n", c.work, float64(time.Since(start).Microseconds())/1000)
			}
		}
	}
}

// writeBody is write4k's content after its marker: 4 KB in all.
var writeBody = strings.Repeat("w", 4083) + "\n"

// readText reads a whole file in text mode and drops the text, as an agent's backend would
// hand it on.
func readText(client filesv1.FileToolsClient, path string) error {
	stream, err := client.ReadFile(context.Background(), &filesv1.ReadFileRequest{Path: path, Mode: filesv1.ReadMode_READ_MODE_TEXT})
	if err != nil {
		return err
	}
	for {
		if _, err := stream.Recv(); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
	}
}
