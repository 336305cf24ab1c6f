/**
 * ConfigError is a configuration problem that stops start-up: its message is one line that names
 * the problem and what to do, printed as is with exit code 2.
 */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}
