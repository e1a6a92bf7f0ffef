/**
 * A fetched page's card survives a resume (issue 30): the transcript keeps the card's details (a
 * `tool_card` event), foldTranscript puts them on the call's replayed result, so a resumed chat shows
 * the card as the live one did; a malformed record is skipped and the rest folds.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { foldTranscript } from '../../src/core/agent/fold';
import type { WordedEvent as AgentEvent } from '../../src/frontends/words/wordEvent';
import { worded } from '../support/said';
import { readTranscript } from '../../src/core/storage/sessionStore';
import { EXIT } from '../../src/cli/run';
import { useCliFixture } from '../support/cliFixture';
import { startWebServer } from '../support/webServer';
import { reply } from '../fake-anthropic/server';

type Finished = Extract<AgentEvent, { type: 'tool_call_finished' }>;
type Tier = Extract<AgentEvent, { type: 'tier' }>;

describe("a fetched page's card, resumed", function () {
  this.timeout(60_000);
  const cli = useCliFixture('anthropic', { args: ['--no-sandbox', '--allow-web', '127.0.0.1', '--output-format', 'stream-json'] });

  it('shows the card as the live one did: the fold puts the recorded page on the call\'s result', async () => {
    const site = await startWebServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><html><head><title>Guide</title></head><body><main><article><h1>Guide</h1>${'<p>Each call retries three times before it gives up, and says why it stopped.</p>'.repeat(600)}</article></main></body></html>`);
    });
    try {
      cli().fake.enqueue(reply.toolUse('web_fetch', { url: `${site.origin}/guide` }, { id: 'toolu_guide' }), reply.text('Read.'));
      const run = await cli().run(['-p', 'read the guide']);
      assert.equal(run.code, EXIT.ok, run.stderr);
      const live = run.events.find((event): event is Finished => event.type === 'tool_call_finished' && event.toolUseId === 'toolu_guide');
      assert.ok(live?.web, 'the live card has the page');
      assert.equal(live.web.url, `${site.origin}/guide`);
      const livePersist = run.events.find((event): event is Tier => event.type === 'tier' && event.tier === 'persist');
      assert.equal(livePersist?.savedOutput?.toolUseId, 'toolu_guide', 'the page was saved whole, and the note names its call');

      const sessionId = run.events.find((event): event is Extract<AgentEvent, { type: 'session_started' }> => event.type === 'session_started')!.sessionId;
      const file = path.join(cli().storage, 'sessions', sessionId, 'transcript.jsonl');
      const foldedTranscript = foldTranscript((await readTranscript(file)).entries);
      const folded = { ...foldedTranscript, display: worded(foldedTranscript.display) };
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
      await site.close();
    }
  });
});
