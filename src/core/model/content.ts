/**
 * One definition each for reading message content: "a message as blocks" and "a tool_result as
 * text". Every layer (history repair, replay, context engine, transcript rendering) uses these.
 */
import { imageBlockTokens, imageText } from './images';
import type { ContentBlockParam, MessageParam } from './messages';

export type ToolUseBlock = Extract<ContentBlockParam, { type: 'tool_use' }>;
export type ToolResultBlock = Extract<ContentBlockParam, { type: 'tool_result' }>;

/** A message's content as blocks (a plain-string content is one text block). */
export function blocksOf(message: MessageParam): ContentBlockParam[] {
  return typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
}

/** A tool_result's content flattened to text; an image shows as its description ("[image: image/png, 120x80]"), never its bytes. */
export function toolResultText(block: ToolResultBlock): string {
  if (typeof block.content === 'string') return block.content;
  return (block.content ?? []).map((part) => (part.type === 'text' ? part.text : part.type === 'image' ? imageText(part) : `[${(part as { type: string }).type}]`)).join('\n');
}

/** The text a block contributes to the prompt, for size estimates (not a serialization format). */
export function blockText(block: ContentBlockParam): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'tool_use':
      return block.name + JSON.stringify(block.input);
    case 'tool_result':
      return toolResultText(block);
    case 'thinking':
      return block.thinking;
    case 'image':
      return imageText(block);
    default:
      return JSON.stringify(block);
  }
}

/** Characters per token the estimates assume before any request was counted (the context engine's default). */
export const DEFAULT_CHARS_PER_TOKEN = 4;

/**
 * Characters a block contributes to the prompt, for size estimates: its text, and for an image its
 * token cost (images.ts) at `charsPerToken`, so an estimate scaled back to tokens counts the image
 * as the API does, not as the length of its base64.
 */
export function blockChars(block: ContentBlockParam, charsPerToken = DEFAULT_CHARS_PER_TOKEN): number {
  if (block.type === 'image') return imageBlockTokens(block) * charsPerToken;
  if (block.type === 'tool_result' && Array.isArray(block.content)) {
    let chars = 0;
    for (const part of block.content) chars += part.type === 'image' ? imageBlockTokens(part) * charsPerToken : part.text.length;
    return chars;
  }
  return blockText(block).length;
}

/** Characters a message contributes to the prompt (sum of its blocks', see blockChars). */
export function messageChars(message: MessageParam, charsPerToken = DEFAULT_CHARS_PER_TOKEN): number {
  if (typeof message.content === 'string') return message.content.length;
  let chars = 0;
  for (const block of message.content) chars += blockChars(block, charsPerToken);
  return chars;
}

export function toolUsesOf(message: MessageParam): ToolUseBlock[] {
  if (message.role !== 'assistant') return [];
  return blocksOf(message).filter((block): block is ToolUseBlock => block.type === 'tool_use');
}

export function toolResultsOf(message: MessageParam): ToolResultBlock[] {
  if (message.role !== 'user') return [];
  return blocksOf(message).filter((block): block is ToolResultBlock => block.type === 'tool_result');
}

/** The words of a message: its text blocks, in order (thinking, tool calls and results left out). */
export function textsOf(message: MessageParam): string[] {
  return blocksOf(message).flatMap((block) => (block.type === 'text' ? [block.text] : []));
}

/**
 * How an attachment's block opens and closes in a user message (agent/attachments.ts writes and
 * parses them); here so storage can tell an attachment from the user's own words.
 */
export const ATTACHMENT_OPEN = '<attachment ';
export const ATTACHMENT_CLOSE = '</attachment>';

/** The kind and label of an attachment's block, or undefined for anything else (the user's own words). */
export function attachmentOfText(text: string): { kind: string; label: string } | undefined {
  if (!text.startsWith(ATTACHMENT_OPEN) || !text.endsWith(ATTACHMENT_CLOSE)) return undefined;
  const match = /^<attachment kind="([a-z-]+)" label=("(?:[^"\\]|\\.)*")>\n/.exec(text);
  if (!match) return undefined;
  try {
    return { kind: match[1]!, label: JSON.parse(match[2]!) as string };
  } catch {
    return undefined;
  }
}

/**
 * What a user prompt is called (a session's title): the user's own words, never an attachment's
 * markup or file text; with no words, the attachments' labels.
 */
export function promptTitleText(message: MessageParam): string | undefined {
  const texts = textsOf(message);
  const words = texts.filter((text) => !attachmentOfText(text) && text.trim()).join(' ');
  if (words) return words;
  const labels = texts.flatMap((text) => attachmentOfText(text)?.label ?? []);
  return labels.length ? labels.join(', ') : undefined;
}
