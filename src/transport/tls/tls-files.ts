import { watch, type FSWatcher } from "node:fs";
import path from "node:path";
import { createSecureContext, type SecureContextOptions } from "node:tls";
import { X509Certificate } from "node:crypto";
import { InputFileError, readInputFile, readInputFileSync } from "../../config/read-input-file.js";

/** maxPemBytes bounds each PEM file read: a long chain or CA bundle is well within it. */
const maxPemBytes = 4 * 1024 * 1024;

/** TlsFileNames are the PEM files of a TLS listener. */
export interface TlsFileNames {
  readonly cert: string;
  readonly key: string;
  /** CA bundle that client certificates must chain to (mTLS); undefined asks for none. */
  readonly clientCa: string | undefined;
  /** Refuse the TLS handshake of a client without a valid certificate. */
  readonly requireClientCert: boolean;
}

/** TlsMaterial is one consistent, checked set of PEM contents. */
export interface TlsMaterial {
  readonly cert: Buffer;
  readonly key: Buffer;
  readonly ca: Buffer | undefined;
}

/** TlsFileError is a certificate, key or CA file that cannot be used; one line, naming the file. */
export class TlsFileError extends Error {
  override readonly name = "TlsFileError";
}

/**
 * TlsFiles holds the server's certificate, key and client CA, and re-reads them when they change,
 * so a certificate is rotated without a restart. A new set is only taken once it loads as a
 * whole (certificate and key match, every PEM parses) and each file was read whole and unchanged
 * while read (read-input-file.ts; a FIFO or device is refused unread): while a rotation is half
 * written, the listeners keep the previous set instead of dropping connections, which grpc-js's
 * own FileWatcherCertificateProvider would do (it publishes whatever it read, or nothing).
 */
export class TlsFiles {
  #material: TlsMaterial;
  readonly #listeners = new Set<(material: TlsMaterial) => void>();
  readonly #watchers: FSWatcher[] = [];
  readonly #timer: NodeJS.Timeout;
  #reloading = false;
  /** The last problem reported, so a file that stays unusable is reported once, not every poll. */
  #lastProblem: string | undefined;

  private constructor(
    readonly names: TlsFileNames,
    material: TlsMaterial,
    private readonly onError: (message: string) => void,
    pollMs: number,
  ) {
    this.#material = material;
    const files = [names.cert, names.key, names.clientCa].filter((f): f is string => f !== undefined);
    const folders = new Set(files.map((f) => path.dirname(f)));
    const basenames = new Set(files.map((f) => path.basename(f)));
    // Only events about our files wake a reload, plus Kubernetes' "..data" swaps of mounted Secrets.
    const ours = (name: string | null) => name === null || basenames.has(name) || name.startsWith("..");
    for (const folder of folders) {
      try {
        const watcher = watch(folder, { persistent: false }, (_event, name) => {
          if (ours(name)) void this.reload();
        });
        watcher.on("error", () => watcher.close());
        this.#watchers.push(watcher);
      } catch {
        // The periodic check below still notices changes.
      }
    }
    this.#timer = setInterval(() => void this.reload(), pollMs);
    this.#timer.unref();
  }

  /** open loads the files once, synchronously; TlsFileError says which file is unusable and why. */
  static open(names: TlsFileNames, onError: (message: string) => void = () => {}, pollMs = 2000): TlsFiles {
    const read = (file: string, what: string) => {
      try {
        return readInputFileSync(file, { what, maxBytes: maxPemBytes }).content;
      } catch (err) {
        const problem = err instanceof InputFileError ? err.problem : "unreadable";
        throw new TlsFileError(
          problem === "missing" || problem === "unreadable"
            ? `${(err as Error).message}; check the path`
            : (err as Error).message,
        );
      }
    };
    const material = checkMaterial(names, {
      cert: read(names.cert, "TLS certificate"),
      key: read(names.key, "TLS key"),
      ca: names.clientCa === undefined ? undefined : read(names.clientCa, "TLS client CA"),
    });
    return new TlsFiles(names, material, onError, pollMs);
  }

  /** material is the set in use. */
  get material(): TlsMaterial {
    return this.#material;
  }

  /** contextOptions are the secure-context options of the set in use. */
  get contextOptions(): SecureContextOptions {
    const { cert, key, ca } = this.#material;
    return ca === undefined ? { cert, key } : { cert, key, ca };
  }

  /** onChange registers a listener called with each new, checked set. */
  onChange(listener: (material: TlsMaterial) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** reload reads the files again and, if they changed and load as a whole, takes them. */
  async reload(): Promise<void> {
    if (this.#reloading) return;
    this.#reloading = true;
    try {
      const files = [
        [this.names.cert, "TLS certificate"],
        [this.names.key, "TLS key"],
        [this.names.clientCa, "TLS client CA"],
      ] as const;
      let problem: InputFileError | undefined;
      const contents = await Promise.all(
        files.map(([file, what]) =>
          file === undefined
            ? undefined
            : readInputFile(file, { what, maxBytes: maxPemBytes }).then(
                (read) => read.content,
                (err: unknown) => {
                  problem ??=
                    err instanceof InputFileError
                      ? err
                      : new InputFileError(`${what} ${file} cannot be read`, "unreadable");
                  return null;
                },
              ),
        ),
      );
      if (problem !== undefined) {
        // Mid-rotation (a file renamed away, or being written): the next event or poll reads it
        // again. A file that is not a regular file or too large is said once.
        if (problem.problem !== "missing" && problem.problem !== "changed") this.#report(problem.message);
        return;
      }
      const [cert, key, ca] = contents as [Buffer, Buffer, Buffer | undefined];
      const old = this.#material;
      if (
        cert.equals(old.cert) &&
        key.equals(old.key) &&
        (ca === undefined ? old.ca === undefined : old.ca !== undefined && ca.equals(old.ca))
      ) {
        return;
      }
      let next: TlsMaterial;
      try {
        next = checkMaterial(this.names, { cert, key, ca });
      } catch (err) {
        this.#report((err as Error).message);
        return;
      }
      this.#lastProblem = undefined;
      this.#material = next;
      for (const listener of this.#listeners) listener(next);
    } finally {
      this.#reloading = false;
    }
  }

  #report(message: string): void {
    if (message === this.#lastProblem) return;
    this.#lastProblem = message;
    this.onError(`${message}; keeping the certificate in use`);
  }

  /** close stops watching. */
  close(): void {
    clearInterval(this.#timer);
    for (const watcher of this.#watchers) watcher.close();
  }
}

function checkMaterial(names: TlsFileNames, material: TlsMaterial): TlsMaterial {
  try {
    new X509Certificate(material.cert);
  } catch {
    throw new TlsFileError(`TLS certificate ${names.cert} is not a PEM certificate`);
  }
  if (material.ca !== undefined) {
    try {
      new X509Certificate(material.ca);
    } catch {
      throw new TlsFileError(`TLS client CA ${names.clientCa} is not a PEM certificate`);
    }
  }
  try {
    createSecureContext({ cert: material.cert, key: material.key, ...(material.ca && { ca: material.ca }) });
  } catch (err) {
    throw new TlsFileError(
      `TLS key ${names.key} does not fit certificate ${names.cert} or is not a PEM key (${(err as Error).message.split("\n")[0]})`,
    );
  }
  return Object.freeze(material);
}
