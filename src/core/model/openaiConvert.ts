/**
 * The neutral history (Anthropic-shaped blocks, messages.ts) as Chat Completions messages, and
 * back. Pure and deterministic: the same history always gives byte-identical messages, so a
 * server's automatic prefix cache hits on everything a request shares with the one before it.
 *
 * Neutral -> chat:
 * - the system prompt is the first message (role system);
 * - an assistant turn's text becomes `content`, its tool_use blocks `tool_calls` (the tool_use id
 *   is the tool_call id, the input its JSON `arguments`); thinking is never sent;
 * - a user turn's tool_result blocks become `tool` messages, in order, before any user text of the
 *   same turn (the API wants them right after the assistant's tool_calls); `is_error` is marked in
 *   the content (TOOL_ERROR_MARK) since tool messages have no such field;
 * - images become image_url parts (data URLs) in user messages. Tool messages take text only, so
 *   a tool result's images are named in its text and sent in the user message right after the
 *   turn's tool messages, each result's under a label with its call id (IMAGES_LABEL); images a
 *   provider would refuse in this request are described instead (images.ts). Documents a placeholder.
 * Chat -> neutral undoes all of that (fromChatMessages), so a conversation survives a round trip
 * except for what the chat format cannot hold (thinking, the boundaries between several text
 * blocks of one assistant turn or of a tool result with images).
 */
import { createHash } from 'node:crypto';
import type OpenAI from 'openai';
import type { ContentBlockParam, ImageBlockParam, MessageParam, TextBlockParam, ToolParam, ToolResultBlockParam, ToolUseBlockParam } from './messages';
import { withSearchesAsNotes } from './webSearch';
import { blocksOf, textsOf } from './content';
import { fitImagesToRequest, imageText, REQUEST_IMAGE_LIMITS } from './images';

export type ChatMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;
export type ChatTool = OpenAI.Chat.Completions.ChatCompletionFunctionTool;
type UserPart = OpenAI.Chat.Completions.ChatCompletionContentPartText | OpenAI.Chat.Completions.ChatCompletionContentPartImage;
type ToolCall = OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall;

/** Prefix of a tool message whose result was an error (the chat format has no is_error). */
export const TOOL_ERROR_MARK = '[tool error] ';
/** What a tool call that was never answered gets, so the request stays valid (the API requires an answer). */
export const MISSING_RESULT_TEXT = '[no result: the tool call was not run]';

/** Labels a tool result's images in the user message after the tool messages. */
const IMAGES_LABEL = (callId: string) => `[images returned by tool call ${callId}]`;
const IMAGES_LABEL_PATTERN = /^\[images returned by tool call ([a-zA-Z0-9_-]+)\]$/;
/** How a tool message names an image it cannot hold. */
const SENT_BELOW = ' (sent in the next message)';

/** The longest tool_call id OpenAI accepts. */
const MAX_CALL_ID = 40;
const CALL_ID = /^[a-zA-Z0-9_-]+$/;

/**
 * The id a tool call travels under. Ids the API would refuse (too long, odd characters) map to a
 * stable derived id, the same for the call and its result and in every request.
 */
export function chatCallId(id: string): string {
  if (id.length > 0 && id.length <= MAX_CALL_ID && CALL_ID.test(id)) return id;
  return `call_${createHash('sha256').update(id).digest('hex').slice(0, 24)}`;
}

export function toChatTools(tools: readonly ToolParam[]): ChatTool[] {
  return tools.map((tool) => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: { ...tool.input_schema } } }));
}

function imageUrl(block: ImageBlockParam): string {
  return block.source.type === 'base64' ? `data:${block.source.media_type};base64,${block.source.data}` : block.source.url;
}

/** A placeholder for content the target cannot hold, saying what it was. */
function placeholder(block: ContentBlockParam | { type: string }): string {
  if (block.type === 'image') return `${imageText(block as ImageBlockParam)} (not shown to this model)`;
  return `[${block.type} omitted]`;
}

function resultImages(block: ToolResultBlockParam): ImageBlockParam[] {
  return typeof block.content === 'string' ? [] : (block.content ?? []).filter((part): part is ImageBlockParam => part.type === 'image');
}

