// Errors that cross layers: the two failures a tool reports to the model, and cancellation. A leaf
// module, so the confined file helpers (workspace/), the recall index and the MCP tools can throw
// the same kinds the tool registry recognizes (tools/registry.ts) without importing the tool contract.

/** Bad arguments from the model: reported back as an is_error tool result, never thrown further. */
export class ToolInputError extends Error {
  override name = 'ToolInputError';
}

/** A failure the model can act on (file not found, no match, ...): its message goes back verbatim. */
export class ToolExecutionError extends Error {
  override name = 'ToolExecutionError';
}

export function isAbortError(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError';
}

/** The same shape fetch and friends throw, so the agent can treat all cancellations alike. */
export function abortError(message = 'The operation was aborted'): Error {
  const error = new Error(message);
  error.name = 'AbortError';
  return error;
}

export function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw abortError();
}
