import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentEvent } from '../../src/core/agent/events';
import { EXIT } from '../../src/cli/run';
import { blocksOf, toolResultText } from '../../src/core/model/content';
import type { MessageParam } from '../../src/core/model/messages';
import { readTranscript } from '../../src/core/storage/sessionStore';
import { RECALL_TOOL } from '../../src/core/tools/recallRef';
import { BACKENDS, say, textOfMessage, type FakeBackend, type NeutralReply, type SentRequest } from '../support/backends';
import { useCliFixture } from '../support/cliFixture';

const WINDOW = 40_000;
const STEPS = 150;
const TEST_STEP = 3;
const PROMPT = 'Run the tests once, then review every module; at the end tell me exactly what the first test run printed.';

const NOTES = 'Reviewing the next module: its exports, their names and values, and whether any of them repeat another module. '.repeat(12);

function lastUserText(request: SentRequest): string {
  const last = request.messages.at(-1);
  return last?.role === 'user' ? textOfMessage(last) : '';
}

/** The text of tool result `id` in a request's messages, if it is there. */
function resultIn(messages: readonly MessageParam[], id: string): string | undefined {
  for (const message of messages) for (const block of blocksOf(message)) if (block.type === 'tool_result' && block.tool_use_id === id) return toolResultText(block);
  return undefined;
}

function moduleSource(index: number): string {
  const lines = [`// module ${index}`];
  for (let line = 0; line < 60; line++) lines.push(`export const value${index}_${line} = ${JSON.stringify(`entry ${line} of module ${index}`)};`);
  return lines.join('\n') + '\n';
}

// One back end: what is tested is the session's history, not the wire format (the context suites run both).
const backend = BACKENDS[0]!;

describe(`recall end to end through the CLI (40k window, fake API) [${backend.name}]`, function () {
  this.timeout(120_000);
  const fixture = useCliFixture(backend);
  let fake: FakeBackend;
  let workspace: string;
  let storage: string;

  beforeEach(async () => {
    ({ fake, workspace, storage } = fixture());
    fake.setModel(fake.model, { window: WINDOW, maxOutput: 64_000 });
    fs.mkdirSync(path.join(workspace, 'src'));
    for (let index = 1; index <= 40; index++) fs.writeFileSync(path.join(workspace, 'src', `module${index}.ts`), moduleSource(index));
    // A test command whose output cannot be reproduced: it prints a fresh random token every run.
    fs.writeFileSync(
      path.join(workspace, 'test.js'),
      "const token = Math.random().toString(36).slice(2);\nfor (let i = 1; i <= 120; i++) console.log(`test ${i} \"quoted\" \\\\ ok ${i % 7 === 0 ? 'FLAKY ' + token : ''}`);\nconsole.log('run token ' + token);\n",
    );
  });

  it(`recalls step ${TEST_STEP}'s test output exactly at step ${STEPS}, after two compactions, and stores a reference, not a copy`, async () => {
    let step = 0;
    let summaries = 0;
    fake.setResponder((request): NeutralReply => {
      if (lastUserText(request).includes('CONTEXT COMPACTION')) {
        summaries++;
        return say.text(`<analysis>Walked the history.</analysis><summary>1. Primary request: run the tests, review every module.\n8. Current work: reviewed modules up to step ${step}.\n9. Next step: continue.</summary>`);
      }
      step++;
      const id = `toolu_step_${step}`;
      if (step === TEST_STEP) return say.toolUse('run_shell', { command: 'node test.js' }, { id, preamble: 'Running the tests.' });
      if (step === STEPS) return say.toolUse(RECALL_TOOL, { id: `toolu_step_${TEST_STEP}` }, { id, preamble: 'Recalling the first test run.' });
      if (step > STEPS) return say.text('Done: the first test run is above.');
      // A talkative model: its notes, not the cleared results, are what fills the window until a summary.
      return say.toolUse('read_file', { path: `src/module${(step % 40) + 1}.ts` }, { id, preamble: `Step ${step}: ${NOTES}` });
    });

    const run = await fixture().run(['--context-window', String(WINDOW), '--output-format', 'stream-json', '--yes', '-p', PROMPT]);
    assert.equal(run.code, EXIT.ok, run.stderr);
    assert.deepEqual(fake.rejectedRequests(), []);
    const posts = fake.requests();
    assert.deepEqual(posts.filter((request) => request.status !== 200).map((request) => request.status), []);

    // The test output as the model first saw it (the request right after step 3).
    const original = posts.map((request) => resultIn(request.messages, `toolu_step_${TEST_STEP}`)).find((text) => text !== undefined);
    assert.ok(original, 'step 3 ran');
    assert.match(original, /run token [a-z0-9]+/);
    assert.ok(original.length > 2_000, `a result worth a reference (${original.length} characters)`);

    // Two compactions (at least) happened before step 150, and step 3's result was gone from the view by then.
    const compactions = run.events.filter((event): event is Extract<AgentEvent, { type: 'compaction' }> => event.type === 'compaction' && event.trigger !== 'drop');
    assert.ok(compactions.length >= 2, `${compactions.length} compactions`);
    assert.ok(summaries >= 2);
    const recallRequest = posts.find((request) => resultIn(request.messages, `toolu_step_${STEPS}`) !== undefined);
    assert.ok(recallRequest, 'the recall ran and its result was sent');
    const askedAt = posts[posts.indexOf(recallRequest) - 1]!;
    assert.equal(resultIn(askedAt.messages, `toolu_step_${TEST_STEP}`), undefined, 'step 3 was no longer in the view when the model recalled it');
    // Exactly the original output, byte for byte.
    assert.equal(resultIn(recallRequest.messages, `toolu_step_${STEPS}`), original);

    // The transcript holds the output once: the recall is a reference, which reading the transcript resolves.
    const sessionId = run.events.find((event): event is Extract<AgentEvent, { type: 'session_started' }> => event.type === 'session_started')!.sessionId;
    const file = path.join(storage, 'sessions', sessionId, 'transcript.jsonl');
    const token = /run token ([a-z0-9]+)/.exec(original)![1]!;
    assert.equal(fs.readFileSync(file, 'utf8').split(`run token ${token}`).length - 1, 1, 'one copy of the output on disk');
    const transcript = await readTranscript(file);
    assert.deepEqual(transcript.problems, []);
    const recalled = transcript.entries.flatMap((entry) => (entry.type === 'message' ? [resultIn([entry.message], `toolu_step_${STEPS}`)] : [])).find((text) => text !== undefined);
    assert.equal(recalled, original);

    // A resumed session sends the recalled result as the model saw it, not the transcript's stub.
    fake.setResponder(() => say.text('It printed the run above.'));
    const before = fake.requests().length;
    const resumed = await fixture().run(['--context-window', String(WINDOW), '--output-format', 'stream-json', '--yes', '--resume', sessionId, '-p', 'What did it print?']);
    assert.equal(resumed.code, EXIT.ok, resumed.stderr);
    const first = fake.requests()[before]!;
    assert.equal(resultIn(first.messages, `toolu_step_${STEPS}`), original);
  });
});