function toolResultContent(block: ToolResultBlockParam): string {
  const body =
    typeof block.content === 'string' ? block.content : (block.content ?? []).map((part) => (part.type === 'text' ? part.text : `${imageText(part)}${SENT_BELOW}`)).join('\n');
  return block.is_error ? `${TOOL_ERROR_MARK}${body}` : body;
}

function toUserContent(blocks: readonly ContentBlockParam[]): string | UserPart[] {
  const parts: UserPart[] = [];
  for (const block of blocks) {
    if (block.type === 'text') parts.push({ type: 'text', text: block.text });
    else if (block.type === 'image') parts.push({ type: 'image_url', image_url: { url: imageUrl(block) } });
    else if (block.type !== 'thinking' && block.type !== 'redacted_thinking' && block.type !== 'tool_result') parts.push({ type: 'text', text: placeholder(block) });
  }
  // One text block travels as a plain string: every compatible server accepts that.
  return parts.length === 1 && parts[0]!.type === 'text' ? parts[0]!.text : parts;
}

/** The neutral conversation as Chat Completions messages (see the module comment for the rules). */
export function toChatMessages(system: string, history: readonly MessageParam[]): ChatMessage[] {
  const messages = fitImagesToRequest(history, REQUEST_IMAGE_LIMITS.openai);
  const out: ChatMessage[] = [];
  if (system.length > 0) out.push({ role: 'system', content: system });
  /** Calls of the previous assistant turn still waiting for their tool message. */
  let open: string[] = [];
  const closeOpen = () => {
    for (const id of open) out.push({ role: 'tool', tool_call_id: id, content: MISSING_RESULT_TEXT });
    open = [];
  };
  for (const message of messages) {
    const blocks = blocksOf(message);
    if (message.role === 'assistant') {
      closeOpen();
      // Anthropic's web searches have no Chat Completions form: their notes (query, result URLs) stand in.
      const text = textsOf({ role: 'assistant', content: withSearchesAsNotes(blocks) }).join('\n\n');
      const calls: ToolCall[] = blocks
        .filter((block): block is ToolUseBlockParam => block.type === 'tool_use')
        .map((block) => ({ id: chatCallId(block.id), type: 'function', function: { name: block.name, arguments: JSON.stringify(block.input) } }));
      if (calls.length > 0) {
        out.push({ role: 'assistant', content: text.length > 0 ? text : null, tool_calls: calls });
        open = calls.map((call) => call.id);
      } else {
        // A turn of thinking only still needs content: the API refuses an assistant message with neither.
        out.push({ role: 'assistant', content: text });
      }
      continue;
    }
    const results = blocks.filter((block): block is ToolResultBlockParam => block.type === 'tool_result');
    const rest = blocks.filter((block) => block.type !== 'tool_result');
    /** The results' images, each result's under its label, for the user message after the tool messages. */
    const images: UserPart[] = [];
    for (const result of results) {
      const id = chatCallId(result.tool_use_id);
      const at = open.indexOf(id);
      if (at >= 0) {
        open.splice(at, 1);
        out.push({ role: 'tool', tool_call_id: id, content: toolResultContent(result) });
        const own = resultImages(result);
        if (own.length > 0) images.push({ type: 'text', text: IMAGES_LABEL(id) }, ...own.map((image): UserPart => ({ type: 'image_url', image_url: { url: imageUrl(image) } })));
      } else {
        // A result with no call right before it would be refused as an orphan; its text and images stay, as user content.
        rest.unshift({ type: 'text', text: `[result of tool call ${result.tool_use_id}]\n${toolResultContent(result)}` }, ...resultImages(result));
      }
    }
    if (rest.length === 0 && images.length === 0) continue;
    closeOpen();
    const content = rest.length > 0 ? toUserContent(rest) : [];
    out.push({ role: 'user', content: images.length === 0 ? content : [...images, ...(typeof content === 'string' ? [{ type: 'text' as const, text: content }] : content)] });
  }
  closeOpen();
  return out;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part: { type?: string; text?: string; refusal?: string }) => (part.type === 'text' ? (part.text ?? '') : part.type === 'refusal' ? (part.refusal ?? '') : '')).join('');
}

