/** mcpTokenVariable names the environment variable `toolhost mcp` takes its bearer token from. */
export const mcpTokenVariable = "TOOLHOST_TOKEN";
