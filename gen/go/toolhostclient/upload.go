package toolhostclient

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"

	filesv1 "github.com/toolhost/toolhost/gen/go/toolhost/files/v1"
)

// uploadChunk is the size of each data message: large enough to keep the stream busy, well
// under the server's message limit.
const uploadChunk = 256 << 10

// Upload streams r to the file header names. The bytes are hashed on the way and compared with
// the sha256 the server reports, so a corrupted transfer is an error. Set header.ExpectedSize
// and header.ExpectedSha256 when known: the server then refuses a mismatch (UPLOAD_MISMATCH)
// before anything on disk changes.
func Upload(ctx context.Context, files filesv1.FileToolsClient, header *filesv1.UploadHeader, r io.Reader) (*filesv1.UploadFileResponse, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := files.UploadFile(ctx)
	if err != nil {
		return nil, err
	}
	if err := stream.Send(&filesv1.UploadFileRequest{Part: &filesv1.UploadFileRequest_Header{Header: header}}); err != nil {
		return nil, closeAndRecv(stream, err)
	}
	hash := sha256.New()
	buf := make([]byte, uploadChunk)
	for {
		n, readErr := r.Read(buf)
		if n > 0 {
			hash.Write(buf[:n])
			chunk := append([]byte(nil), buf[:n]...)
			if err := stream.Send(&filesv1.UploadFileRequest{Part: &filesv1.UploadFileRequest_Data{Data: chunk}}); err != nil {
				return nil, closeAndRecv(stream, err)
			}
		}
		if readErr == io.EOF {
			break
		}
		if readErr != nil {
			return nil, fmt.Errorf("toolhostclient: reading the upload for %q: %w", header.GetPath(), readErr)
		}
	}
	resp, err := stream.CloseAndRecv()
	if err != nil {
		return nil, err
	}
	if sent := hex.EncodeToString(hash.Sum(nil)); sent != resp.GetSha256() {
		return nil, fmt.Errorf("toolhostclient: upload of %q: sent bytes hash to %s, the server stored %s", header.GetPath(), sent, resp.GetSha256())
	}
	return resp, nil
}

// closeAndRecv turns a failed Send into the server's status: Send returns io.EOF when the server
// has already ended the call, and the real error comes from CloseAndRecv.
func closeAndRecv(stream filesv1.FileTools_UploadFileClient, sendErr error) error {
	if !errors.Is(sendErr, io.EOF) {
		return sendErr
	}
	_, err := stream.CloseAndRecv()
	if err == nil {
		return sendErr
	}
	return err
}
