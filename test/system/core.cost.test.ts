/**
 * Unknown prices (issue: rough edges): a model with no known price must not read as "$0.00", which
 * looks like a real figure. One definition (src/core/model/cost.ts) is used by the gauge, the
 * breakdown document, the session picker, the CLI, the transcript and the subagent cards.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EXIT } from '../../src/cli/run';
import type { SessionMeta } from '../../src/core/storage/sessionStore';
import { reply, type FakeAnthropic } from '../fake-anthropic/server';
import { useCliFixture } from '../support/cliFixture';

describe('unknown prices', () => {
  describe('a session on a model with no price (CLI against the fake API)', function () {
    this.timeout(30_000);
    const fixture = useCliFixture('anthropic');
    let fake: FakeAnthropic;
    let storage: string;
    beforeEach(async () => {
      ({ fake, storage } = fixture());
    });
    const cli = (args: string[]) => fixture().run([...args]);

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
