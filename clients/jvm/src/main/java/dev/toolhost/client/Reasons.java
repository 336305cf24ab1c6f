package dev.toolhost.client;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.rpc.ErrorInfo;
import io.grpc.protobuf.StatusProto;
import java.util.Optional;
import toolhost.errors.v1.ErrorReasonOuterClass.ErrorReason;

/** Reasons reads the google.rpc.ErrorInfo reason of a failed toolhost call. */
public final class Reasons {
  /** The ErrorInfo domain of every toolhost error. */
  public static final String DOMAIN = "toolhost";

  private Reasons() {}

  /**
   * The reason ("PATH_TRAVERSAL", ...) of a failed call, or empty when the error carries none
   * (UNAVAILABLE from a server that is not there, a deadline, not a gRPC error at all).
   */
  public static Optional<String> reason(Throwable error) {
    com.google.rpc.Status status = error == null ? null : StatusProto.fromThrowable(error);
    if (status == null) {
      return Optional.empty();
    }
    for (Any detail : status.getDetailsList()) {
      if (detail.is(ErrorInfo.class)) {
        try {
          ErrorInfo info = detail.unpack(ErrorInfo.class);
          if (DOMAIN.equals(info.getDomain()) && !info.getReason().isEmpty()) {
            return Optional.of(info.getReason());
          }
        } catch (InvalidProtocolBufferException e) {
          return Optional.empty();
        }
      }
    }
    return Optional.empty();
  }

  /** The wire string of an ErrorReason: ERROR_REASON_PATH_TRAVERSAL -> "PATH_TRAVERSAL". */
  public static String reasonName(ErrorReason value) {
    String name = value.name();
    return name.startsWith("ERROR_REASON_") ? name.substring("ERROR_REASON_".length()) : name;
  }

  /** Whether a failed call carries the given reason. */
  public static boolean hasReason(Throwable error, ErrorReason value) {
    return reason(error).map(reasonName(value)::equals).orElse(false);
  }
}
