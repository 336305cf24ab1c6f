package dev.toolhost.client.example;

import dev.toolhost.client.Reasons;
import dev.toolhost.client.ToolhostClient;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.stream.Collectors;
import toolhost.errors.v1.ErrorReasonOuterClass.ErrorReason;
import toolhost.files.v1.FileToolsOuterClass.ListToolsRequest;
import toolhost.files.v1.Read.ReadFileRequest;
import toolhost.files.v1.Read.ReadSummary;
import toolhost.files.v1.Write.UploadFileResponse;
import toolhost.files.v1.Write.UploadHeader;

/**
 * Example uses the JVM client against a live server (test/clients/jvm-client.stress.test.ts runs it):
 * lists the tools, uploads, reads back with the sha256 checked, and prints ErrorInfo reasons.
 * Usage: java -cp ... dev.toolhost.client.example.Example HOST:PORT
 */
public final class Example {
  public static void main(String[] args) throws Exception {
    try (ToolhostClient client = ToolhostClient.connect(args[0])) {
      String tools = client.files.listTools(ListToolsRequest.getDefaultInstance()).getToolsList().stream()
          .map(t -> t.getName()).collect(Collectors.joining(","));
      System.out.println("tools " + tools);

      byte[] content = new byte[2_500_000];
      for (int i = 0; i < content.length; i++) {
        content[i] = (byte) (i % 253);
      }
      String sha = hex(MessageDigest.getInstance("SHA-256").digest(content));
      UploadFileResponse up = client.upload(
          UploadHeader.newBuilder().setPath("jvm/upload.bin").setCreateParents(true)
              .setExpectedSize(content.length).setExpectedSha256(sha).build(),
          new ByteArrayInputStream(content));
      System.out.println("upload " + up.getSize() + " " + up.getSha256().equals(sha));

      byte[] data = client.readAll(ReadFileRequest.newBuilder().setPath("jvm/upload.bin").build());
      System.out.println("readAll " + data.length + " " + Arrays.equals(data, content));

      ByteArrayOutputStream sink = new ByteArrayOutputStream();
      ReadSummary summary = client.readTo(
          ReadFileRequest.newBuilder().setPath("jvm/upload.bin").setByteOffset(10).setByteLimit(100).build(), sink);
      System.out.println("readTo " + summary.getBytesSent() + " " + Arrays.equals(sink.toByteArray(), Arrays.copyOfRange(content, 10, 110)));

      try {
        client.readAll(ReadFileRequest.newBuilder().setPath("../../etc/passwd").build());
      } catch (RuntimeException e) {
        System.out.println("reason " + Reasons.reason(e).orElse("") + " " + Reasons.hasReason(e, ErrorReason.ERROR_REASON_PATH_TRAVERSAL));
      }
      try {
        client.upload(UploadHeader.newBuilder().setPath("jvm/bad.bin").setExpectedSize(1).build(), new ByteArrayInputStream("two".getBytes()));
      } catch (RuntimeException e) {
        System.out.println("mismatch " + Reasons.reason(e).orElse(""));
      }
    }
    try (ToolhostClient down = ToolhostClient.connect("127.0.0.1:1")) {
      down.files.listTools(ListToolsRequest.getDefaultInstance());
    } catch (RuntimeException e) {
      System.out.println("unavailable " + Reasons.reason(e).orElse("none"));
    }
  }

  private static String hex(byte[] bytes) {
    StringBuilder s = new StringBuilder();
    for (byte b : bytes) {
      s.append(String.format("%02x", b));
    }
    return s.toString();
  }
}
