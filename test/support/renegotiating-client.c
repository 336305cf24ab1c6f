/*
 * renegotiating-client: a TLS 1.2 client that changes its certificate mid-connection, for
 * test/transport/renegotiation-identity.test.ts. Node's TLS client can renegotiate but cannot
 * show another certificate when it does; OpenSSL can.
 *
 * Usage: renegotiating-client PORT CERT1 KEY1 CERT2 KEY2
 * Connects to 127.0.0.1:PORT with CERT1 (ALPN http/1.1), sends a Connect/JSON ListRoots request,
 * switches to CERT2, renegotiates (client-initiated), sends the request again on the same
 * connection, and prints one line per step ("[before] HTTP/1.1 401 ...", "[after] ..."). A
 * renegotiation that cannot start because the server closed the connection prints
 * "renegotiation: not started".
 *
 * It declares the few OpenSSL functions it calls rather than including OpenSSL's headers, and is
 * linked against the runtime libraries (libssl.so.3, libcrypto.so.3, which the openssl command
 * the TLS tests use needs anyway): no OpenSSL development package is required.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

typedef struct ssl_ctx_st SSL_CTX;
typedef struct ssl_st SSL;
typedef struct ssl_method_st SSL_METHOD;
const SSL_METHOD *TLS_client_method(void);
SSL_CTX *SSL_CTX_new(const SSL_METHOD *method);
long SSL_CTX_ctrl(SSL_CTX *ctx, int cmd, long larg, void *parg);
void SSL_CTX_set_verify(SSL_CTX *ctx, int mode, void *callback);
SSL *SSL_new(SSL_CTX *ctx);
int SSL_use_certificate_chain_file(SSL *ssl, const char *file);
int SSL_use_PrivateKey_file(SSL *ssl, const char *file, int type);
int SSL_set_alpn_protos(SSL *ssl, const unsigned char *protos, unsigned int len);
int SSL_set_fd(SSL *ssl, int fd);
int SSL_connect(SSL *ssl);
int SSL_write(SSL *ssl, const void *buf, int num);
int SSL_read(SSL *ssl, void *buf, int num);
int SSL_renegotiate(SSL *ssl);
int SSL_do_handshake(SSL *ssl);
int SSL_get_error(const SSL *ssl, int ret);
const char *SSL_get_version(const SSL *ssl);
void ERR_print_errors_fp(FILE *fp);

enum { ctrlSetMaxProtoVersion = 124, tls12 = 0x0303, filetypePem = 1, verifyNone = 0 };

static const char *request =
    "POST /toolhost.files.v1.FileTools/ListRoots HTTP/1.1\r\nHost: localhost\r\n"
    "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}";

/* call sends the request and prints the status line of the answer, or what went wrong. */
static void call(SSL *ssl, const char *step) {
  char buf[4096];
  if (SSL_write(ssl, request, (int)strlen(request)) <= 0) {
    printf("[%s] write failed\n", step);
    return;
  }
  int total = 0, n;
  while (total < 300 && (n = SSL_read(ssl, buf + total, (int)sizeof buf - 1 - total)) > 0) total += n;
  buf[total] = 0;
  if (total == 0) {
    printf("[%s] no response\n", step);
    return;
  }
  char *end = strstr(buf, "\r\n");
  printf("[%s] %.*s\n", step, end ? (int)(end - buf) : 40, buf);
}

int main(int argc, char **argv) {
  signal(SIGPIPE, SIG_IGN); /* a write to a connection the server closed fails, not kills */
  if (argc != 6) {
    fprintf(stderr, "usage: renegotiating-client PORT CERT1 KEY1 CERT2 KEY2\n");
    return 2;
  }
  SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
  SSL_CTX_ctrl(ctx, ctrlSetMaxProtoVersion, tls12, NULL); /* TLS 1.3 has no renegotiation */
  SSL_CTX_set_verify(ctx, verifyNone, NULL);
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((unsigned short)atoi(argv[1]))};
  inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
  if (connect(fd, (struct sockaddr *)&address, sizeof address) != 0) {
    perror("connect");
    return 1;
  }
  struct timeval timeout = {2, 0}; /* every read is bounded */
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  SSL *ssl = SSL_new(ctx);
  static const unsigned char alpn[] = "\x08http/1.1";
  if (SSL_use_certificate_chain_file(ssl, argv[2]) != 1 || SSL_use_PrivateKey_file(ssl, argv[3], filetypePem) != 1) {
    printf("cannot load the first certificate\n");
    return 1;
  }
  SSL_set_alpn_protos(ssl, alpn, sizeof alpn - 1);
  SSL_set_fd(ssl, fd);
  if (SSL_connect(ssl) != 1) {
    printf("handshake failed\n");
    ERR_print_errors_fp(stdout);
    return 1;
  }
  printf("handshake: %s\n", SSL_get_version(ssl));
  call(ssl, "before");
  if (SSL_use_certificate_chain_file(ssl, argv[4]) != 1 || SSL_use_PrivateKey_file(ssl, argv[5], filetypePem) != 1) {
    printf("cannot load the second certificate\n");
    return 1;
  }
  if (SSL_renegotiate(ssl) != 1) {
    /* The server closed the connection after its answer (it keeps none for a refused caller). */
    printf("renegotiation: not started\n");
    call(ssl, "after");
    close(fd);
    return 0;
  }
  int done = SSL_do_handshake(ssl);
  printf("renegotiation: %s\n", done == 1 ? "completed" : "failed");
  call(ssl, "after");
  close(fd);
  return 0;
}
