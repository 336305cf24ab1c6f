import { When } from "@cucumber/cucumber";
import type { ToolhostWorld } from "../support/world.js";
import { unescapeSeed } from "./common.steps.js";

async function replaceTool(
  world: ToolhostWorld,
  path: string,
  oldText: string,
  newText: string,
  replaceAll: boolean,
): Promise<void> {
  await world.call(() =>
    world.fileTools.editFile({
      path: unescapeSeed(path),
      edits: [
        {
          kind: {
            case: "replace",
            value: { oldText: unescapeSeed(oldText), newText: unescapeSeed(newText), replaceAll },
          },
        },
      ],
    }),
  );
}

When(
  /^I execute the "skill\/file-edit" tool replacing "([^"]*)" with "([^"]*)" in "([^"]*)"$/,
  async function (this: ToolhostWorld, oldText: string, newText: string, path: string) {
    await replaceTool(this, path, oldText, newText, false);
  },
);

When(
  /^I execute the "skill\/file-edit" tool replacing all "([^"]*)" with "([^"]*)" in "([^"]*)"$/,
  async function (this: ToolhostWorld, oldText: string, newText: string, path: string) {
    await replaceTool(this, path, oldText, newText, true);
  },
);
