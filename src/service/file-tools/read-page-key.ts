import { createContextKey } from "@connectrpc/connect";
import type { TextPage } from "../../files/read/text-page.js";

/**
 * readPageKey is the HandlerContext value that makes a ReadFile call one page of the read tool's
 * paging (text-page.ts). Only CallTool sets it, on a context of its own, after verifying the
 * tool call's cursor; an RPC client cannot set context values, so ReadFile over gRPC never
 * starts at a byte it names.
 */
export const readPageKey = createContextKey<TextPage | undefined>(undefined, { description: "toolhost read page" });
