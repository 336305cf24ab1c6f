import { When } from "@cucumber/cucumber";
import type { ToolhostWorld } from "../support/world.js";
import { unescapeSeed } from "./common.steps.js";

When(
  /^I execute the "skill\/file-delete" tool with path "([^"]*)"$/,
  async function (this: ToolhostWorld, path: string) {
    await this.call(() => this.fileTools.deleteFile({ path: unescapeSeed(path) }));
  },
);
