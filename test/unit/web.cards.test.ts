/**
 * A fetched page's card (issue 30): the panel's model keeps the page's URL, status and size, the
 * saved copy tier 0 wrote and an "always" answer; the transcript keeps the card's details, so a
 * resumed chat (foldTranscript) shows the card as the live chat did; a malformed record is skipped.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { foldTranscript } from '../../src/core/agent/fold';
import type { AgentEvent } from '../../src/core/agent/events';
import { readTranscript } from '../../src/core/storage/sessionStore';
import { EXIT } from '../../src/cli/run';
import { applyEvent, emptyChat } from '../../src/webview/chatModel';
import { pageFacts, pageSize } from '../../src/webview/webCardView';
import { runCliCaptured } from '../support/cliCapture';
import { startWebServer } from '../support/webServer';
import { reply, startFakeAnthropic } from '../fake-anthropic/server';

type Finished = Extract<AgentEvent, { type: 'tool_call_finished' }>;
type Tier = Extract<AgentEvent, { type: 'tier' }>;

const web = { url: 'https://docs.example.com/guide', status: 200, contentType: 'text/html; charset=utf-8', bytes: 49_357, truncated: false, redirects: ['https://docs.example.com/old'] };

describe('a fetched page\'s card', () => {
  it('the panel keeps the page, the saved copy of its result and an "always" answer on the call\'s card', () => {
    const model = emptyChat();
    const events: AgentEvent[] = [
      { type: 'turn_started', turnId: 't', userText: 'read it' },
      { type: 'tool_call_started', turnId: 't', toolUseId: 'tu1', name: 'web_fetch', input: { url: 'https://docs.example.com/old' } },
      { type: 'approval_needed', turnId: 't', toolUseId: 'tu1', request: { kind: 'web', url: 'https://docs.example.com/old', host: 'docs.example.com' } },
      { type: 'approval_resolved', turnId: 't', toolUseId: 'tu1', approved: true, always: true },
      // Tier 0's note comes before the result, naming the call it saved.
      { type: 'tier', tier: 'persist', items: 1, tokensBefore: 12_000, tokensAfter: 900, detail: 'web_fetch output tu1 saved', savedOutput: { toolName: 'web_fetch', file: '/s/tool-results/tu1.txt', toolUseId: 'tu1' } },
      { type: 'tool_call_finished', turnId: 't', toolUseId: 'tu1', name: 'web_fetch', isError: false, content: 'URL: …', durationMs: 40, web },
    ];
    for (const event of events) applyEvent(model, event);
    const card = model.items.find((item) => item.kind === 'tool');
    assert.ok(card?.kind === 'tool');
    assert.deepEqual(card.web, web);
    assert.equal(card.savedOutput, '/s/tool-results/tu1.txt');
    assert.deepEqual(card.approval, { request: { kind: 'web', url: 'https://docs.example.com/old', host: 'docs.example.com' }, decided: true, always: true });
    const note = model.items.find((item) => item.kind === 'note');
    assert.ok(note?.kind === 'note' && note.savedOutput?.file === '/s/tool-results/tu1.txt', 'the note links it too');
  });

  it('words the facts: status, media type, size (and a cut or a cached copy)', () => {
    assert.deepEqual(pageFacts(web), ['HTTP 200', 'text/html', '48.2 KB']);
    assert.deepEqual(pageFacts({ url: 'u', status: 404, bytes: 10 * 1024 * 1024, truncated: true, fromCache: true }), ['HTTP 404', '10.0 MB read, the rest cut', "from this session's copy"]);
    assert.equal(pageSize(1), '1 byte');
    assert.equal(pageSize(1023), '1023 bytes');
  });

  it('a resumed chat shows the card as the live one did: the fold puts the recorded page on the call\'s result', async function () {
    this.timeout(60_000);
    const fake = await startFakeAnthropic();
    const site = await startWebServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><html><head><title>Guide</title></head><body><main><article><h1>Guide</h1>${'<p>Each call retries three times before it gives up, and says why it stopped.</p>'.repeat(600)}</article></main></body></html>`);
    });
    const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'evergreen-cards-ws-'));
    const storage = fs.mkdtempSync(path.join(os.tmpdir(), 'evergreen-cards-store-'));
    try {
      fake.enqueue(reply.toolUse('web_fetch', { url: `${site.origin}/guide` }, { id: 'toolu_guide' }), reply.text('Read.'));
      const run = await runCliCaptured(['--workspace', workspace, '--storage-dir', storage, '--no-sandbox', '--allow-web', '127.0.0.1', '--output-format', 'stream-json', '-p', 'read the guide'], { ANTHROPIC_API_KEY: fake.apiKey, ANTHROPIC_BASE_URL: fake.url, PATH: process.env.PATH }, workspace);
      assert.equal(run.code, EXIT.ok, run.stderr);
      const live = run.events.find((event): event is Finished => event.type === 'tool_call_finished' && event.toolUseId === 'toolu_guide');
      assert.ok(live?.web, 'the live card has the page');
      assert.equal(live.web.url, `${site.origin}/guide`);
      const livePersist = run.events.find((event): event is Tier => event.type === 'tier' && event.tier === 'persist');
      assert.equal(livePersist?.savedOutput?.toolUseId, 'toolu_guide', 'the page was saved whole, and the note names its call');

      const sessionId = run.events.find((event): event is Extract<AgentEvent, { type: 'session_started' }> => event.type === 'session_started')!.sessionId;
      const file = path.join(storage, 'sessions', sessionId, 'transcript.jsonl');
      const folded = foldTranscript((await readTranscript(file)).entries);
      const replayed = folded.display.find((event): event is Finished => event.type === 'tool_call_finished' && event.toolUseId === 'toolu_guide');
      assert.deepEqual(replayed?.web, live.web, 'the same page on the resumed card');
      const replayedPersist = folded.display.find((event): event is Tier => event.type === 'tier' && event.tier === 'persist');
      assert.deepEqual(replayedPersist?.savedOutput, livePersist?.savedOutput);

      // A record that is not a card's (a bad field) is skipped: the card shows its text alone, the rest folds.
      const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
      const at = lines.findIndex((line) => line.includes('"name":"tool_card"'));
      assert.ok(at >= 0, 'the card is recorded');
      lines[at] = lines[at]!.replace('"status":200', '"status":"OK"');
      fs.writeFileSync(file, `${lines.join('\n')}\n`);
      const refolded = foldTranscript((await readTranscript(file)).entries);
      const plain = refolded.display.find((event): event is Finished => event.type === 'tool_call_finished' && event.toolUseId === 'toolu_guide');
      assert.ok(plain && plain.web === undefined, 'no page from a malformed record');
      assert.equal(refolded.canonical.length, folded.canonical.length);
    } finally {
      await fake.close();
      await site.close();
      fs.rmSync(workspace, { recursive: true, force: true });
      fs.rmSync(storage, { recursive: true, force: true });
    }
  });
});
