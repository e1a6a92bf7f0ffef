/**
 * An MCP tool result as the model receives it. Text goes inline; an embedded text resource goes
 * inline under its URI; images, audio and binary resources are saved whole to the session's
 * folder and named with their type and size; an image the providers accept (model/images.ts) is
 * also shown to the model as an image, one they would refuse is described with why it was not
 * sent (never a failed request); resource links are listed; `structuredContent` is added as JSON when the text does not already
 * carry it. `isError` stays an error. Tier 0 then treats the text like any tool output: a huge one
 * is saved whole and the model gets its head and tail.
 */
import { createHash } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { imageLimitProblem, readImage } from '../model/images';
import { IMAGE_EXTENSIONS } from '../model/imageLimits';
import type { ToolImage } from '../tools/types';

export interface MappedResult {
  text: string;
  /** Images for the model, in the order of the result (each is also named in `text`). */
  images: ToolImage[];
  isError: boolean;
  /** Files written for binary parts. */
  savedFiles: string[];
}

const EXTENSIONS: Readonly<Record<string, string>> = {
  ...IMAGE_EXTENSIONS,
  'audio/wav': '.wav',
  'audio/mpeg': '.mp3',
  'application/pdf': '.pdf',
};

function fileNameFor(toolUseId: string, index: number, mimeType: string | undefined): string {
  const safeId = toolUseId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 80);
  return `${safeId}-${index}${EXTENSIONS[mimeType ?? ''] ?? '.bin'}`;
}

function kib(bytes: number): string {
  return bytes < 1024 ? `${bytes} bytes` : `${(bytes / 1024).toFixed(1)} KiB`;
}

/** `filesDir`: where binary parts go (created on demand); undefined when nothing may be written (they are then described only). */
export async function mapCallToolResult(result: CallToolResult, toolUseId: string, filesDir: string | undefined): Promise<MappedResult> {
  const parts: string[] = [];
  const images: ToolImage[] = [];
  const savedFiles: string[] = [];
  /** Saves a binary part; returns its description's inside, "type, size, where" (`note` added before the closing bracket). */
  const save = async (index: number, base64: string, mimeType: string | undefined, what: string, note = ''): Promise<string> => {
    const bytes = Buffer.from(base64, 'base64');
    if (!filesDir) return `[${what}: ${mimeType ?? 'unknown type'}, ${kib(bytes.length)}; not saved (this session has no folder)${note}]`;
    await fsp.mkdir(filesDir, { recursive: true });
    const file = path.join(filesDir, fileNameFor(toolUseId, index, mimeType));
    await fsp.writeFile(file, bytes);
    savedFiles.push(file);
    return `[${what}: ${mimeType ?? 'unknown type'}, ${kib(bytes.length)}, sha256 ${createHash('sha256').update(bytes).digest('hex').slice(0, 12)}; saved to ${file}${note}]`;
  };
  const image = async (index: number, base64: string, claimed: string | undefined): Promise<string> => {
    const facts = readImage(base64);
    const problem = 'problem' in facts ? facts.problem : imageLimitProblem(facts, base64.length);
    if ('problem' in facts || problem !== undefined) return save(index, base64, claimed, 'image', `; not shown to the model: ${problem}`);
    // The type is the bytes' (the API refuses an image whose declared type is not what its bytes are).
    const relabelled = claimed !== facts.mediaType ? ` (the server called it ${claimed ?? 'nothing'})` : '';
    images.push({ mediaType: facts.mediaType, data: base64 });
    return save(index, base64, facts.mediaType, 'image', `; ${facts.width}x${facts.height} px${relabelled}; shown to the model as an image`);
  };
  const content = Array.isArray(result.content) ? result.content : [];
  for (const [index, part] of content.entries()) {
    switch (part.type) {
      case 'text':
        parts.push(part.text);
        break;
      case 'image':
        parts.push(await image(index, part.data, part.mimeType));
        break;
      case 'audio':
        parts.push(await save(index, part.data, part.mimeType, 'audio'));
        break;
      case 'resource': {
        const resource = part.resource;
        if ('text' in resource && typeof resource.text === 'string') parts.push(`[resource ${resource.uri}${resource.mimeType ? ` (${resource.mimeType})` : ''}]\n${resource.text}`);
        else if ('blob' in resource && typeof resource.blob === 'string') parts.push(await save(index, resource.blob, resource.mimeType, `resource ${resource.uri}`));
        break;
      }
      case 'resource_link':
        parts.push(`[resource link: ${part.uri}${part.name ? ` (${part.name})` : ''}${part.mimeType ? `, ${part.mimeType}` : ''}${part.description ? ` — ${part.description}` : ''}]`);
        break;
      default:
        parts.push(`[a content part of type ${JSON.stringify((part as { type?: unknown }).type)} that Evergreen does not read]`);
    }
  }
  // Servers should also say it in a text part (the spec's advice); the JSON is added only when no
  // text came with it, so a large result is not sent twice.
  if (result.structuredContent !== undefined && !content.some((part) => part.type === 'text')) {
    parts.push(`Structured result:\n${JSON.stringify(result.structuredContent, null, 2)}`);
  }
  const text = parts.join('\n\n');
  return { text: text || (result.isError ? 'The tool failed and said nothing.' : '(The tool returned no content.)'), images, isError: result.isError === true, savedFiles };
}
