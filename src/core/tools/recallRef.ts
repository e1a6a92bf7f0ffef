/**
 * The way back to anything the engine removed from the live context (issue 20). One definition, so
 * every placeholder, note and summary names the same tool the same way.
 */

/** The built-in tool that returns an earlier tool result exactly, or searches the session's whole history. */
export const RECALL_TOOL = 'recall';

/**
 * The call that brings back one earlier tool result, as placeholders and notes write it. Kept
 * short: a placeholder is re-read on every request. The id is JSON-quoted because it comes from
 * the model's side of the conversation.
 */
export function recallCall(toolUseId: string): string {
  return `${RECALL_TOOL} {"id":${JSON.stringify(toolUseId)}}`;
}
