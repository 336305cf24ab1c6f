// Command refserver is the reference the comparison benchmark (bench/compare) measures toolhost
// against: a grpc-go server on the same generated code doing the same work for ReadFile (bytes
// mode: open, fstat, info, chunks, sha256 of every chunk, summary), UploadFile (temp file in the
// target's folder, sha256, fsync, rename) and StatFile (lstat, open, fstat, first 8 KiB for a
// binary verdict). It has no sandbox, limits or logging: it is a ceiling, not a product.
package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"io"
	"log"
	"net"
	"os"
	"path/filepath"

	filesv1 "github.com/toolhost/toolhost/gen/go/toolhost/files/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"
)

type server struct {
	filesv1.UnimplementedFileToolsServer
	root string
}

func (s *server) ReadFile(req *filesv1.ReadFileRequest, stream filesv1.FileTools_ReadFileServer) error {
	f, err := os.Open(filepath.Join(s.root, req.GetPath()))
	if err != nil {
		return status.Error(codes.NotFound, err.Error())
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	info := &filesv1.FileInfo{Path: req.GetPath(), Size: uint64(st.Size()), Encoding: "binary", Mode: filesv1.ReadMode_READ_MODE_BYTES,
		Modified: timestamppb.New(st.ModTime()), FileMode: uint32(st.Mode().Perm())}
	if err := stream.Send(&filesv1.ReadFileResponse{Part: &filesv1.ReadFileResponse_Info{Info: info}}); err != nil {
		return err
	}
	chunk := int(req.GetChunkSize())
	if chunk == 0 {
		chunk = 1 << 20
	}
	hash := sha256.New()
	var sent uint64
	for {
		buf := make([]byte, chunk)
		n, err := io.ReadFull(f, buf)
		if n > 0 {
			hash.Write(buf[:n])
			sent += uint64(n)
			if err := stream.Send(&filesv1.ReadFileResponse{Part: &filesv1.ReadFileResponse_Data{Data: buf[:n]}}); err != nil {
				return err
			}
		}
		if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			return err
		}
	}
	summary := &filesv1.ReadSummary{BytesSent: sent, Sha256: hex.EncodeToString(hash.Sum(nil)), Eof: true, NextOffset: sent}
	return stream.Send(&filesv1.ReadFileResponse{Part: &filesv1.ReadFileResponse_Summary{Summary: summary}})
}

func (s *server) UploadFile(stream filesv1.FileTools_UploadFileServer) error {
	first, err := stream.Recv()
	if err != nil {
		return err
	}
	target := filepath.Join(s.root, first.GetHeader().GetPath())
	tmp, err := os.CreateTemp(filepath.Dir(target), ".upload-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	hash := sha256.New()
	var size uint64
	for {
		msg, err := stream.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		data := msg.GetData()
		hash.Write(data)
		size += uint64(len(data))
		if _, err := tmp.Write(data); err != nil {
			return err
		}
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	_, statErr := os.Stat(target)
	if err := os.Rename(tmp.Name(), target); err != nil {
		return err
	}
	return stream.SendAndClose(&filesv1.UploadFileResponse{Created: statErr != nil, Size: size, Sha256: hex.EncodeToString(hash.Sum(nil))})
}

func (s *server) StatFile(ctx context.Context, req *filesv1.StatFileRequest) (*filesv1.StatFileResponse, error) {
	p := filepath.Join(s.root, req.GetPath())
	lst, err := os.Lstat(p)
	if err != nil {
		return nil, status.Error(codes.NotFound, err.Error())
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, status.Error(codes.NotFound, err.Error())
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	resp := &filesv1.StatFileResponse{Path: req.GetPath(), Type: filesv1.FileType_FILE_TYPE_FILE, Size: uint64(st.Size()),
		Mode: uint32(st.Mode().Perm()), Modified: timestamppb.New(st.ModTime()), Symlink: lst.Mode()&os.ModeSymlink != 0}
	head := make([]byte, 8192)
	n, _ := io.ReadFull(f, head)
	resp.Binary = bytes.IndexByte(head[:n], 0) >= 0
	return resp, nil
}

func main() {
	addr := flag.String("listen", "127.0.0.1:0", "address to listen on (loopback only)")
	root := flag.String("root", ".", "folder served")
	flag.Parse()
	lis, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	// Windows as toolhost's (4 MiB stream, 16 MiB connection), so uploads compare like for like.
	s := grpc.NewServer(grpc.MaxRecvMsgSize(16<<20), grpc.InitialWindowSize(4<<20), grpc.InitialConnWindowSize(16<<20))
	filesv1.RegisterFileToolsServer(s, &server{root: *root})
	log.Printf("listening on %s", lis.Addr())
	if err := s.Serve(lis); err != nil {
		log.Fatal(err)
	}
}
