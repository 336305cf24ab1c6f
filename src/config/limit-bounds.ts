import { constants as bufferConstants } from "node:buffer";
import { ConfigError } from "./config-error.js";
import type { Limits } from "./config.js";
import { limitKeys } from "./config-file.js";

/** maxTimerMs is the longest delay Node's timers take (2^31-1 ms); a longer one fires at once. */
export const maxTimerMs = 2 ** 31 - 1;
const maxUint32 = 2 ** 32 - 1;
const GiB = 1024 ** 3;

/**
 * limitBounds is the largest value each limit may have, and why: what the runtime (Node, V8,
 * HTTP/2, the gRPC framing) would reject or silently misread past it. Every limit is a positive
 * whole number below its bound.
 */
const limitBounds: Readonly<Record<keyof Limits, { max: number; why: string }>> = {
  maxTextBytes: { max: bufferConstants.MAX_STRING_LENGTH, why: "the longest string V8 can hold" },
  chunkSize: { max: GiB, why: "1 GiB, the largest read chunk" },
  minChunkSize: { max: GiB, why: "1 GiB, the largest read chunk" },
  maxChunkSize: { max: GiB, why: "1 GiB, the largest read chunk (each stream holds one)" },
  maxReceiveMessageBytes: {
    max: Math.min(maxUint32, bufferConstants.MAX_LENGTH) - 5,
    why: "the largest gRPC message (a 32-bit length)",
  },
  maxConcurrentStreams: { max: maxUint32, why: "the HTTP/2 SETTINGS range (2^32-1)" },
  maxSessionMemoryMiB: { max: 1024 * 1024, why: "1 TiB" },
  maxEditBytes: {
    max: bufferConstants.MAX_STRING_LENGTH,
    why: "the longest string V8 can hold (EditFile loads the file as text)",
  },
  maxSkillFileBytes: { max: bufferConstants.MAX_STRING_LENGTH, why: "the longest string V8 can hold" },
  maxActivatedBytes: { max: Number.MAX_SAFE_INTEGER, why: "2^53-1" },
  maxSendBufferBytesPerConnection: { max: Number.MAX_SAFE_INTEGER, why: "2^53-1" },
  maxSendBufferBytes: { max: Number.MAX_SAFE_INTEGER, why: "2^53-1" },
  maxReceiveBufferBytesPerConnection: { max: Number.MAX_SAFE_INTEGER, why: "2^53-1" },
  maxReceiveBufferBytes: { max: Number.MAX_SAFE_INTEGER, why: "2^53-1" },
  maxReceiveBufferBytesPerCaller: { max: Number.MAX_SAFE_INTEGER, why: "2^53-1" },
  receiveMessageTimeoutMs: { max: maxTimerMs, why: "the longest timer Node can set (2^31-1 ms)" },
  idleConnectionTimeoutMs: { max: maxTimerMs, why: "the longest timer Node can set (2^31-1 ms)" },
  maxPathDepth: { max: 2048, why: "PATH_MAX (4096 bytes) holds at most 2048 levels" },
  toolContentBytes: {
    max: 1024 * 1024,
    why: "1 MiB: a CallTool reply carries the content twice (text and structured) within the 4 MiB send limit",
  },
  maxToolContentBytes: {
    max: 1024 * 1024,
    why: "1 MiB: a CallTool reply carries the content twice (text and structured) within the 4 MiB send limit",
  },
  toolCollectMs: { max: maxTimerMs, why: "the longest timer Node can set (2^31-1 ms)" },
  maxEditsPerCall: { max: 1_000_000, why: "a million edits" },
  maxEditDiffBytes: { max: GiB, why: "1 GiB (and at most max_chunk_size, checked below)" },
  editDiffTimeoutMs: { max: 60_000, why: "60000 ms: a longer diff holds the event loop too long" },
  maxWatchPendingEvents: { max: 1_000_000, why: "a million events" },
  maxTreeEntries: { max: 10_000_000, why: "ten million entries" },
  maxReadFiles: { max: 100_000, why: "a hundred thousand files" },
  maxReadFilesBytes: { max: Number.MAX_SAFE_INTEGER, why: "2^53-1" },
  maxSearchFileBytes: {
    max: bufferConstants.MAX_LENGTH,
    why: "the largest buffer Node can hold (a searched file is read whole)",
  },
  maxSearchMatches: { max: 10_000_000, why: "ten million matches" },
  searchTimeBudgetMs: { max: maxTimerMs, why: "the longest timer Node can set (2^31-1 ms)" },
  maxWatches: { max: 1_000_000, why: "a million watches" },
  maxWatchesPerCaller: { max: 1_000_000, why: "a million watches" },
  maxWatchedFoldersPerStream: { max: 10_000_000, why: "ten million folders (each an inotify watch)" },
  maxWatchedFoldersPerCaller: { max: 10_000_000, why: "ten million folders (each an inotify watch)" },
  maxWatchedFolders: { max: 10_000_000, why: "ten million folders (each an inotify watch)" },
  maxWatchedEntriesPerStream: { max: 100_000_000, why: "a hundred million entries" },
  maxWatchedEntriesPerCaller: { max: 100_000_000, why: "a hundred million entries" },
  maxWatchedEntries: { max: 100_000_000, why: "a hundred million entries" },
  watchQueueEvents: { max: 10_000_000, why: "ten million events" },
  skillReloadMaxWaitMs: { max: 60_000, why: "60000 ms: a longer wait holds the catalog back too long" },
};

