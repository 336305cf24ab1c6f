import { checkSessionId } from "./session-id.js";

/** Activation is one skill activated in one session, with the body the session was given. */
interface Activation {
  readonly digest: string;
  /** Undefined when the body alone exceeds the whole budget; the activation is still recorded. */
  readonly body: string | undefined;
  /** The skill name (its key) and the body held, in UTF-8 bytes. */
  readonly bytes: number;
}

interface Session {
  readonly activations: Map<string, Activation>;
  /** The session id (its key) and every activation's bytes. */
  bytes: number;
}

/**
 * ActivationStore remembers which skills each agent session activated, with the bodies handed
 * out, within a fixed memory budget.
 *
 * Sessions are kept in least-recently-used order (a Map's insertion order, refreshed on use).
 * The budget counts the keys as well as the bodies (session ids, capped at maxSessionIdBytes,
 * and skill names), because keys are memory a client chooses too. When it exceeds `maxBytes`,
 * whole idle sessions are evicted first, oldest first, because an agent backend that went away
 * never says so; only if the session in use alone is over budget are its own oldest activations
 * dropped. `maxSessions` bounds the bookkeeping of sessions whose bodies are small.
 */
export class ActivationStore {
  private readonly sessions = new Map<string, Session>();
  private total = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly maxSessions = 100_000,
  ) {}

  /**
   * activate records (or refreshes) an activation of `name` for `sessionId`; a session id over
   * maxSessionIdBytes is refused with INVALID_ARGUMENT.
   */
  activate(sessionId: string, name: string, digest: string, body: string): void {
    checkSessionId(sessionId);
    const session = this.touch(sessionId, true) as Session;
    this.remove(session, name);
    const bodyBytes = Buffer.byteLength(body, "utf8");
    const kept = bodyBytes <= this.maxBytes;
    const activation: Activation = {
      digest,
      body: kept ? body : undefined,
      bytes: Buffer.byteLength(name, "utf8") + (kept ? bodyBytes : 0),
    };
    session.activations.set(name, activation);
    session.bytes += activation.bytes;
    this.total += activation.bytes;
    this.evict(sessionId, name);
  }

  /** deactivate drops the activation; it tells whether there was one. */
  deactivate(sessionId: string, name: string): boolean {
    checkSessionId(sessionId);
    const session = this.touch(sessionId, false);
    if (session === undefined || !session.activations.has(name)) {
      return false;
    }
    this.remove(session, name);
    if (session.activations.size === 0) {
      this.sessions.delete(sessionId);
      this.total -= session.bytes;
    }
    return true;
  }

  /** activeNames returns the names active in a session (and marks the session as in use). */
  activeNames(sessionId: string): ReadonlySet<string> {
    checkSessionId(sessionId);
    return new Set(this.touch(sessionId, false)?.activations.keys() ?? []);
  }

  /** body returns the body a session was given for a skill, if it is still held. */
  body(sessionId: string, name: string): string | undefined {
    return this.sessions.get(sessionId)?.activations.get(name)?.body;
  }

  /** usage reports the memory held, for tests and metrics. */
  usage(): { bytes: number; sessions: number } {
    return { bytes: this.total, sessions: this.sessions.size };
  }

  private touch(sessionId: string, create: boolean): Session | undefined {
    let session = this.sessions.get(sessionId);
    if (session !== undefined) {
      this.sessions.delete(sessionId);
      this.sessions.set(sessionId, session);
    } else if (create) {
      session = { activations: new Map(), bytes: Buffer.byteLength(sessionId, "utf8") };
      this.sessions.set(sessionId, session);
      this.total += session.bytes;
    }
    return session;
  }

  private remove(session: Session, name: string): void {
    const old = session.activations.get(name);
    if (old !== undefined) {
      session.activations.delete(name);
      session.bytes -= old.bytes;
      this.total -= old.bytes;
    }
  }

  private evict(currentSession: string, currentName: string): void {
    for (const [id, session] of this.sessions) {
      if (this.total <= this.maxBytes && this.sessions.size <= this.maxSessions) {
        return;
      }
      if (id === currentSession) {
        continue;
      }
      this.sessions.delete(id);
      this.total -= session.bytes;
    }
    const current = this.sessions.get(currentSession);
    if (current === undefined) {
      return;
    }
    for (const name of [...current.activations.keys()]) {
      if (this.total <= this.maxBytes) {
        return;
      }
      if (name !== currentName) {
        this.remove(current, name);
      }
    }
  }
}
