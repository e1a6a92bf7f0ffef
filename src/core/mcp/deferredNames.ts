/** The two tools that stand for deferred MCP tools (deferred.ts); apart so the webview can name them without the rest. */
export const MCP_SEARCH_TOOL = 'mcp_search';
export const MCP_CALL_TOOL = 'mcp_call';
