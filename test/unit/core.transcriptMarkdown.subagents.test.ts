import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { emptyTotals, type SessionMeta, type TranscriptLine } from '../../src/core/storage/sessionStore';
import type { TranscriptEntry } from '../../src/core/storage/transcript';
import { renderTranscript } from '../../src/extension/transcriptMarkdown';
import { useTempDirs } from '../support/tempDirs';

const meta: SessionMeta = {
  id: '20250101-120000-parent',
  title: 'Explore the repo',
  model: 'claude-sonnet-4-5',
  workspace: '/w',
  createdAt: '2025-01-01T12:00:00.000Z',
  updatedAt: '2025-01-01T13:00:00.000Z',
  messageCount: 4,
  compactions: 0,
  totals: emptyTotals(),
};

const numbered = (entries: TranscriptEntry[]): TranscriptLine[] => entries.map((entry, index) => ({ line: index + 1, entry }));
const usage = { inputTokens: 1_000, outputTokens: 250, cacheReadTokens: 500, cacheWriteTokens: 0 };
const href = (target: { sessionId: string; childId?: string; title: string }) => `evergreen-transcript:/${target.sessionId}${target.childId ? `/subagents/${target.childId}` : ''}/${encodeURIComponent(target.title)}.md`;

describe('archived transcript rendering: subagents', () => {
  const temp = useTempDirs();
  let dir: string;
  let childTranscript: string;
  beforeEach(() => {
    dir = temp.make('evergreen-render-sub-');
    childTranscript = path.join(dir, 'subagents', 'child-1', 'transcript.jsonl');
    fs.mkdirSync(path.dirname(childTranscript), { recursive: true });
    // Only ever linked, never read: its text must not appear in the parent's document.
    fs.writeFileSync(childTranscript, `${JSON.stringify({ type: 'message', ts: 'c1', message: { role: 'user', content: 'CHILD-ONLY TEXT' } })}\n`);
  });

  function parentEntries(report: string, status = 'done', description = 'Find the *config* loader'): TranscriptEntry[] {
    return [
      { type: 'message', ts: 't1', message: { role: 'user', content: 'Where is the config loaded?' } },
      { type: 'message', ts: 't2', message: { role: 'assistant', content: [{ type: 'tool_use', id: 'tu-task', name: 'task', input: { description, prompt: 'Find it', agent_type: 'explore' } }] } },
      { type: 'event', ts: 't3', name: 'subagent_started', data: { toolUseId: 'tu-task', childId: 'child-1', description, agentType: 'explore', transcriptPath: childTranscript } },
      { type: 'usage', ts: 't4', model: 'claude-sonnet-4-5', usage, costUsd: 0.01, childId: 'child-1' },
      { type: 'event', ts: 't5', name: 'subagent_finished', data: { toolUseId: 'tu-task', childId: 'child-1', status, report, usage, costUsd: 0.0123, toolCalls: 4, elapsedMs: 4_200 } },
      { type: 'message', ts: 't6', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu-task', content: `Subagent transcript (everything it did): ${childTranscript}\n\n${report}` }] } },
      { type: 'message', ts: 't7', message: { role: 'assistant', content: 'It is in src/config.ts.' } },
    ];
  }

  it('nests the child under the parent\'s task call: a link to its document and its raw JSONL, then its outcome, figures and report', async () => {
    const { text } = await renderTranscript(meta, numbered(parentEntries('The loader is `src/config.ts`, line 12.')), { transcriptPath: path.join(dir, 'transcript.jsonl'), transcriptHref: href });
    const call = text.indexOf('**Tool call `task`** (tu-task)');
    const start = text.indexOf('> **Subagent** `explore`');
    const finish = text.indexOf('> **Subagent done** (`child-1`)');
    const result = text.indexOf('**Result of `task`** (tu-task)');
    assert.ok(call >= 0 && start > call && finish > start && result > finish, `call, start, finish, result in order:\n${text}`);
    // The description is the model's text: its markup is escaped.
    assert.ok(text.includes('> **Subagent** `explore` · Find the \\*config\\* loader · t3'), text);
    assert.ok(text.includes(`> Child \`child-1\`: [open its transcript](<evergreen-transcript:/20250101-120000-parent/subagents/child-1/Find%20the%20*config*%20loader.md>) · [raw JSONL](${pathToFileURL(childTranscript).href})`), text);
    assert.ok(text.includes('> **Subagent done** (`child-1`) · 4 tool call(s) · 4.2 s · 1,500 input + 250 output tokens · $0.0123 · t5\n>\n> **Report**\n>\n> The loader is `src/config.ts`, line 12.'), text);
    assert.ok(!text.includes('CHILD-ONLY TEXT'), 'the child transcript is linked, not read');
    assert.ok(!text.includes('Event `subagent_started`'), 'no raw event dump for a well-formed record');
  });

  it('says each outcome in words and folds a long report inside the quote', async () => {
    const report = Array.from({ length: 1_000 }, (_, index) => `finding ${index + 1}`).join('\n');
    const { text, foldedBlocks } = await renderTranscript(meta, numbered(parentEntries(report, 'limit')), { transcriptPath: path.join(dir, 'transcript.jsonl') });
    assert.ok(text.includes('> **Subagent hit a limit** (`child-1`)'), text.slice(0, 2000));
    assert.ok(foldedBlocks >= 1);
    assert.match(text, /> \*… \d[\d,]* lines folded — full text: /);
    assert.ok(text.includes('> finding 1\n'));
    // Without a document link the child still has its raw transcript.
    assert.ok(text.includes(`> Child \`child-1\`: [raw JSONL](${pathToFileURL(childTranscript).href})`));
    for (const [status, words] of [['error', 'failed'], ['cancelled', 'cancelled'], ['done', 'done']] as const) {
      const rendered = await renderTranscript(meta, numbered(parentEntries('r', status)));
      assert.ok(rendered.text.includes(`> **Subagent ${words}** (\`child-1\`)`), `${status} reads as "${words}"`);
    }
  });

  it('shows a malformed subagent record as a plain event rather than dropping it', async () => {
    const entries: TranscriptEntry[] = [{ type: 'event', ts: 't1', name: 'subagent_finished', data: { toolUseId: 'tu', childId: 'c', status: 'exploded', report: 'x' } }];
    const { text } = await renderTranscript(meta, numbered(entries));
    assert.match(text, /\*Event `subagent_finished` · t1\*/);
    assert.match(text, /"status": "exploded"/);
  });

  it('a subagent\'s own document names its parent and links back to it', async () => {
    const childMeta: SessionMeta = { ...meta, id: 'child-1', title: 'Find the config loader' };
    const entries: TranscriptEntry[] = [
      { type: 'system_prompt', ts: 'c0', text: 'You are a subagent' },
      { type: 'event', ts: 'c0', name: 'subagent_of', data: { parentId: meta.id, toolUseId: 'tu-task', description: 'Find the config loader', agentType: 'explore' } },
      { type: 'message', ts: 'c1', message: { role: 'user', content: 'Find it' } },
    ];
    const { text } = await renderTranscript(childMeta, numbered(entries), { transcriptHref: href });
    assert.ok(text.includes(`*Subagent \`explore\` · Find the config loader, launched by [session ${meta.id}](<evergreen-transcript:/${meta.id}/transcript.md>) (its \`task\` call \`tu-task\`) · c0*`), text);
    const plain = await renderTranscript(childMeta, numbered(entries));
    assert.ok(plain.text.includes(`launched by session \`${meta.id}\``), plain.text);
  });
});
