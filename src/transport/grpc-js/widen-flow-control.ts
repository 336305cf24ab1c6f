import type { Http2Server, ServerHttp2Session } from "node:http2";

/**
 * widenFlowControl raises the HTTP/2 receive windows of every connection a grpc-js server
 * accepts: the stream window to `streamWindow` and the connection window to `sessionWindow`.
 *
 * HTTP/2 starts each stream with a 64 KiB window, and grpc-js has no option to change it, so a
 * client uploading to the server waits for a WINDOW_UPDATE round trip every 64 KiB: uploads ran
 * at ~150 MB/s with the server idle 70% of the time. A larger window lets the client keep sending
 * while the server writes; memory stays bounded because the request stream reads at most two
 * messages ahead and HTTP/2 only grants window as data is consumed.
 *
 * Put in place on grpc-js's http2 servers (http2ServersOf).
 */
export function widenFlowControl(servers: readonly Http2Server[], streamWindow: number, sessionWindow: number): void {
  for (const http2Server of servers) {
    http2Server.on("session", (session: ServerHttp2Session) => {
      session.settings({ initialWindowSize: streamWindow });
      session.once("connect", () => session.setLocalWindowSize(sessionWindow));
      if (!session.connecting) {
        session.setLocalWindowSize(sessionWindow);
      }
    });
  }
}
