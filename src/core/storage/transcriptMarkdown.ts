import type { ContentBlockParam } from '../model/client';
import type { LoadedTranscript, SessionMeta } from './sessionStore';

const FENCE = '````';

function fenced(text: string, info = ''): string {
  return `${FENCE}${info}\n${text}\n${FENCE}`;
}

function block(content: ContentBlockParam, role: 'user' | 'assistant'): string {
  switch (content.type) {
    case 'text':
      return role === 'user' ? content.text.split('\n').map((line) => `> ${line}`).join('\n') : content.text;
    case 'tool_use':
      return `**Tool call \`${content.name}\`** (${content.id})\n\n${fenced(JSON.stringify(content.input, null, 2), 'json')}`;
    case 'tool_result': {
      const text = typeof content.content === 'string' ? content.content : (content.content ?? []).map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join('\n');
      return `**Result${content.is_error ? ' (error)' : ''}** (${content.tool_use_id})\n\n${fenced(text)}`;
    }
    case 'thinking':
      return `*Thinking:*\n\n${fenced(content.thinking)}`;
    default:
      return `*[${content.type}]*`;
  }
}

/** A transcript as a readable, searchable markdown document (DESIGN.md §4). */
export function renderTranscriptMarkdown(meta: SessionMeta, transcript: LoadedTranscript): string {
  const out: string[] = [
    `# ${meta.title}`,
    '',
    `Session \`${meta.id}\` · model ${meta.model} · started ${meta.createdAt} · updated ${meta.updatedAt}`,
    `Tokens: ${meta.totals.inputTokens.toLocaleString('en-US')} input, ${meta.totals.outputTokens.toLocaleString('en-US')} output, ${meta.totals.cacheReadTokens.toLocaleString('en-US')} cache read, ${meta.totals.cacheWriteTokens.toLocaleString('en-US')} cache write · cost $${meta.totals.costUsd.toFixed(4)}`,
  ];
  if (transcript.skippedLines > 0) out.push('', `*${transcript.skippedLines} unreadable transcript line(s) were skipped (usually a write cut off by a crash).*`);
  for (const entry of transcript.entries) {
    if (entry.type === 'message') {
      const blocks = typeof entry.message.content === 'string' ? [{ type: 'text' as const, text: entry.message.content }] : entry.message.content;
      out.push('', `## ${entry.message.role === 'user' ? 'User' : 'Assistant'} · ${entry.ts}`, '');
      out.push(blocks.map((content) => block(content, entry.message.role)).join('\n\n'));
    } else if (entry.type === 'event' && entry.name !== 'system_prompt') {
      out.push('', `---`, `*${entry.name}* · ${entry.ts}`, '', fenced(JSON.stringify(entry.data, null, 2), 'json'));
    }
  }
  return out.join('\n') + '\n';
}
