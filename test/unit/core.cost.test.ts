/**
 * Unknown prices (issue: rough edges): a model with no known price must not read as "$0.00", which
 * looks like a real figure. One definition (src/core/model/cost.ts) is used by the gauge, the
 * breakdown document, the session picker, the CLI, the transcript and the subagent cards.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EXIT } from '../../src/cli/run';
import { renderContextBreakdown } from '../../src/core/context/breakdownMarkdown';
import { contextGauge, type GaugeNumbers } from '../../src/core/context/gauge';
import { formatCost, PRICE_SETTING, PRICE_UNKNOWN, priceUnknownHint } from '../../src/core/model/cost';
import type { SessionMeta } from '../../src/core/storage/sessionStore';
import { renderTranscript } from '../../src/extension/transcriptMarkdown';
import { applySubagentEvent, subagentFigures } from '../../src/webview/subagents';
import { gaugeView } from '../../src/webview/gauge';
import { reply, startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic/server';
import { runCliCaptured } from '../support/cliCapture';

const numbers: GaugeNumbers = { window: 200_000, outputReserve: 16_000, usedTokens: 20_000, autoCompactThreshold: 171_000, cacheReadShare: 0.5, sessionCostUsd: 0 };
const usage = { inputTokens: 100, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 };

describe('unknown prices', () => {
  it('formatCost: a figure when every request was priced, "price unknown" when none was, both when some were', () => {
    assert.equal(formatCost(0.42), '$0.42');
    assert.equal(formatCost(0), '$0.00', 'a priced session that cost nothing is a real $0.00');
    assert.equal(formatCost(0.004), '$0.0040');
    assert.equal(formatCost(0, 3), PRICE_UNKNOWN);
    assert.equal(formatCost(0.42, 1), `$0.42 + ${PRICE_UNKNOWN}`);
    assert.equal(formatCost(0.5, 0, 4), '$0.5000');
    assert.equal(formatCost(0, 1, 4), PRICE_UNKNOWN);
    assert.equal(priceUnknownHint(0), '');
    assert.match(priceUnknownHint(1), /^1 request to a model with no known price: set its price .* in "evergreen\.pricing"/);
    assert.match(priceUnknownHint(1_200), /^1,200 requests /);
    assert.equal(PRICE_SETTING, 'evergreen.pricing');
  });

  it('the gauge (panel, status bar) says the price is unknown and where to set it, never $0.00', () => {
    const gauge = contextGauge({ ...numbers, unpricedRequests: 2 });
    assert.equal(gauge.reading.secondary, 'cache 50% · price unknown');
    assert.match(gauge.reading.tooltip, /session cost price unknown\n2 requests to a model with no known price: set its price \(USD per million tokens\) in "evergreen\.pricing"/);
    assert.ok(!gauge.reading.tooltip.includes('$0.00'), gauge.reading.tooltip);
    const view = gaugeView(gauge);
    assert.equal(view.secondary, 'cache 50% · price unknown');
    assert.match(view.ariaValueText, /price unknown/);
    // A priced session reads as before, without the hint.
    const priced = contextGauge({ ...numbers, sessionCostUsd: 1.5 });
    assert.equal(priced.reading.secondary, 'cache 50% · $1.50');
    assert.ok(!priced.reading.tooltip.includes(PRICE_SETTING));
  });

  it('the breakdown document says it too, with the next step', () => {
    const text = renderContextBreakdown({ gauge: contextGauge({ ...numbers, unpricedRequests: 1 }), savings: undefined, sessionId: 's', model: 'local-llama', at: new Date(0) });
    assert.match(text, /- Session cost so far: price unknown\n {2}- 1 request to a model with no known price: set its price .* in "evergreen\.pricing"/);
  });

  it('the archived transcript header and a subagent line and card say "price unknown"', async () => {
    const meta: SessionMeta = {
      id: 's1',
      title: 't',
      model: 'local-llama',
      workspace: undefined,
      createdAt: '2025-01-01T00:00:00Z',
      updatedAt: '2025-01-01T00:00:00Z',
      messageCount: 0,
      totals: { ...usage, costUsd: 0, unpricedRequests: 2 },
    };
    const finished = { type: 'subagent_finished', toolUseId: 'tu1', childId: 'c1', status: 'done', report: 'r', usage, costUsd: 0, unpricedRequests: 2, toolCalls: 1, elapsedMs: 1000 } as const;
    const { type: _type, ...data } = finished;
    const rendered = await renderTranscript(meta, [{ line: 0, entry: { type: 'event', ts: 't1', name: 'subagent_finished', data } }]);
    assert.match(rendered.text, /cache write · cost price unknown \(2 requests to a model with no known price: set its price .*"evergreen\.pricing".*\)/);
    assert.match(rendered.text, /\*\*Subagent done\*\* .* · price unknown · t1/);
    const card = applySubagentEvent(undefined, { ...finished, turnId: 't' });
    assert.ok(card);
    assert.equal(subagentFigures(card), '1 tool call · 1.0 s · price unknown');
  });

  describe('a session on a model with no price (CLI against the fake API)', function () {
    this.timeout(30_000);
    let fake: FakeAnthropic;
    let workspace: string;
    let storage: string;
    beforeEach(async () => {
      fake = await startFakeAnthropic();
      workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'evergreen-cost-ws-'));
      storage = fs.mkdtempSync(path.join(os.tmpdir(), 'evergreen-cost-store-'));
    });
    afterEach(async () => {
      await fake.close();
      fs.rmSync(workspace, { recursive: true, force: true });
      fs.rmSync(storage, { recursive: true, force: true });
    });
    const cli = (args: string[]) => runCliCaptured(['--workspace', workspace, '--storage-dir', storage, ...args], { ANTHROPIC_API_KEY: fake.apiKey, ANTHROPIC_BASE_URL: fake.url, PATH: process.env.PATH }, workspace);

    it('counts its requests as unpriced in the event, the transcript and meta.json, prints "price unknown", and a resumed session keeps the count', async () => {
      fake.setModel('claude-local-experiment', { max_input_tokens: 200_000, max_tokens: 8_000 });
      fake.enqueue(reply.text('Hello.'));
      const run = await cli(['--model', 'claude-local-experiment', '--output-format', 'stream-json', '-p', 'hi']);
      assert.equal(run.code, EXIT.ok, run.stderr);
      const used = run.events.filter((event) => event.type === 'usage');
      assert.equal(used.length, 1);
      const [event] = used;
      assert.ok(event?.type === 'usage');
      assert.equal(event.priceUnknown, true);
      assert.equal(event.costUsd, 0);
      assert.equal(event.sessionUnpricedRequests, 1);
      const [id] = fs.readdirSync(path.join(storage, 'sessions'));
      const dir = path.join(storage, 'sessions', id!);
      const meta = JSON.parse(fs.readFileSync(path.join(dir, 'meta.json'), 'utf8')) as SessionMeta;
      assert.equal(meta.totals.unpricedRequests, 1);
      const entries = fs.readFileSync(path.join(dir, 'transcript.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { type: string; priceUnknown?: boolean });
      assert.deepEqual(entries.filter((entry) => entry.type === 'usage').map((entry) => entry.priceUnknown), [true]);

      fake.enqueue(reply.text('Again.'));
      const resumed = await cli(['--model', 'claude-local-experiment', '--resume', id!, '-p', 'more']);
      assert.equal(resumed.code, EXIT.ok, resumed.stderr);
      assert.match(resumed.stderr, new RegExp(`\\[session ${id} · price unknown\\]\\n$`));
      const after = JSON.parse(fs.readFileSync(path.join(dir, 'meta.json'), 'utf8')) as SessionMeta;
      assert.equal(after.totals.unpricedRequests, 2);
    });

    it('a priced model keeps its dollar figure and records nothing unpriced', async () => {
      fake.enqueue(reply.text('Hello.'));
      const run = await cli(['--model', 'claude-sonnet-4-6', '-p', 'hi']);
      assert.equal(run.code, EXIT.ok, run.stderr);
      assert.match(run.stderr, /\[session \S+ · \$\d+\.\d{4}\]\n$/);
      const [id] = fs.readdirSync(path.join(storage, 'sessions'));
      const meta = JSON.parse(fs.readFileSync(path.join(storage, 'sessions', id!, 'meta.json'), 'utf8')) as SessionMeta;
      assert.equal(meta.totals.unpricedRequests, undefined);
    });
  });
});
