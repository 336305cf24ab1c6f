import { execFileSync } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** TlsFixtures are PEM files made for one test run with openssl: a CA, a server and two clients. */
export interface TlsFixtures {
  readonly dir: string;
  readonly caCert: string;
  readonly serverCert: string;
  readonly serverKey: string;
  /** A client certificate whose SAN URI is spiffe://toolhost.test/agent. */
  readonly clientCert: string;
  readonly clientKey: string;
  /** A client certificate signed by another CA, which the server must not accept. */
  readonly strangerCert: string;
  readonly strangerKey: string;
  /** Issues another server certificate (same CA, new serial) into the given paths. */
  issueServerCert(cert: string, key: string, cn: string): void;
}

const openssl = (args: string[], cwd: string) =>
  execFileSync("openssl", args, { cwd, stdio: ["ignore", "ignore", "pipe"] });

/**
 * makeTlsFixtures generates fresh certificates (EC P-256, valid one day) in a temporary folder;
 * nothing is committed. The server certificate names 127.0.0.1 and localhost.
 */
export async function makeTlsFixtures(): Promise<TlsFixtures> {
  const dir = await mkdtemp(join(tmpdir(), "toolhost-tls-"));
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  const ca = (name: string) =>
    openssl(
      [
        "req",
        "-x509",
        ...ec,
        "-keyout",
        `${name}.key`,
        "-out",
        `${name}.pem`,
        "-days",
        "1",
        "-subj",
        `/CN=${name}`,
        "-addext",
        "basicConstraints=critical,CA:TRUE",
        "-addext",
        "keyUsage=critical,keyCertSign,cRLSign",
      ],
      dir,
    );
  const leaf = (name: string, caName: string, cn: string, ext: string) => {
    openssl(["req", ...ec, "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", `/CN=${cn}`], dir);
    execFileSync("bash", ["-c", `printf '%s\\n' "${ext}" > ${name}.ext`], { cwd: dir });
    openssl(
      [
        "x509",
        "-req",
        "-in",
        `${name}.csr`,
        "-CA",
        `${caName}.pem`,
        "-CAkey",
        `${caName}.key`,
        "-CAcreateserial",
        "-out",
        `${name}.pem`,
        "-days",
        "1",
        "-extfile",
        `${name}.ext`,
      ],
      dir,
    );
  };
  ca("ca");
  ca("other-ca");
  const serverExt = "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth";
  leaf("server", "ca", "toolhost-server", serverExt);
  leaf("client", "ca", "agent-cn", "subjectAltName=URI:spiffe://toolhost.test/agent\nextendedKeyUsage=clientAuth");
  leaf(
    "stranger",
    "other-ca",
    "stranger",
    "subjectAltName=URI:spiffe://toolhost.test/agent\nextendedKeyUsage=clientAuth",
  );
  return {
    dir,
    caCert: join(dir, "ca.pem"),
    serverCert: join(dir, "server.pem"),
    serverKey: join(dir, "server.key"),
    clientCert: join(dir, "client.pem"),
    clientKey: join(dir, "client.key"),
    strangerCert: join(dir, "stranger.pem"),
    strangerKey: join(dir, "stranger.key"),
    issueServerCert(cert, key, cn) {
      const name = `server-${cn}`;
      leaf(name, "ca", cn, serverExt);
      execFileSync("cp", [join(dir, `${name}.key`), key]);
      execFileSync("cp", [join(dir, `${name}.pem`), cert]);
    },
  };
}

/** TokenSpec is one token entry a test writes into a tokens file. */
export interface TokenSpec {
  readonly id: string;
  readonly token: string;
  readonly expires?: string;
  readonly scope?: Record<string, unknown>;
}

/**
 * writeTokensFile writes an auth file holding the hashes of the given tokens (and certificate
 * identities), replacing it atomically. The file must say everything an entry grants; a scope
 * the test leaves roots or namespaces out of gets `all` of them, a token without expires `never`.
 */
export async function writeTokensFile(
  file: string,
  tokens: readonly TokenSpec[],
  certificates: readonly { id: string; identity: string; scope?: Record<string, unknown> }[] = [],
): Promise<void> {
  const { createHash } = await import("node:crypto");
  const { stringify } = await import("yaml");
  const whole = (scope: Record<string, unknown>) => ({ roots: "all", namespaces: "all", ...scope });
  const doc = {
    tokens: tokens.map((t) => ({
      id: t.id,
      sha256: createHash("sha256").update(t.token).digest("hex"),
      expires: t.expires ?? "never",
      scope: whole(t.scope ?? { tier: "delete" }),
    })),
    certificates: certificates.map((c) => ({
      id: c.id,
      identity: c.identity,
      scope: whole(c.scope ?? { tier: "read" }),
    })),
  };
  const temp = `${file}.tmp`;
  await writeFile(temp, stringify(doc));
  const { rename } = await import("node:fs/promises");
  await rename(temp, file);
}
