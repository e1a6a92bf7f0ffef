// The chat's note for a tier-0 persisted result. Apart from tier0.ts because it is shaped as a
// ContextEvent: engineTypes.ts (which names tier0's SavedOutput) would otherwise form a cycle with it.
import type { ContextEvent } from './engineTypes';
import { userText } from '../texts/userText';
import type { SavedOutput } from './tier0';
import { recallCall } from '../tools/recallRef';

/** The tier note of one persisted result (live from the engine, and rebuilt by the fold on resume): its id and its file, the two ways back. */
export function persistNote(input: SavedOutput & { toolUseId: string; tokensBefore: number; tokensAfter: number }): Extract<ContextEvent, { type: 'tier' }> {
  return {
    type: 'tier',
    tier: 'persist',
    items: 1,
    tokensBefore: input.tokensBefore,
    tokensAfter: input.tokensAfter,
    detail: userText('context.persisted', { tool: input.toolName, id: input.toolUseId, file: input.file, recall: recallCall(input.toolUseId) }),
    savedOutput: { toolName: input.toolName, file: input.file, toolUseId: input.toolUseId },
  };
}
