import { homedir } from "node:os";
import { join } from "node:path";

/**
 * resolveStateDir is toolhost's state folder: $TOOLHOST_STATE_DIR, else $XDG_STATE_HOME/toolhost,
 * else ~/.local/state/toolhost. History lives in it (history/ by default) and so does the journal
 * of staging folders (staging/, staging-journal.ts).
 */
export function resolveStateDir(env: NodeJS.ProcessEnv): string {
  return (
    env["TOOLHOST_STATE_DIR"] ||
    (env["XDG_STATE_HOME"] ? join(env["XDG_STATE_HOME"], "toolhost") : join(homedir(), ".local", "state", "toolhost"))
  );
}

/** stagingDirIn is the staging journal's folder in the state folder `env` names. */
export function stagingDirIn(env: NodeJS.ProcessEnv): string {
  return join(resolveStateDir(env), "staging");
}

/** stagingDirOf is a Config's staging journal folder: its own, else the process's state folder's. */
export function stagingDirOf(config: { readonly stagingDir?: string | undefined }): string {
  return config.stagingDir ?? stagingDirIn(process.env);
}
