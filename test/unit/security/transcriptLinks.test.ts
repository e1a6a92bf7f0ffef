// Issue 18 item 3, "links in transcripts": the transcript tab is a markdown document, and VS Code
// runs the command of a `command:` document link when it is clicked (Ctrl+click in the editor, a
// click in the preview). Model text rendered as markdown could form one, in any markdown form.
// Every hostile text below must leave the payload only where markdown makes nothing a link (code).
import assert from 'node:assert/strict';
import MarkdownIt from 'markdown-it';
import { emptyTotals, type SessionMeta, type TranscriptLine } from '../../../src/core/storage/sessionStore';
import type { TranscriptEntry } from '../../../src/core/storage/transcript';
import { mayFormCommandLink, renderTranscript } from '../../../src/extension/transcriptMarkdown';

const PAYLOAD = 'workbench.action.terminal.sendSequence?%7B%22text%22%3A%22touch%20pwned%5Cn%22%7D';

/** Each way markdown (or the HTML it allows) can spell a link to `command:`. */
const HOSTILE: Record<string, string> = {
  inline: `Click [here](command:${PAYLOAD}) to continue.`,
  uppercase: `[here](COMMAND:${PAYLOAD})`,
  angleDestination: `[here](<command: ${PAYLOAD}>)`,
  titled: `[here](command:${PAYLOAD} "Run the tests")`,
  autolink: `<command:${PAYLOAD}>`,
  reference: `See [the docs][d].\n\n[d]: command:${PAYLOAD}`,
  referenceAngle: `[d]\n\n[d]: <command:${PAYLOAD}>`,
  html: `<a href="command:${PAYLOAD}">here</a>`,
  htmlBlock: `<div>\n<a href='command:${PAYLOAD}'>here</a>\n</div>`,
  htmlUnquoted: `<a href=command:${PAYLOAD}>here</a>`,
  decimalEntity: `[here](&#99;ommand:${PAYLOAD})`,
  hexEntity: `[here](&#x63;ommand&#x3A;${PAYLOAD})`,
  namedEntity: `[here](command&colon;${PAYLOAD})`,
  backslash: `[here](command\\:${PAYLOAD})`,
  percent: `[here](%63ommand:${PAYLOAD})`,
  htmlTab: `<a href="comm&#9;and:${PAYLOAD}">here</a>`,
  image: `![alt](command:${PAYLOAD})`,
  inQuote: `> [here](command:${PAYLOAD})`,
  inList: `- [here](command:${PAYLOAD})`,
  afterFence: `\`\`\`\nx\n\`\`\`\n[here](command:${PAYLOAD})`,
  longProse: `${Array.from({ length: 500 }, (_, i) => `line ${i}`).join('\n')}\n[here](command:${PAYLOAD})`,
};

const meta = (title: string): SessionMeta => ({
  id: '20260101-120000-abcdef',
  title,
  model: 'claude-sonnet-4-6',
  workspace: '/w',
  createdAt: '2026-01-01T12:00:00.000Z',
  updatedAt: '2026-01-01T13:00:00.000Z',
  messageCount: 2,
  compactions: 0,
  totals: emptyTotals(),
});

const numbered = (entries: TranscriptEntry[]): TranscriptLine[] => entries.map((entry, index) => ({ line: index + 1, entry }));

/** Every link or image whose target is a command, and raw HTML that carries the payload, in the parsed document. */
function exposures(markdown: string): string[] {
  const md = new MarkdownIt({ html: true, linkify: true });
  const found: string[] = [];
  const visit = (tokens: ReturnType<MarkdownIt['parse']>): void => {
    for (const token of tokens) {
      for (const name of ['href', 'src']) {
        const target = token.attrGet(name);
        if (target !== null && /^\s*command:/i.test(decodeURIComponent(target))) found.push(`${token.type} ${name}=${target}`);
      }
      // Raw HTML is where a browser (the preview) finds links markdown-it does not parse.
      if ((token.type === 'html_inline' || token.type === 'html_block') && token.content.includes('pwned')) found.push(`${token.type}: ${token.content.slice(0, 80)}`);
      if (token.children) visit(token.children);
    }
  };
  visit(md.parse(markdown, {}));
  return found;
}

describe('security: model text in the transcript tab cannot form a command: link', () => {
  for (const [name, text] of Object.entries(HOSTILE)) {
    it(`${name}: assistant text, user text, a subagent's report, title and description, a tool name and a compaction focus`, async () => {
      const entries: TranscriptEntry[] = [
        { type: 'message', ts: 't1', message: { role: 'user', content: text } },
        { type: 'message', ts: 't2', message: { role: 'assistant', content: [{ type: 'text', text }, { type: 'tool_use', id: 'tu1', name: `x\`\` ${text} \`\``, input: {} }] } },
        { type: 'message', ts: 't3', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu1', content: 'no such tool', is_error: true }] } },
        { type: 'event', ts: 't4', name: 'subagent_started', data: { childId: 'c1', parentToolUseId: 'tu1', agentType: 'general', description: text, transcriptPath: '/s/c1/transcript.jsonl' } },
        { type: 'event', ts: 't5', name: 'subagent_finished', data: { childId: 'c1', parentToolUseId: 'tu1', status: 'done', report: text, toolCalls: 1, elapsedMs: 10, costUsd: 0, usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 } } },
        {
          type: 'compaction',
          ts: 't6',
          compaction: { id: 'k1', trigger: 'manual', focus: text, summary: 's', keptFrom: 1, restoredFiles: [], stats: { tokensBefore: 2, tokensAfter: 1, messagesSummarized: 1, messagesKept: 1, summaryRequests: 1 } },
        },
      ];
      const rendered = await renderTranscript(meta(text), numbered(entries), { transcriptHref: (target) => `evergreen-transcript:/${target.sessionId}/x.md` });
      assert.ok(rendered.text.includes('pwned'), 'the hostile text is still shown');
      assert.deepEqual(exposures(rendered.text), []);
    });
  }

  it('ordinary prose keeps its markdown, and the check flags every hostile text', async () => {
    for (const [name, text] of Object.entries(HOSTILE)) assert.equal(mayFormCommandLink(text), true, `${name}: ${text.slice(0, 60)}`);
    const benign = 'Run this command: `npm test`. See [the docs](https://example.com/commands) and the **command:** line.';
    assert.equal(mayFormCommandLink(benign), false);
    const rendered = await renderTranscript(meta('Fix it'), numbered([{ type: 'message', ts: 't1', message: { role: 'assistant', content: [{ type: 'text', text: benign }] } }]));
    assert.ok(rendered.text.includes(benign), 'benign prose is rendered as markdown, not as a code block');
  });
});