const yamlName = Object.fromEntries(Object.entries(limitKeys).map(([yaml, key]) => [key, yaml])) as Record<
  keyof Limits,
  string
>;

/**
 * checkLimits refuses, with one line naming the key, any limit the runtime cannot take: not a
 * positive whole number, over its bound, or inconsistent with another limit.
 */
export function checkLimits(limits: Limits): void {
  for (const key of Object.keys(limitBounds) as (keyof Limits)[]) {
    const value = limits[key];
    const { max, why } = limitBounds[key];
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new ConfigError(`limits.${yamlName[key]} (${value}) must be a positive whole number`);
    }
    if (value > max) {
      throw new ConfigError(`limits.${yamlName[key]} (${value}) is over ${max}, ${why}; lower it`);
    }
  }
  if (limits.minChunkSize > limits.maxChunkSize) {
    throw new ConfigError(
      `limits.min_chunk_size (${limits.minChunkSize}) is above limits.max_chunk_size (${limits.maxChunkSize}); lower one of them`,
    );
  }
  if (limits.chunkSize < limits.minChunkSize || limits.chunkSize > limits.maxChunkSize) {
    throw new ConfigError(
      `limits.chunk_size (${limits.chunkSize}) must lie between min_chunk_size (${limits.minChunkSize}) and max_chunk_size (${limits.maxChunkSize})`,
    );
  }
  // The send limit is at least max_chunk_size plus 64 KiB; an EditFile reply must fit it by construction.
  if (limits.maxEditDiffBytes > limits.maxChunkSize) {
    throw new ConfigError(
      `limits.max_edit_diff_bytes (${limits.maxEditDiffBytes}) is above limits.max_chunk_size (${limits.maxChunkSize}), so an EditFile reply could exceed the send limit; lower it`,
    );
  }
  for (const [part, whole, together] of [
    ["maxSendBufferBytesPerConnection", "maxSendBufferBytes", "connections"],
    ["maxReceiveBufferBytesPerConnection", "maxReceiveBufferBytes", "connections"],
    ["maxReceiveBufferBytesPerCaller", "maxReceiveBufferBytes", "callers"],
  ] as const) {
    if (limits[part] > limits[whole]) {
      throw new ConfigError(
        `limits.${yamlName[part]} (${limits[part]}) is above limits.${yamlName[whole]} (${limits[whole]}), the bound for all ${together} together; lower it`,
      );
    }
  }
}
