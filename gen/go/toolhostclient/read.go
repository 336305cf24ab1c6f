package toolhostclient

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"

	filesv1 "github.com/toolhost/toolhost/gen/go/toolhost/files/v1"
	"google.golang.org/protobuf/proto"
)

// ReadTo streams the file req names to w (raw bytes in bytes mode, UTF-8 in text mode; the
// mode defaults to bytes here) and checks what arrived against the summary's sha256. It returns
// the summary; a failed call's error carries the ErrorInfo (see Reason).
func ReadTo(ctx context.Context, files filesv1.FileToolsClient, req *filesv1.ReadFileRequest, w io.Writer) (*filesv1.ReadSummary, error) {
	if req.GetMode() == filesv1.ReadMode_READ_MODE_UNSPECIFIED {
		copied := proto.Clone(req).(*filesv1.ReadFileRequest)
		copied.Mode = filesv1.ReadMode_READ_MODE_BYTES
		req = copied
	}
	stream, err := files.ReadFile(ctx, req)
	if err != nil {
		return nil, err
	}
	hash := sha256.New()
	var summary *filesv1.ReadSummary
	for {
		msg, err := stream.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		var chunk []byte
		switch part := msg.GetPart().(type) {
		case *filesv1.ReadFileResponse_Data:
			chunk = part.Data
		case *filesv1.ReadFileResponse_Text:
			chunk = []byte(part.Text)
		case *filesv1.ReadFileResponse_Summary:
			summary = part.Summary
		}
		if len(chunk) > 0 {
			hash.Write(chunk)
			if _, err := w.Write(chunk); err != nil {
				return nil, err
			}
		}
	}
	if summary == nil {
		return nil, fmt.Errorf("toolhostclient: read of %q ended without a summary", req.GetPath())
	}
	if got := hex.EncodeToString(hash.Sum(nil)); got != summary.GetSha256() {
		return nil, fmt.Errorf("toolhostclient: read of %q: received bytes hash to %s, the server sent %s", req.GetPath(), got, summary.GetSha256())
	}
	return summary, nil
}

// ReadAll reads the file (or the range) req names into memory, checked against its sha256.
func ReadAll(ctx context.Context, files filesv1.FileToolsClient, req *filesv1.ReadFileRequest) ([]byte, error) {
	var buf bytes.Buffer
	if _, err := ReadTo(ctx, files, req, &buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
