/**
 * Builders for scripted replies, so tests read like the conversation they script:
 *
 *   fake.enqueue(
 *     reply.toolUse('read_file', { path: 'a.ts' }),
 *     reply.text('Done.'),
 *     reply.error(529),
 *   );
 */
import { createHmac } from 'node:crypto';
import type {
  ApiErrorType,
  DisconnectReply,
  ErrorReply,
  HangReply,
  MessageReply,
  ScriptedBlock,
  StreamControls,
  UsageOverride,
} from './types';

const SIGNING_KEY = 'fake-anthropic-thinking-signature-key';

/**
 * The signature the fake issues for a thinking text (stable across fake instances, like real
 * signatures are across requests). Thinking blocks sent back must carry it. `model`: the model it
 * is bound to, for models that bind thinking to themselves (`binds_thinking_to_model`).
 */
export function thinkingSignature(thinking: string, model?: string): string {
  const mac = createHmac('sha256', SIGNING_KEY)
    .update(model === undefined ? thinking : `${model}\u0000${thinking}`)
    .digest();
  return `Eq${Buffer.concat([Buffer.from('fake-sig:'), mac]).toString('base64')}`;
}

interface MessageOptions {
  stop_reason?: MessageReply['stop_reason'];
  stop_sequence?: string | null;
  usage?: UsageOverride;
  delayMs?: number;
  stream?: StreamControls;
}

function message(content: ScriptedBlock[], opts: MessageOptions = {}): MessageReply {
  return { kind: 'message', content, ...opts };
}

export const reply = {
  /** An assistant message with the given blocks. */
  message,
  /** An assistant message with one text block. */
  text(text: string, opts?: MessageOptions): MessageReply {
    return message([{ type: 'text', text }], opts);
  },
  /** An assistant message calling one tool (optionally preceded by text). */
  toolUse(
    name: string,
    input: Record<string, unknown>,
    opts: MessageOptions & { id?: string; preamble?: string } = {},
  ): MessageReply {
    const { id, preamble, ...rest } = opts;
    const blocks: ScriptedBlock[] = [];
    if (preamble) blocks.push({ type: 'text', text: preamble });
    blocks.push(id ? { type: 'tool_use', name, input, id } : { type: 'tool_use', name, input });
    return message(blocks, rest);
  },
  /**
   * `next` (e.g. `reply.toolUse(…)`) preceded by a thinking block, signed by the fake unless
   * `signature` is given (`null`: unsigned). The request must enable thinking.
   */
  thinking(thinking: string, next: MessageReply, signature?: string | null): MessageReply {
    const block: ScriptedBlock = signature === undefined ? { type: 'thinking', thinking } : { type: 'thinking', thinking, signature };
    return { ...next, content: [block, ...next.content] };
  },
  /** An HTTP error with the real body for `status`. */
  error(
    status: number,
    opts: { type?: ApiErrorType; message?: string; retryAfter?: number; headers?: Record<string, string>; delayMs?: number } = {},
  ): ErrorReply {
    return { kind: 'error', status, ...opts };
  },
  /** Drop the connection before answering. */
  disconnect(delayMs?: number): DisconnectReply {
    return delayMs === undefined ? { kind: 'disconnect' } : { kind: 'disconnect', delayMs };
  },
  /** Never answer. */
  hang(): HangReply {
    return { kind: 'hang' };
  },
};
