// Command refserver is the reference the comparison benchmark (bench/compare) measures toolhost
// against: a grpc-go server on the same generated code doing the same work for ReadFile (bytes
// mode: open, fstat, info, chunks, sha256 of every chunk, summary), UploadFile (temp file in the
// target's folder, sha256, fsync, rename), StatFile (lstat, open, fstat, first 8 KiB for a
// binary verdict), WriteFile (O_EXCL temp in the target's folder, write, fsync, rename, folder
// fsync, sha256 of old and new content) and ListDirectory (one level, sorted; an lstat of every
// entry unless names_only). It has no sandbox, limits or logging: it is a ceiling, not a product.
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
	"sort"
	"strconv"
	"time"

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

func (s *server) WriteFile(ctx context.Context, req *filesv1.WriteFileRequest) (*filesv1.WriteFileResponse, error) {
	target := filepath.Join(s.root, req.GetPath())
	content := req.GetData()
	if req.GetData() == nil {
		content = []byte(req.GetText())
	}
	previous := ""
	if old, err := os.ReadFile(target); err == nil {
		sum := sha256.Sum256(old)
		previous = hex.EncodeToString(sum[:])
	}
	dir := filepath.Dir(target)
	tmpName := filepath.Join(dir, ".tmp-"+strconv.FormatInt(time.Now().UnixNano(), 36))
	tmp, err := os.OpenFile(tmpName, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmpName)
	if _, err := tmp.Write(content); err != nil {
		tmp.Close()
		return nil, err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return nil, err
	}
	if err := tmp.Close(); err != nil {
		return nil, err
	}
	if err := os.Rename(tmpName, target); err != nil {
		return nil, err
	}
	d, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return nil, err
	}
	sum := sha256.Sum256(content)
	return &filesv1.WriteFileResponse{Created: previous == "", Size: uint64(len(content)), Sha256: hex.EncodeToString(sum[:]), PreviousSha256: previous}, nil
}

func (s *server) ListDirectory(ctx context.Context, req *filesv1.ListDirectoryRequest) (*filesv1.ListDirectoryResponse, error) {
	dir := filepath.Join(s.root, req.GetPath())
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, status.Error(codes.NotFound, err.Error())
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	resp := &filesv1.ListDirectoryResponse{Entries: make([]*filesv1.DirectoryEntry, 0, len(entries))}
	for _, e := range entries {
		entry := &filesv1.DirectoryEntry{Path: e.Name(), Name: e.Name(), Type: typeOf(e.Type()), Symlink: e.Type()&os.ModeSymlink != 0}
		if !req.GetNamesOnly() {
			info, err := os.Lstat(filepath.Join(dir, e.Name()))
			if err != nil {
				continue
			}
			entry.Size = uint64(info.Size())
			entry.Mode = uint32(info.Mode().Perm())
			entry.Modified = timestamppb.New(info.ModTime())
		}
		resp.Entries = append(resp.Entries, entry)
	}
	return resp, nil
}

func typeOf(mode os.FileMode) filesv1.FileType {
	switch {
	case mode.IsRegular():
		return filesv1.FileType_FILE_TYPE_FILE
	case mode.IsDir():
		return filesv1.FileType_FILE_TYPE_DIRECTORY
	case mode&os.ModeSymlink != 0:
		return filesv1.FileType_FILE_TYPE_SYMLINK
	default:
		return filesv1.FileType_FILE_TYPE_OTHER
	}
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
