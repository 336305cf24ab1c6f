// Package toolhostclient holds small helpers over the generated toolhost clients: Dial with TLS
// and a bearer token, ReadAll/ReadTo for streamed reads, Upload from an io.Reader, and Reason for
// the ErrorInfo reason of a failed call. It is hand-written and lives beside the generated
// packages in the module github.com/toolhost/toolhost/gen/go.
package toolhostclient

import (
	"context"
	"crypto/tls"
	"errors"
	"net"

	filesv1 "github.com/toolhost/toolhost/gen/go/toolhost/files/v1"
	skillsv1 "github.com/toolhost/toolhost/gen/go/toolhost/skills/v1"
	toolsv1 "github.com/toolhost/toolhost/gen/go/toolhost/tools/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
)

// HTTP/2 receive windows the client asks for: grpc-go starts at 64 KiB and, once a size is set,
// no longer grows it by itself, so both are set wide for streamed reads over slow links.
const (
	streamWindow     = 4 << 20
	connectionWindow = 16 << 20
)

// Options configure Dial.
type Options struct {
	// TLS, when set, secures the connection (a zero tls.Config uses the system CAs).
	TLS *tls.Config
	// Token is sent as "authorization: Bearer <token>" on every call. Over plaintext it is only
	// sent to a loopback address.
	Token string
	// DialOptions are appended to the ones Dial builds.
	DialOptions []grpc.DialOption
}

// Client is one connection with the typed clients of the three services, sharing its TLS and token.
type Client struct {
	Conn   *grpc.ClientConn
	Files  filesv1.FileToolsClient
	Skills skillsv1.SkillCatalogClient
	// Tools is the model-facing service: ListTools rendered in a dialect, CallTool.
	Tools toolsv1.ToolsClient
}

// Close closes the connection.
func (c *Client) Close() error { return c.Conn.Close() }

// Dial creates a client for toolhost at address ("host:port"). The connection opens lazily.
func Dial(address string, opts Options) (*Client, error) {
	dial := []grpc.DialOption{
		grpc.WithInitialWindowSize(streamWindow),
		grpc.WithInitialConnWindowSize(connectionWindow),
	}
	if opts.TLS != nil {
		dial = append(dial, grpc.WithTransportCredentials(credentials.NewTLS(opts.TLS)))
	} else {
		dial = append(dial, grpc.WithTransportCredentials(insecure.NewCredentials()))
	}
	if opts.Token != "" {
		if opts.TLS == nil && !isLoopback(address) {
			return nil, errors.New("toolhostclient: a token is sent in plaintext only to a loopback address; set Options.TLS")
		}
		dial = append(dial, grpc.WithPerRPCCredentials(bearer{token: opts.Token, secure: opts.TLS != nil}))
	}
	conn, err := grpc.NewClient(address, append(dial, opts.DialOptions...)...)
	if err != nil {
		return nil, err
	}
	return &Client{Conn: conn, Files: filesv1.NewFileToolsClient(conn), Skills: skillsv1.NewSkillCatalogClient(conn), Tools: toolsv1.NewToolsClient(conn)}, nil
}

// bearer sends the token as per-RPC credentials.
type bearer struct {
	token  string
	secure bool
}

func (b bearer) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer " + b.token}, nil
}

func (b bearer) RequireTransportSecurity() bool { return b.secure }

func isLoopback(address string) bool {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
