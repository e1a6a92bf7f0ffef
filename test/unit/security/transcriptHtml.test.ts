// Issue 33, "transcript tab": the archived transcript opens rendered, and it shows model text. The
// rendered page (extension/transcriptHtml.ts) must run nothing and load nothing, whatever the text:
// no raw HTML, no image that fetches, no link but to the places the tab opens.
import assert from 'node:assert/strict';
import { emptyTotals, type SessionMeta, type TranscriptLine } from '../../../src/core/storage/sessionStore';
import type { TranscriptEntry } from '../../../src/core/storage/transcript';
import { renderTranscript } from '../../../src/extension/transcriptMarkdown';
import { isTranscriptLink, transcriptHtml } from '../../../src/extension/transcriptHtml';

const meta: SessionMeta = { id: '20260101-120000-abcdef', title: 'Fix it', model: 'm', workspace: '/w', createdAt: 'c', updatedAt: 'u', messageCount: 2, compactions: 1, totals: emptyTotals() };
const numbered = (entries: TranscriptEntry[]): TranscriptLine[] => entries.map((entry, index) => ({ line: index + 1, entry }));

/** Model text that would run, load or link somewhere if the page rendered it as a browser would. */
const HOSTILE = [
  '<script>window.pwned = 1</script>',
  '<img src="https://tracker.example/pixel.png" onerror="pwned()">',
  '![chart](https://tracker.example/chart.png)',
  '![local](file:///etc/passwd)',
  '<iframe src="https://evil.example"></iframe>',
  '<a href="javascript:pwned()">x</a>',
  '[click](javascript:pwned())',
  '[data](data:text/html;base64,PHNjcmlwdD4=)',
  '[vbs](vbscript:msgbox)',
  '<style>body{background:url(https://tracker.example/bg)}</style>',
  '<svg onload="pwned()"></svg>',
].join('\n\n');

describe('security: the rendered transcript runs and loads nothing of the model\'s', () => {
  it('shows raw HTML as text, images as links that load nothing, and drops links to schemes the tab does not open', async () => {
    const rendered = await renderTranscript(meta, numbered([
      { type: 'message', ts: 't1', message: { role: 'user', content: 'Show me the chart' } },
      { type: 'message', ts: 't2', message: { role: 'assistant', content: [{ type: 'text', text: HOSTILE }] } },
    ]));
    const html = transcriptHtml(rendered.text);
    // Every tag in the page is one markdown makes: none carries a source, a handler or a style.
    const tags = [...html.matchAll(/<([a-z][a-z0-9]*)\b[^>]*>/gi)].map((match) => match[0]);
    const allowed = /^<(h[1-6]|p|em|strong|code|pre|blockquote|ul|ol|li|hr|br|a|table|thead|tbody|tr|th|td|del|s)\b/i;
    assert.deepEqual(tags.filter((tag) => !allowed.test(tag)), []);
    assert.deepEqual(tags.filter((tag) => /\s(src|style|on[a-z]+)\s*=/i.test(tag)), []);
    assert.doesNotMatch(html, /href="(javascript|data|vbscript|command):/i);
    // Shown, as text: the reader sees what the model wrote.
    assert.ok(html.includes('&lt;script&gt;window.pwned = 1&lt;/script&gt;'), html);
    // A markdown image is a link to what it names; clicking it asks the host, which opens only file and web links.
    assert.ok(html.includes('<a href="https://tracker.example/chart.png">[image: chart]</a>'), html);
  });

  it('keeps the links the transcript makes: its files (with a line), other transcripts, the web', () => {
    const html = transcriptHtml('[full text](file:///s/transcript.jsonl#L12) · [child](<evergreen-transcript:/s1/subagents/c1/Read it.md>) · [docs](https://example.com/x)');
    assert.ok(html.includes('href="file:///s/transcript.jsonl#L12"'), html);
    assert.ok(html.includes('href="evergreen-transcript:/s1/subagents/c1/Read%20it.md"'), html);
    assert.ok(html.includes('href="https://example.com/x"'), html);
    for (const href of ['command:workbench.action.terminal.sendSequence', 'javascript:x', 'vscode://x', 'data:text/html,x', '#top', 'relative.md', 'file://evil.example/share/x', ' FILE://host/c$/x']) assert.equal(isTranscriptLink(href), false, href);
    assert.equal(isTranscriptLink('file:/s/transcript.jsonl'), true, 'a file URI without a host is a local file');
    assert.ok(!transcriptHtml('[notes](file://evil.example/share/notes.md)').includes('href="file://evil'), 'a link to another machine is not drawn as a link');
  });

  it('marks each heading with its source line, so the tab can open at a compaction', async () => {
    const rendered = await renderTranscript(meta, numbered([
      { type: 'message', ts: 't1', message: { role: 'user', content: 'First' } },
      { type: 'compaction', ts: 't2', compaction: { id: 'k1', trigger: 'manual', summary: 'The summary', keptFrom: 1, restoredFiles: [], stats: { tokensBefore: 2, tokensAfter: 1, messagesSummarized: 1, messagesKept: 1, summaryRequests: 1 } } },
    ]));
    const line = rendered.compactionLines[0]!;
    assert.ok(line > 0);
    const heading = new RegExp(`<h(\\d) data-line="${line}">([^<]*)`).exec(transcriptHtml(rendered.text));
    assert.ok(heading, 'no heading carries the compaction\'s line');
    assert.equal(heading[2], rendered.text.split('\n')[line]!.replace(/^#+\s*/, ''));
  });
});
