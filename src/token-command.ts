import { readFile, rename, writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { Document, parseDocument, stringify } from "yaml";
import { newToken } from "./auth/new-token.js";
import { isTierName, tierNames, type TierName } from "./auth/tier.js";

/** tokenUsage is the help text of `toolhost token create`. */
export const tokenUsage = `Usage: toolhost token create --id NAME [flags]

Prints a new random bearer token once (it is stored nowhere), then the tokens-file entry that
holds only its sha256. With --append FILE the entry is added to that tokens file (created if
missing); a running server picks it up without a restart.

Flags:
  --id NAME              the caller's id, shown in logs (required)
  --root DIR             grant this server root, repeatable (default: every root)
  --read-only-root DIR   grant this server root read-only, repeatable
  --tier TIER            highest tier: ${tierNames.join(", ")} (default read)
  --namespace NS         visible skill namespace, repeatable (default: all)
  --expires WHEN         ISO 8601 date, or a duration such as 90d or 12h (default: never)
  --max-calls N          calls in flight at once (default 64)
  --max-streams N        streams in flight at once (default 16)
  --append FILE          add the entry to this tokens file`;

/**
 * runTokenCommand runs `toolhost token ...` and resolves to the exit code: 0 done, 2 a usage
 * problem (one line on stderr).
 */
export async function runTokenCommand(
  argv: readonly string[],
  out: NodeJS.WritableStream,
  err: NodeJS.WritableStream,
): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== "create") {
    err.write(`toolhost: unknown token command "${sub ?? ""}"\n${tokenUsage}\n`);
    return 2;
  }
  try {
    const { values } = parseArgs({
      args: [...rest],
      strict: true,
      options: {
        id: { type: "string" },
        root: { type: "string", multiple: true },
        "read-only-root": { type: "string", multiple: true },
        tier: { type: "string" },
        namespace: { type: "string", multiple: true },
        expires: { type: "string" },
        "max-calls": { type: "string" },
        "max-streams": { type: "string" },
        append: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
    if (values.help) {
      out.write(`${tokenUsage}\n`);
      return 0;
    }
    if (values.id === undefined || !/^[A-Za-z0-9._@:/-]{1,128}$/.test(values.id)) {
      throw new Error("--id NAME is required: 1-128 letters, digits or ._@:/-");
    }
    const tier = values.tier ?? "read";
    if (!isTierName(tier)) {
      throw new Error(`--tier must be one of ${tierNames.join(", ")}`);
    }
    const created = newToken({
      id: values.id,
      roots: [
        ...(values.root ?? []).map((p) => ({ path: resolve(p), readOnly: false })),
        ...(values["read-only-root"] ?? []).map((p) => ({ path: resolve(p), readOnly: true })),
      ],
      tier: tier as TierName,
      namespaces: values.namespace ?? [],
      expires: values.expires === undefined ? undefined : expiryOf(values.expires),
      maxCalls: count(values["max-calls"], "--max-calls"),
      maxStreams: count(values["max-streams"], "--max-streams"),
    });
    out.write(`${created.token}\n`);
    if (values.append !== undefined) {
      await appendEntry(resolve(values.append), created.entry);
      err.write(`toolhost: added "${values.id}" to ${values.append}; the token above is shown once, keep it secret\n`);
    } else {
      out.write(
        `\n# Add under "tokens:" in the tokens file (the token itself is shown once, above):\n${stringify([created.entry]).trimEnd()}\n`,
      );
    }
    return 0;
  } catch (e) {
    err.write(`toolhost: ${(e as Error).message.split("\n")[0]} (see toolhost token create --help)\n`);
    return 2;
  }
}

function expiryOf(value: string): Date {
  const duration = /^(\d+)([dhm])$/.exec(value);
  if (duration) {
    const unit = { d: 86_400_000, h: 3_600_000, m: 60_000 }[duration[2] as "d" | "h" | "m"];
    return new Date(Date.now() + Number(duration[1]) * unit);
  }
  const ms = Date.parse(value);
  if (!Number.isFinite(ms)) {
    throw new Error(`--expires "${value}" is neither an ISO 8601 date nor a duration like 90d`);
  }
  return new Date(ms);
}

function count(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n <= 0) throw new Error(`${flag} must be a positive whole number`);
  return n;
}

/** appendEntry adds an entry to a tokens file, keeping its comments, and replaces the file atomically. */
async function appendEntry(file: string, entry: Record<string, unknown>): Promise<void> {
  const text = await readFile(file, "utf8").catch((e: NodeJS.ErrnoException) => {
    if (e.code === "ENOENT") return "";
    throw e;
  });
  const doc = text.trim() === "" ? new Document({ tokens: [] }) : parseDocument(text);
  if (doc.errors.length > 0) throw new Error(`${file} is not valid YAML: ${doc.errors[0]!.message}`);
  const ids = (doc.toJS() as { tokens?: { id?: string }[]; certificates?: { id?: string }[] } | null) ?? {};
  if ([...(ids.tokens ?? []), ...(ids.certificates ?? [])].some((t) => t.id === entry["id"])) {
    throw new Error(
      `${file} already has an entry with id "${String(entry["id"])}"; choose another --id or remove that entry`,
    );
  }
  if (!doc.has("tokens") || doc.get("tokens") === null) doc.set("tokens", doc.createNode([]));
  doc.addIn(["tokens"], doc.createNode(entry));
  const temp = `${file}.tmp-${process.pid}`;
  await writeFile(temp, String(doc), { mode: 0o600 });
  await rename(temp, file);
}
