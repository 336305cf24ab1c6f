import type { ServerHttp2Session } from "node:http2";
import type { Socket } from "node:net";
import { type ContextValues, createContextValues } from "@connectrpc/connect";
import { peerIdentityKey, peerValues } from "../peer-identity.js";

/** SessionPeer is what every call of one connection knows of its client, read once per connection. */
export interface SessionPeer {
  /** The client end, as grpc-js names it: "host:port", "[v6]:port"; "unknown" without a socket. */
  readonly peer: string;
  /** The verified client certificate's identity (peer-identity.ts); undefined without one. */
  readonly identity: string | undefined;
}

const unknownPeer: SessionPeer = Object.freeze({ peer: "unknown", identity: undefined });

/** peers are the sessions' SessionPeers: a connection's peer and certificate do not change (renegotiation is refused). */
const peers = new WeakMap<ServerHttp2Session, SessionPeer>();

/**
 * sessionPeer is the client of a session, read from its socket on the session's first call: not
 * per call, through the session's socket proxy, with a peer certificate object built each time.
 */
export function sessionPeer(session: ServerHttp2Session | undefined): SessionPeer {
  if (session === undefined) return unknownPeer;
  let peer = peers.get(session);
  if (peer === undefined) {
    // Read now: once the session is gone its socket cannot be asked (ERR_HTTP2_SOCKET_UNBOUND).
    const socket = session.socket as Socket | undefined;
    peer = Object.freeze({ peer: peerOf(socket), identity: peerValues(socket).get(peerIdentityKey) });
    peers.set(session, peer);
  }
  return peer;
}

/** callValues are one call's context values, with its connection's certificate identity if any. */
export function callValues(peer: SessionPeer): ContextValues {
  const values = createContextValues();
  if (peer.identity !== undefined) values.set(peerIdentityKey, peer.identity);
  return values;
}

function peerOf(socket: Socket | undefined): string {
  if (socket?.remoteAddress === undefined) return "unknown";
  const host = socket.remoteFamily === "IPv6" ? `[${socket.remoteAddress}]` : socket.remoteAddress;
  return `${host}:${socket.remotePort}`;
}
