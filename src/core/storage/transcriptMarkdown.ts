import type { ContentBlockParam } from '../model/client';
import { blocksOf, toolResultText } from '../model/content';
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
    case 'tool_result':
      return `**Result${content.is_error ? ' (error)' : ''}** (${content.tool_use_id})\n\n${fenced(toolResultText(content))}`;
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
  if (transcript.problems.length > 0) {
    out.push('', `*${transcript.problems.length} unreadable transcript line(s) were skipped: ${transcript.problems.map((problem) => `line ${problem.line} (${problem.reason})`).join('; ')}.*`);
  }
  for (const entry of transcript.entries) {
    if (entry.type === 'message') {
      const blocks = blocksOf(entry.message);
      out.push('', `## ${entry.message.role === 'user' ? 'User' : 'Assistant'} · ${entry.ts}`, '');
      out.push(blocks.map((content) => block(content, entry.message.role)).join('\n\n'));
    } else if (entry.type === 'compaction') {
      const record = entry.compaction;
      const stats = record.stats;
      out.push('', '---', `## Context compacted (${record.trigger}) · ${entry.ts}`, '');
      out.push(`~${stats.tokensBefore.toLocaleString('en-US')} → ~${stats.tokensAfter.toLocaleString('en-US')} tokens; ${stats.messagesSummarized} message(s) summarized, ${stats.messagesKept} kept verbatim${record.focus ? `; focus: ${record.focus}` : ''}.`);
      if (record.restoredFiles.length > 0) out.push('', `Files restored: ${record.restoredFiles.map((file) => file.path).join(', ')}`);
      if (record.summary !== undefined && record.trigger !== 'drop') out.push('', fenced(record.summary, 'text'));
      out.push('', '---');
    } else if (entry.type === 'tier_edit') {
      out.push('', `*Context ${entry.tier}: ${entry.edits.length} old tool result(s) shortened in what the model sees (~${entry.tokensBefore.toLocaleString('en-US')} → ~${entry.tokensAfter.toLocaleString('en-US')} tokens); the originals above are unchanged.* · ${entry.ts}`);
    } else if (entry.type === 'persisted_output') {
      out.push('', `*Output of ${entry.toolName} (${entry.toolUseId}, ${(entry.bytes / 1024).toFixed(1)} KB, ${entry.lines} lines) saved in full to \`${entry.file}\`.*`);
    } else if (entry.type === 'event' && entry.name !== 'system_prompt') {
      out.push('', `---`, `*${entry.name}* · ${entry.ts}`, '', fenced(JSON.stringify(entry.data, null, 2), 'json'));
    }
  }
  return out.join('\n') + '\n';
}
