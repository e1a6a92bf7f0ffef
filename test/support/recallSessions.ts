/** Session folders for the recall tests: written through the real store, with helpers to add calls and results. */
import type { MessageParam } from '../../src/core/model/messages';
import { FileSessionStore, type SessionHandle } from '../../src/core/storage/sessionStore';
import type { ToolContext } from '../../src/core/tools/types';
import type { RecallSource } from '../../src/core/tools/recallTypes';
import { NodeWorkspace } from '../../src/core/workspace/workspace';

export const TS = '2026-11-25T10:00:00.000Z';

/** A session folder written through the real store, with helpers to add calls and results. */
export async function sessionWith(root: string): Promise<{ handle: SessionHandle; call(id: string, name: string, input: Record<string, unknown>, result: string, isError?: boolean): void; say(role: 'user' | 'assistant', text: string): void }> {
  const store = new FileSessionStore(root);
  const handle = await store.create({ model: 'claude-test' });
  const append = (message: MessageParam) => handle.append({ type: 'message', ts: TS, message });
  return {
    handle,
    call(id, name, input, result, isError) {
      append({ role: 'assistant', content: [{ type: 'tool_use', id, name, input }] });
      append({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: result, ...(isError ? { is_error: true } : {}) }] });
    },
    say(role, text) {
      append({ role, content: [{ type: 'text', text }] });
    },
  };
}

export function context(recall: RecallSource | undefined, workspace: string): ToolContext {
  return {
    workspace: new NodeWorkspace(workspace),
    signal: new AbortController().signal,
    onProgress: () => undefined,
    approve: async () => ({ approved: true }),
    ...(recall ? { recall } : {}),
  };
}
