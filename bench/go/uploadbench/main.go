// Command uploadbench uploads a file of random bytes to a running toolhost with the generated Go
// client (UploadFile, client streaming) and prints the throughput, so that the server, not a
// Node.js client's encoding, is what is measured.
package main

import (
	"context"
	"crypto/rand"
	"flag"
	"fmt"
	"log"
	"time"

	filesv1 "github.com/toolhost/toolhost/gen/go/toolhost/files/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:50051", "toolhost gRPC address")
	path := flag.String("path", "upload.bin", "target, relative to the server's first root")
	size := flag.Int("size", 256<<20, "bytes to upload")
	chunk := flag.Int("chunk", 1<<20, "bytes per data message")
	rounds := flag.Int("rounds", 3, "how many uploads")
	flag.Parse()

	conn, err := grpc.NewClient(*addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	client := filesv1.NewFileToolsClient(conn)
	data := make([]byte, *size)
	if _, err := rand.Read(data); err != nil {
		log.Fatal(err)
	}
	for i := 0; i < *rounds; i++ {
		start := time.Now()
		if err := upload(client, *path, data, *chunk); err != nil {
			log.Fatal(err)
		}
		secs := time.Since(start).Seconds()
		fmt.Printf("chunk=%d bytes=%d seconds=%.3f MB/s=%.1f\n", *chunk, *size, secs, float64(*size)/secs/1e6)
	}
}

func upload(client filesv1.FileToolsClient, path string, data []byte, chunk int) error {
	stream, err := client.UploadFile(context.Background())
	if err != nil {
		return err
	}
	header := &filesv1.UploadFileRequest{Part: &filesv1.UploadFileRequest_Header{Header: &filesv1.UploadHeader{Path: path}}}
	if err := stream.Send(header); err != nil {
		return err
	}
	for off := 0; off < len(data); off += chunk {
		end := min(off+chunk, len(data))
		if err := stream.Send(&filesv1.UploadFileRequest{Part: &filesv1.UploadFileRequest_Data{Data: data[off:end]}}); err != nil {
			return err
		}
	}
	_, err = stream.CloseAndRecv()
	return err
}
