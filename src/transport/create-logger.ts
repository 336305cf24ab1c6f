import { pino, type Logger } from "pino";
import type { LogLevel } from "../config/config.js";

/**
 * createLogger makes the server's pino logger: JSON lines on stdout, no hostname or pid noise,
 * and any `authorization` header path redacted should a caller ever log one.
 */
export function createLogger(level: LogLevel, destination: NodeJS.WritableStream = process.stdout): Logger {
  return pino(
    {
      level,
      base: { service: "toolhost" },
      redact: { paths: ["authorization", "*.authorization", "headers.authorization"], censor: "[redacted]" },
    },
    destination as pino.DestinationStream,
  );
}