function imageBlock(url: string): ImageBlockParam | TextBlockParam {
  const match = /^data:(image\/(?:png|jpeg|gif|webp));base64,(.*)$/s.exec(url);
  if (match) return { type: 'image', source: { type: 'base64', media_type: match[1] as 'image/png', data: match[2]! } };
  return /^https?:\/\//.test(url) ? { type: 'image', source: { type: 'url', url } } : { type: 'text', text: `[image: ${url}]` };
}

function parseArguments(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // Not JSON: kept whole below, so nothing the model wrote is lost.
  }
  return text.trim() === '' ? {} : { _raw_arguments: text };
}

/**
 * The labelled images at the start of a user message after tool messages, put back into their
 * tool results as [text, ...images] (the names the tool message gave them removed); the rest of
 * the message is returned.
 */
function reattachImages(pending: ContentBlockParam[], blocks: ContentBlockParam[]): ContentBlockParam[] {
  let index = 0;
  while (index < blocks.length) {
    const label = blocks[index]!;
    const id = label.type === 'text' ? IMAGES_LABEL_PATTERN.exec(label.text)?.[1] : undefined;
    const at = id === undefined ? -1 : pending.findIndex((block) => block.type === 'tool_result' && block.tool_use_id === id);
    if (at < 0) break;
    let end = index + 1;
    while (end < blocks.length && blocks[end]!.type === 'image') end++;
    const images = blocks.slice(index + 1, end) as ImageBlockParam[];
    const result = pending[at] as ToolResultBlockParam;
    const text = typeof result.content === 'string' ? result.content : '';
    const names = images.map((image) => `\n${imageText(image)}${SENT_BELOW}`).join('');
    pending[at] = { ...result, content: [{ type: 'text', text: text.endsWith(names) ? text.slice(0, text.length - names.length) : text }, ...images] };
    index = end;
  }
  return blocks.slice(index);
}

/**
 * Chat Completions messages back to the neutral history (system messages are returned apart):
 * tool messages become tool_result blocks of one user turn, joined with the user text after them.
 */
export function fromChatMessages(chat: readonly ChatMessage[]): { system: string; messages: MessageParam[] } {
  const systems: string[] = [];
  const messages: MessageParam[] = [];
  /** The user turn being built from tool messages (and the user message right after them). */
  let pending: ContentBlockParam[] | undefined;
  const flush = () => {
    if (pending) messages.push({ role: 'user', content: pending });
    pending = undefined;
  };
  for (const message of chat) {
    switch (message.role) {
      case 'system':
      case 'developer':
        systems.push(textOf(message.content));
        break;
      case 'tool': {
        const text = textOf(message.content);
        const isError = text.startsWith(TOOL_ERROR_MARK);
        pending ??= [];
        pending.push({ type: 'tool_result', tool_use_id: message.tool_call_id, content: isError ? text.slice(TOOL_ERROR_MARK.length) : text, ...(isError ? { is_error: true } : {}) });
        break;
      }
      case 'user': {
        let blocks: ContentBlockParam[] =
          typeof message.content === 'string'
            ? [{ type: 'text', text: message.content }]
            : message.content.map((part) => (part.type === 'text' ? { type: 'text', text: part.text } : part.type === 'image_url' ? imageBlock(part.image_url.url) : { type: 'text', text: `[${part.type}]` }));
        if (pending) {
          blocks = reattachImages(pending, blocks);
          pending.push(...blocks);
          flush();
        } else {
          messages.push({ role: 'user', content: blocks });
        }
        break;
      }
      case 'assistant': {
        flush();
        const blocks: ContentBlockParam[] = [];
        const text = textOf(message.content);
        if (text.length > 0) blocks.push({ type: 'text', text });
        for (const call of message.tool_calls ?? []) {
          if (call.type !== 'function') continue;
          blocks.push({ type: 'tool_use', id: call.id, name: call.function.name, input: parseArguments(call.function.arguments) });
        }
        messages.push({ role: 'assistant', content: blocks });
        break;
      }
      default:
        break; // Legacy `function` messages are not produced by Evergreen.
    }
  }
  flush();
  return { system: systems.join('\n\n'), messages };
}
