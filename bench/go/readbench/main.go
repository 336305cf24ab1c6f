// Command readbench streams one file from a running toolhost in bytes mode with the generated Go
// client and prints the throughput. A Go client decodes far faster than a Node.js one, so on a
// 2-core machine it measures the server rather than the client.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"sync"
	"time"

	filesv1 "github.com/toolhost/toolhost/gen/go/toolhost/files/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:50051", "toolhost gRPC address")
	path := flag.String("path", "big.bin", "file to read, relative to the server's first root")
	chunk := flag.Uint("chunk", 0, "chunk_size hint in bytes (0: server default)")
	rounds := flag.Int("rounds", 3, "how many times to read the file")
	parallel := flag.Int("parallel", 1, "concurrent reads of the file per round, over one connection")
	flag.Parse()

	conn, err := grpc.NewClient(*addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(64<<20)),
		// Large windows so the client never throttles the server on loopback.
		grpc.WithInitialWindowSize(16<<20), grpc.WithInitialConnWindowSize(64<<20))
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	client := filesv1.NewFileToolsClient(conn)
	for i := 0; i < *rounds; i++ {
		start := time.Now()
		var n int64
		var mu sync.Mutex
		var wg sync.WaitGroup
		for p := 0; p < *parallel; p++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got, err := readAll(client, *path, uint32(*chunk))
				if err != nil {
					log.Fatal(err)
				}
				mu.Lock()
				n += got
				mu.Unlock()
			}()
		}
		wg.Wait()
		secs := time.Since(start).Seconds()
		fmt.Printf("chunk=%d bytes=%d seconds=%.3f MB/s=%.1f\n", *chunk, n, secs, float64(n)/secs/1e6)
	}
	os.Exit(0)
}

func readAll(client filesv1.FileToolsClient, path string, chunk uint32) (int64, error) {
	stream, err := client.ReadFile(context.Background(), &filesv1.ReadFileRequest{
		Path: path, Mode: filesv1.ReadMode_READ_MODE_BYTES, ChunkSize: chunk,
	})
	if err != nil {
		return 0, err
	}
	var n int64
	for {
		msg, err := stream.Recv()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n += int64(len(msg.GetData()))
	}
}
