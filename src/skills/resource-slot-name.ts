import { ToolhostError } from "../errors/toolhost-error.js";
import { resourceSlotNames, type ResourceSlotName } from "./skill-types.js";

/**
 * parseSlotName checks a client's slot field: one of scripts, references, assets, or (where
 * `optional`) empty for all of them. Anything else, including a path such as "../x", is
 * INVALID_ARGUMENT before any filesystem access.
 */
export function parseSlotName(slot: string, optional: boolean): ResourceSlotName | undefined {
  if (slot === "" && optional) {
    return undefined;
  }
  if ((resourceSlotNames as readonly string[]).includes(slot)) {
    return slot as ResourceSlotName;
  }
  const shown = slot === "" ? "an empty slot" : `slot "${slot}"`;
  throw new ToolhostError("INVALID_ARGUMENT", `${shown} is not a resource slot: use scripts, references or assets.`, {
    field: "slot",
  });
}
