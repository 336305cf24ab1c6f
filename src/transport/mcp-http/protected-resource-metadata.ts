import type { OAuthProtectedResourceMetadata } from "@modelcontextprotocol/sdk/shared/auth.js";
import { tierNames } from "../../auth/tier.js";

/** protectedResourceMetadataPath is where RFC 9728 puts a resource's metadata document. */
export const protectedResourceMetadataPath = "/.well-known/oauth-protected-resource";

/**
 * metadataPathsFor are the paths the metadata of the resource at `resourcePath` is served at:
 * the bare well-known path, which the 401 challenge names, and the one RFC 9728 §3.1 derives
 * from the resource's path (`/.well-known/oauth-protected-resource/mcp`), which MCP clients try.
 */
export function metadataPathsFor(resourcePath: string): readonly string[] {
  return [protectedResourceMetadataPath, `${protectedResourceMetadataPath}${resourcePath}`];
}

/**
 * protectedResourceMetadata is the RFC 9728 document of the MCP endpoint `resource` (its URL):
 * bearer tokens in the authorization header only, and the tiers a token's scope grants as the
 * scopes. It names no authorization server: toolhost's tokens are minted by the operator with
 * `toolhost token create`, not by an OAuth flow.
 */
export function protectedResourceMetadata(resource: string): OAuthProtectedResourceMetadata {
  return {
    resource,
    bearer_methods_supported: ["header"],
    scopes_supported: [...tierNames],
    resource_name: "toolhost",
  };
}
