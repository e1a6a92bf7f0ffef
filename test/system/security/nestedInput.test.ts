// Issue 18 item 3, "nested input": a tool input nested thousands of levels deep overflowed
// JSON.stringify when the call was recorded, so the transcript stopped saving (the store swallows
// the failure to keep the chat going) while the tool still ran. An input deeper than
// MAX_TOOL_INPUT_DEPTH is now refused before it runs, with a clear error, and the refusal is
// recorded like any tool error.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentEvent } from '../../../src/core/agent/events';
import { EXIT } from '../../../src/cli/run';
import { MAX_TOOL_INPUT_DEPTH, nestedDeeperThan } from '../../../src/core/tools/toolInput';
import { createToolRegistry } from '../../../src/core/tools/registry';
import { makeTempDirs } from '../../support/toolFixtures';
import { reply, type FakeAnthropic } from '../../fake-anthropic/server';
import { useCliFixture } from '../../support/cliFixture';

const nested = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('security: a tool input nested too deeply is refused before it runs, and recorded', function () {
  this.timeout(60_000);
  const fixture = useCliFixture('anthropic');
  let fake: FakeAnthropic;
  let workspace: string;
  let storage: string;
  beforeEach(async () => {
    ({ fake, workspace, storage } = fixture());
  });

  for (const depth of [MAX_TOOL_INPUT_DEPTH + 1, 100_000]) {
    it(`write_file with a parameter nested ${depth} levels deep: not run, an error for the model, and the transcript has the call and its refusal`, async () => {
      const raw = `{"path": "pwned.txt", "content": "x", "extra": ${nested(depth - 1)}}`;
      fake.enqueue(
        reply.message([{ type: 'tool_use', id: 'toolu_deep', name: 'write_file', input: { path: 'pwned.txt', content: 'x' } }], { stream: { rawToolInputJson: [raw], jsonChunkChars: 1 << 16 } }),
        reply.text('Understood.'),
      );
      const run = await fixture().run(['--yes', '--output-format', 'stream-json', '-p', 'write it']);
      assert.equal(run.code, EXIT.ok, run.stderr);
      assert.equal(fs.existsSync(path.join(workspace, 'pwned.txt')), false, 'the tool ran');
      const finished = run.events.filter((event): event is Extract<AgentEvent, { type: 'tool_call_finished' }> => event.type === 'tool_call_finished');
      assert.equal(finished.length, 1);
      assert.equal(finished[0]!.isError, true);
      assert.match(finished[0]!.content, new RegExp(`more than ${MAX_TOOL_INPUT_DEPTH} levels deep`));
      assert.doesNotMatch(run.stderr, /not being saved|could not write|transcript/i, run.stderr);

      const [id] = fs.readdirSync(path.join(storage, 'sessions'));
      const lines = fs.readFileSync(path.join(storage, 'sessions', id!, 'transcript.jsonl'), 'utf8').trim().split('\n');
      const blocks = lines
        .map((line) => JSON.parse(line) as { type: string; message?: { content: Array<Record<string, unknown>> } })
        .flatMap((entry) => (entry.type === 'message' ? (entry.message?.content ?? []) : []));
      const call = blocks.find((block) => block.type === 'tool_use' && block.id === 'toolu_deep');
      assert.deepEqual(call?.input, {}, 'the call is recorded, without the deep input');
      const result = blocks.find((block) => block.type === 'tool_result' && block.tool_use_id === 'toolu_deep');
      assert.equal(result?.is_error, true);
      assert.match(String(result?.content), /levels deep/);
      // The conversation went on with a history the API accepts.
      assert.equal(fake.messageRequests().length, 2);
    });
  }

  it('the registry refuses a deep input from any caller before the tool parses or runs it, and takes 64 levels', async () => {
    const dirs = makeTempDirs();
    try {
      const tools = createToolRegistry({ trusted: true });
      const controller = new AbortController();
      const ctx = { workspace: dirs.workspace, signal: controller.signal, onProgress: () => undefined, approve: async () => ({ approved: true as const }) };
      const deep = JSON.parse(`{"path": "deep.txt", "content": "x", "extra": ${nested(MAX_TOOL_INPUT_DEPTH)}}`) as unknown;
      const refused = await tools.executeToolCall('write_file', deep, ctx);
      assert.equal(refused.isError, true);
      assert.match(refused.content, /^Invalid input for write_file: .*levels deep/);
      assert.equal(fs.existsSync(path.join(dirs.root, 'deep.txt')), false);
      const atLimit = JSON.parse(`{"path": "ok.txt", "content": "x", "extra": ${nested(MAX_TOOL_INPUT_DEPTH - 1)}}`) as unknown;
      assert.equal(nestedDeeperThan(atLimit), false);
      const ran = await tools.executeToolCall('write_file', atLimit, ctx);
      assert.match(ran.content, /^Created ok\.txt/);
    } finally {
      dirs.cleanup();
    }
  });
});
