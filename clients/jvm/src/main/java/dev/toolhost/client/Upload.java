package dev.toolhost.client;

import com.google.protobuf.ByteString;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import toolhost.files.v1.FileToolsGrpc;
import toolhost.files.v1.Write.UploadFileRequest;
import toolhost.files.v1.Write.UploadFileResponse;
import toolhost.files.v1.Write.UploadHeader;

/** Upload streams an InputStream to UploadFile with flow control and a sha256 check. */
final class Upload {
  private static final int CHUNK = 256 * 1024;

  private Upload() {}

  /**
   * Uploads what {@code source} yields to the file the header names. The bytes are hashed on the
   * way and compared with the sha256 the server reports. Set expected_size / expected_sha256 in
   * the header when known: the server then refuses a mismatch (UPLOAD_MISMATCH) before anything
   * changes. A read error of the source cancels the call, so nothing is committed.
   */
  static UploadFileResponse upload(FileToolsGrpc.FileToolsStub stub, UploadHeader header, InputStream source) throws IOException {
    CompletableFuture<UploadFileResponse> result = new CompletableFuture<>();
    Semaphore ready = new Semaphore(0);
    @SuppressWarnings("unchecked")
    ClientCallStreamObserver<UploadFileRequest>[] call = new ClientCallStreamObserver[1];
    ClientResponseObserver<UploadFileRequest, UploadFileResponse> observer = new ClientResponseObserver<>() {
      @Override
      public void beforeStart(ClientCallStreamObserver<UploadFileRequest> requests) {
        call[0] = requests;
        requests.setOnReadyHandler(ready::release);
      }

      @Override
      public void onNext(UploadFileResponse value) {
        result.complete(value);
      }

      @Override
      public void onError(Throwable t) {
        result.completeExceptionally(t);
        ready.release();
      }

      @Override
      public void onCompleted() {}
    };
    stub.uploadFile(observer);
    ClientCallStreamObserver<UploadFileRequest> requests = call[0];
    MessageDigest sha = ToolhostClient.sha256();
    try {
      requests.onNext(UploadFileRequest.newBuilder().setHeader(header).build());
      byte[] buf = new byte[CHUNK];
      int n;
      while ((n = source.read(buf)) > 0) {
        // Back-pressure: wait until the transport takes more, or the call has failed.
        while (!requests.isReady() && !result.isDone()) {
          ready.tryAcquire(100, TimeUnit.MILLISECONDS);
        }
        if (result.isDone()) {
          break;
        }
        sha.update(buf, 0, n);
        requests.onNext(UploadFileRequest.newBuilder().setData(ByteString.copyFrom(buf, 0, n)).build());
      }
    } catch (IOException | RuntimeException e) {
      requests.cancel("reading the upload source failed", e);
      if (e instanceof IOException) {
        throw (IOException) e;
      }
      throw new IOException(e);
    } catch (InterruptedException e) {
      requests.cancel("interrupted", e);
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
    if (!result.isDone()) {
      requests.onCompleted();
    }
    UploadFileResponse response;
    try {
      response = result.get();
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException) {
        throw (RuntimeException) cause; // a StatusRuntimeException, as the blocking stubs throw
      }
      throw new IOException(cause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
    String sent = ToolhostClient.hex(sha.digest());
    if (!sent.equals(response.getSha256())) {
      throw new IOException("upload of " + header.getPath() + ": sent bytes hash to " + sent + ", the server stored " + response.getSha256());
    }
    return response;
  }
}
