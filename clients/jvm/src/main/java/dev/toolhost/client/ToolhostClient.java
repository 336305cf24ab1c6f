package dev.toolhost.client;

import com.google.protobuf.ByteString;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.security.MessageDigest;
import java.util.Iterator;
import java.util.concurrent.TimeUnit;
import toolhost.files.v1.FileToolsGrpc;
import toolhost.files.v1.Read.ReadFileRequest;
import toolhost.files.v1.Read.ReadFileResponse;
import toolhost.files.v1.Read.ReadMode;
import toolhost.files.v1.Read.ReadSummary;
import toolhost.skills.v1.SkillCatalogGrpc;
import toolhost.tools.v1.ToolsGrpc;

/**
 * ToolhostClient is one channel to toolhost with the blocking and async stubs of its three
 * services (FileTools, SkillCatalog and the model-facing Tools), sharing one TLS set-up and token,
 * and the helpers every caller needs: streamed reads with their sha256 checked ({@link #readAll},
 * {@link #readTo}), uploads from an InputStream ({@link #upload}), and the ErrorInfo reason of a
 * failed call ({@link Reasons#reason}). Usable from Kotlin as is.
 */
public final class ToolhostClient implements AutoCloseable {
  /** HTTP/2 stream window: grpc-java starts at 1 MiB; wider keeps high-latency reads busy. */
  static final int FLOW_CONTROL_WINDOW = 4 << 20;

  private final ManagedChannel channel;
  private final Channel intercepted;
  public final FileToolsGrpc.FileToolsBlockingStub files;
  public final FileToolsGrpc.FileToolsStub filesAsync;
  public final SkillCatalogGrpc.SkillCatalogBlockingStub skills;
  /** The model-facing tools: ListTools rendered in a dialect, CallTool. */
  public final ToolsGrpc.ToolsBlockingStub tools;

  private ToolhostClient(ManagedChannel channel, ClientInterceptor... interceptors) {
    this.channel = channel;
    this.intercepted = io.grpc.ClientInterceptors.intercept(channel, interceptors);
    this.files = FileToolsGrpc.newBlockingStub(intercepted);
    this.filesAsync = FileToolsGrpc.newStub(intercepted);
    this.skills = SkillCatalogGrpc.newBlockingStub(intercepted);
    this.tools = ToolsGrpc.newBlockingStub(intercepted);
  }

  /**
   * The channel the stubs use, token included, for stubs of your own (async ones, other
   * services such as grpc.health.v1): {@code ToolsGrpc.newStub(client.channel())}.
   */
  public Channel channel() {
    return intercepted;
  }

  /** Connects in plaintext (a loopback server) without a token. */
  public static ToolhostClient connect(String address) {
    return connect(address, null, null);
  }

  /**
   * Connects to toolhost at "host:port". {@code tls} (a Netty SslContext, e.g. from
   * GrpcSslContexts.forClient().trustManager(caFile).build()) secures the channel; plaintext when
   * null. {@code token} is sent as "authorization: Bearer"; over plaintext only to loopback.
   */
  public static ToolhostClient connect(String address, SslContext tls, String token) {
    NettyChannelBuilder builder = NettyChannelBuilder.forTarget(address).flowControlWindow(FLOW_CONTROL_WINDOW);
    if (tls != null) {
      builder.sslContext(tls).useTransportSecurity();
    } else {
      builder.usePlaintext();
    }
    if (token != null && tls == null && !isLoopback(address)) {
      throw new IllegalArgumentException("a token is sent in plaintext only to a loopback address; pass an SslContext");
    }
    ManagedChannel channel = builder.build();
    return token == null ? new ToolhostClient(channel) : new ToolhostClient(channel, bearer(token));
  }

  /**
   * Streams the file the request names to {@code sink} (bytes mode unless the request says text)
   * and checks what arrived against the summary's sha256; returns the summary.
   */
  public ReadSummary readTo(ReadFileRequest request, OutputStream sink) throws IOException {
    if (request.getMode() == ReadMode.READ_MODE_UNSPECIFIED) {
      request = request.toBuilder().setMode(ReadMode.READ_MODE_BYTES).build();
    }
    MessageDigest sha = sha256();
    ReadSummary summary = null;
    Iterator<ReadFileResponse> stream = files.readFile(request);
    while (stream.hasNext()) {
      ReadFileResponse msg = stream.next();
      ByteString chunk = null;
      switch (msg.getPartCase()) {
        case DATA: chunk = msg.getData(); break;
        case TEXT: chunk = ByteString.copyFromUtf8(msg.getText()); break;
        case SUMMARY: summary = msg.getSummary(); break;
        default: break;
      }
      if (chunk != null) {
        for (java.nio.ByteBuffer b : chunk.asReadOnlyByteBufferList()) {
          sha.update(b.duplicate());
        }
        chunk.writeTo(sink);
      }
    }
    if (summary == null) {
      throw new IOException("read of " + request.getPath() + " ended without a summary");
    }
    String got = hex(sha.digest());
    if (!got.equals(summary.getSha256())) {
      throw new IOException("read of " + request.getPath() + ": received bytes hash to " + got + ", the server sent " + summary.getSha256());
    }
    return summary;
  }

  /** Reads the file (or range) the request names into memory, checked against its sha256. */
  public byte[] readAll(ReadFileRequest request) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    readTo(request, out);
    return out.toByteArray();
  }

  /** Uploads what {@code source} yields; see {@link Upload#upload}. */
  public toolhost.files.v1.Write.UploadFileResponse upload(toolhost.files.v1.Write.UploadHeader header, InputStream source) throws IOException {
    return Upload.upload(filesAsync, header, source);
  }

  @Override
  public void close() throws InterruptedException {
    channel.shutdown();
    if (!channel.awaitTermination(5, TimeUnit.SECONDS)) {
      channel.shutdownNow();
    }
  }

  static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  static String hex(byte[] bytes) {
    StringBuilder s = new StringBuilder(bytes.length * 2);
    for (byte b : bytes) {
      s.append(Character.forDigit((b >> 4) & 0xf, 16)).append(Character.forDigit(b & 0xf, 16));
    }
    return s.toString();
  }

  private static ClientInterceptor bearer(String token) {
    Metadata.Key<String> key = Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
    return new ClientInterceptor() {
      @Override
      public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
        return new ForwardingClientCall.SimpleForwardingClientCall<Q, R>(next.newCall(method, options)) {
          @Override
          public void start(Listener<R> listener, Metadata headers) {
            headers.put(key, "Bearer " + token);
            super.start(listener, headers);
          }
        };
      }
    };
  }

  private static boolean isLoopback(String address) {
    int colon = address.lastIndexOf(':');
    String host = (colon < 0 ? address : address.substring(0, colon)).replace("[", "").replace("]", "");
    if (host.equals("localhost")) {
      return true;
    }
    try {
      return host.matches("[0-9.:a-fA-F]+") && InetAddress.getByName(host).isLoopbackAddress();
    } catch (java.net.UnknownHostException e) {
      return false;
    }
  }
}
