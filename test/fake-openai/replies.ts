/**
 * Builders for scripted replies, so tests read like the conversation they script:
 *
 *   fake.enqueue(
 *     reply.toolCalls([{ name: 'read_file', arguments: { path: 'a.ts' } }]),
 *     reply.text('Done.'),
 *     reply.error(503),
 *   );
 */
import type { DisconnectReply, ErrorReply, HangReply, MessageReply, RawReply, ScriptedToolCall } from './types';

type MessageOptions = Omit<MessageReply, 'kind' | 'content' | 'tool_calls'>;

export const reply = {
  /** An assistant message with text. */
  text(content: string, opts: MessageOptions = {}): MessageReply {
    return { kind: 'message', content, ...opts };
  },
  /** An assistant message calling tools (optionally preceded by text). */
  toolCalls(calls: ScriptedToolCall[], opts: MessageOptions & { preamble?: string } = {}): MessageReply {
    const { preamble, ...rest } = opts;
    return { kind: 'message', content: preamble ?? '', tool_calls: calls, ...rest };
  },
  /** An assistant message calling one tool. */
  toolCall(name: string, args: Record<string, unknown>, opts: MessageOptions & { preamble?: string; id?: string } = {}): MessageReply {
    const { id, ...rest } = opts;
    return reply.toolCalls([id ? { name, arguments: args, id } : { name, arguments: args }], rest);
  },
  /** An HTTP error with the real body for `status`. */
  error(status: number, opts: Omit<ErrorReply, 'kind' | 'status'> = {}): ErrorReply {
    return { kind: 'error', status, ...opts };
  },
  /** Any HTTP answer verbatim, e.g. an HTML page. */
  raw(status: number, body: string, contentType = 'text/html; charset=utf-8'): RawReply {
    return { kind: 'raw', status, contentType, body };
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
