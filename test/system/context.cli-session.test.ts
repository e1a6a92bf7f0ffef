import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AgentEvent } from '../../src/core/agent/events';
import { EXIT } from '../../src/cli/run';
import { type CapturedRun } from '../support/cliCapture';
import { blocksOf } from '../../src/core/model/content';
import { readTranscript } from '../../src/core/storage/sessionStore';
import { createReadFileTool } from '../../src/core/tools/readFile';
import { NodeWorkspace } from '../../src/core/workspace/workspace';
import { BACKENDS, say, textOfMessage, type FakeBackend, type NeutralReply, type SentRequest } from '../support/backends';
import { useCliFixture } from '../support/cliFixture';

const WINDOW = 40_000;
const FIRST_PROMPT = 'Review every module under src/ and report what each exports. The release codename is BLUE-HERON.';
const SECOND_PROMPT = 'Now check the last three modules again and tell me the codename.';

/** The newest text of the last user message: how the scripted model tells a summary request apart. */
function lastUserText(request: SentRequest): string {
  const last = request.messages.at(-1);
  return last?.role === 'user' ? textOfMessage(last) : '';
}

function moduleSource(index: number): string {
  const lines = [`// module ${index}`];
  for (let line = 0; line < 120; line++) lines.push(`export const value${index}_${line} = ${JSON.stringify(`entry ${line} of module ${index}`)};`);
  return lines.join('\n') + '\n';
}

// The same suite against each back end (the test matrix of issue 9): on the OpenAI one the fake
// enforces the window with its own tokenizer (o200k), which the engine does not share.
for (const backend of BACKENDS) describe(`context engine end to end through the CLI (40k window, fake API) [${backend.name}]`, function () {
  this.timeout(120_000);
  const fixture = useCliFixture(backend);
  let fake: FakeBackend;
  let workspace: string;
  let storage: string;

  beforeEach(async () => {
    ({ fake, workspace, storage } = fixture());
    fake.setModel(fake.model, { window: WINDOW, maxOutput: 64_000 });
    fs.mkdirSync(path.join(workspace, 'src'));
    for (let index = 1; index <= 30; index++) fs.writeFileSync(path.join(workspace, 'src', `module${index}.ts`), moduleSource(index));
    fs.writeFileSync(path.join(workspace, 'build.log'), Array.from({ length: 1500 }, (_, line) => `[build] step ${line}: compiled chunk ${line} ok`).join('\n') + '\n');
  });

  function cli(args: string[], storageDir: string): Promise<CapturedRun> {
    return fixture().run(['--context-window', String(WINDOW), '--output-format', 'stream-json', '--yes', ...args], { storage: storageDir });
  }

  /** A scripted model: 45 tool steps for the first prompt, 3 for the second; summaries on request. */
  function scriptModel(onSecondPromptRequest: (request: SentRequest) => void): { summaryRequests: number } {
    const stats = { summaryRequests: 0 };
    let step = 0;
    let secondStep = 0;
    let sawSecond = false;
    fake.setResponder((request): NeutralReply => {
      const text = lastUserText(request);
      if (text.includes('CONTEXT COMPACTION')) {
        stats.summaryRequests++;
        return say.text(`<analysis>Walked the history.</analysis><summary>1. Primary request: review every module, codename BLUE-HERON.\n8. Current work: reviewed modules up to step ${step}.\n9. Next step: continue with the next module.</summary>`);
      }
      if (text.includes(SECOND_PROMPT) && !sawSecond) {
        sawSecond = true;
        onSecondPromptRequest(request);
      }
      if (sawSecond) {
        secondStep++;
        if (secondStep <= 3) return say.toolUse('read_file', { path: `src/module${27 + secondStep}.ts` }, { id: `toolu_second_${secondStep}`, preamble: `Re-checking module ${27 + secondStep}.` });
        return say.text('The codename is BLUE-HERON.');
      }
      step++;
      if (step > 45) return say.text('Reviewed all modules: each exports 120 constants.');
      const id = `toolu_step_${step}`;
      if (step === 13) return say.toolUse('run_shell', { command: 'cat build.log' }, { id, preamble: 'Checking the build log.' });
      if (step === 30) return say.toolUse('compact', { focus: 'which modules are reviewed' }, { id, preamble: 'Compacting before the second half.' });
      if (step % 5 === 0) return say.toolUse('grep_search', { pattern: 'value', path: 'src' }, { id, preamble: 'Searching.' });
      if (step % 7 === 0) return say.toolUse('read_file', { path: `src/module${Math.max(1, Math.floor(step / 2))}.ts` }, { id, preamble: 'Re-reading.' });
      return say.toolUse('read_file', { path: `src/module${((step - 1) % 30) + 1}.ts` }, { id, preamble: `Step ${step}.` });
    });
    return stats;
  }

  it('finishes a long task with zero rejected requests, a complete transcript, readable persisted outputs and an exact resume', async () => {
    let snapshot: { dir: string; body: unknown } | undefined;
    const stats = scriptModel((request) => {
      // The moment the original session sends the second prompt's first request: copy its storage.
      const dir = fixture().tempDir('evergreen-long-copy-');
      fs.cpSync(storage, dir, { recursive: true });
      snapshot = { dir, body: structuredClone(request.raw) };
    });

    const run = await cli(['-p', FIRST_PROMPT, '-p', SECOND_PROMPT], storage);
    assert.equal(run.code, EXIT.ok, run.stderr);

    // Zero rejected or invalid requests: every model request was answered 200 (the fake counts
    // the window with its own tokenizer, so none went over it either).
    const posts = fake.requests();
    assert.deepEqual(posts.filter((request) => request.status !== 200).map((request) => request.status), []);
    assert.deepEqual(fake.rejectedRequests(), []);
    // ...while the window was really the limit: the largest prompt filled most of it. OpenAI charges
    // no cache-write premium and discounts reads less, so clearing repays sooner and the peak is lower.
    const peak = Math.max(...posts.map((request) => request.promptTokens));
    const peakShare = backend.name === 'openai' ? 0.5 : 0.6;
    assert.ok(peak > WINDOW * peakShare && peak < WINDOW, `largest prompt ${peak} of ${WINDOW}`);
    // The window really was too small for the whole task: inside the first turn the engine cleared
    // old tool results (tier 3, batched) and ran the compaction the model asked for with its tool.
    const firstTurnEnd = run.events.findIndex((event) => event.type === 'turn_finished');
    const inFirstTurn = run.events.slice(0, firstTurnEnd);
    const compactions = run.events.filter((event): event is Extract<AgentEvent, { type: 'compaction' }> => event.type === 'compaction');
    assert.ok(inFirstTurn.some((event) => event.type === 'compaction' && event.trigger === 'tool'), 'the compact tool compacted inside the 45-call turn');
    assert.ok(inFirstTurn.some((event) => event.type === 'tier' && event.tier === 'microcompact'), 'old tool results were cleared inside the turn');
    assert.ok(stats.summaryRequests >= compactions.filter((event) => event.trigger !== 'drop').length);
    const final = run.events.filter((event): event is Extract<AgentEvent, { type: 'turn_finished' }> => event.type === 'turn_finished');
    assert.deepEqual(final.map((event) => event.stopReason), ['end_turn', 'end_turn']);

    // Every message ever sent is in transcript.jsonl: every tool call, result and prompt.
    const sessionId = run.events.find((event): event is Extract<AgentEvent, { type: 'session_started' }> => event.type === 'session_started')!.sessionId;
    const transcriptFile = path.join(storage, 'sessions', sessionId, 'transcript.jsonl');
    const transcript = await readTranscript(transcriptFile);
    assert.deepEqual(transcript.problems, []);
    const stored = new Set<string>();
    for (const entry of transcript.entries) {
      if (entry.type !== 'message') continue;
      for (const block of blocksOf(entry.message)) {
        if (block.type === 'tool_use') stored.add(`use:${block.id}`);
        else if (block.type === 'tool_result') stored.add(`result:${block.tool_use_id}`);
        else if (block.type === 'text' && entry.message.role === 'user') stored.add(`prompt:${block.text}`);
      }
    }
    for (const post of posts) {
      for (const message of post.messages) {
        for (const block of blocksOf(message)) {
          if (block.type === 'tool_use') assert.ok(stored.has(`use:${block.id}`), `tool_use ${block.id} missing from the transcript`);
          if (block.type === 'tool_result') assert.ok(stored.has(`result:${block.tool_use_id}`), `tool_result ${block.tool_use_id} missing from the transcript`);
        }
      }
    }
    assert.ok(stored.has(`prompt:${FIRST_PROMPT}`) && stored.has(`prompt:${SECOND_PROMPT}`));
    // The compaction boundaries are in the transcript too.
    assert.equal(transcript.entries.filter((entry) => entry.type === 'compaction').length, compactions.length);

    // Every persisted output reads back, whole, through the real read_file tool with offset/limit.
    const persisted = transcript.entries.filter((entry): entry is Extract<typeof entry, { type: 'persisted_output' }> => entry.type === 'persisted_output');
    assert.ok(persisted.length >= 1, 'the 40 KB build log was persisted');
    const toolResultsDir = path.join(storage, 'sessions', sessionId, 'tool-results');
    const readFile = createReadFileTool();
    const ws = new NodeWorkspace(workspace, [toolResultsDir]);
    const shellOutput = persisted.find((entry) => entry.toolName === 'run_shell');
    assert.ok(shellOutput, 'the run_shell output was persisted');
    // The whole output, middle included: nothing of the 67 KB log was lost.
    assert.ok(fs.readFileSync(shellOutput.file, 'utf8').includes(fs.readFileSync(path.join(workspace, 'build.log'), 'utf8').trimEnd()));
    for (const entry of persisted) {
      const original = fs.readFileSync(entry.file, 'utf8');
      assert.equal(Buffer.byteLength(original), entry.bytes);
      const page = await readFile.run(readFile.parse({ path: entry.file, offset: 1000, limit: 3 }), {
        workspace: ws,
        signal: new AbortController().signal,
        onProgress: () => undefined,
        approve: async () => ({ approved: false }),
      });
      const expected = original.split('\n').slice(999, 1002);
      assert.deepEqual(
        page.content.split('\n').slice(0, 3).map((line) => line.replace(/^\s*\d+\t/, '')),
        expected,
      );
    }

    // Resume reproduces the next request body byte for byte: the copy taken when the original sent
    // the second prompt, cut back to before that prompt, resumed with the same prompt.
    assert.ok(snapshot, 'the second prompt was sent');
    const copyTranscript = path.join(snapshot.dir, 'sessions', sessionId, 'transcript.jsonl');
    const lines = fs.readFileSync(copyTranscript, 'utf8').split('\n');
    const cut = lines.findIndex((line) => line.includes(JSON.stringify(SECOND_PROMPT)));
    assert.ok(cut > 0);
    fs.writeFileSync(copyTranscript, lines.slice(0, cut).join('\n') + '\n');
    fs.rmSync(path.join(snapshot.dir, 'sessions', sessionId, 'owner.lock'), { force: true });
    const before = fake.requests().length;
    let resumedBody: unknown;
    fake.setResponder((request) => {
      resumedBody ??= structuredClone(request.raw);
      return say.text('The codename is BLUE-HERON.');
    });
    const resumed = await cli(['--resume', sessionId, '-p', SECOND_PROMPT], snapshot.dir);
    assert.equal(resumed.code, EXIT.ok, resumed.stderr);
    assert.ok(fake.requests().length > before);
    // Byte for byte, once the copy's storage folder (named in the summary's transcript path) is mapped back.
    assert.equal(JSON.stringify(resumedBody).split(snapshot.dir).join(storage), JSON.stringify(snapshot.body));
  });

  it('compacts on "/compact [focus]" as a prompt, like the chat does', async () => {
    fake.setResponder((request) =>
      lastUserText(request).includes('CONTEXT COMPACTION') ? say.text('<analysis>a</analysis><summary>1. Primary request: say hello.</summary>') : say.text('Hello!'),
    );
    const first = await cli(['-p', 'Say hello'], storage);
    assert.equal(first.code, EXIT.ok, first.stderr);
    const sessionId = first.events.find((event): event is Extract<AgentEvent, { type: 'session_started' }> => event.type === 'session_started')!.sessionId;
    const compacted = await cli(['--resume', sessionId, '-p', '/compact the greetings'], storage);
    assert.equal(compacted.code, EXIT.ok, compacted.stderr);
    assert.match(compacted.stderr, /Compacted \(manual\)/);
    const instruction = lastUserText(fake.requests().at(-1)!);
    assert.match(instruction, /focus on: the greetings/);
    const boundary = compacted.events.find((event): event is Extract<AgentEvent, { type: 'compaction' }> => event.type === 'compaction');
    assert.ok(boundary);
    assert.equal(boundary.trigger, 'manual');
    const transcript = await readTranscript(path.join(storage, 'sessions', sessionId, 'transcript.jsonl'));
    const entry = transcript.entries.find((candidate) => candidate.type === 'compaction');
    assert.ok(entry && entry.type === 'compaction');
    assert.equal(entry.compaction.focus, 'the greetings');
  });

  it('refuses a second writer on a session that another live process holds', async () => {
    scriptModel(() => undefined);
    fake.setResponder(() => say.text('ok'));
    const first = await cli(['-p', 'hello'], storage);
    assert.equal(first.code, EXIT.ok, first.stderr);
    const sessionId = first.events.find((event): event is Extract<AgentEvent, { type: 'session_started' }> => event.type === 'session_started')!.sessionId;
    // The lock is released on exit: resuming works.
    assert.equal((await cli(['--resume', sessionId, '-p', 'again'], storage)).code, EXIT.ok);
    // A live owner (pid 1 always exists) makes the resume fail with a clear message, touching nothing.
    const lock = path.join(storage, 'sessions', sessionId, 'owner.lock');
    fs.writeFileSync(lock, JSON.stringify({ pid: 1, host: os.hostname(), since: new Date().toISOString() }));
    const transcriptBefore = fs.readFileSync(path.join(storage, 'sessions', sessionId, 'transcript.jsonl'), 'utf8');
    const refused = await cli(['--resume', sessionId, '-p', 'third'], storage);
    assert.equal(refused.code, EXIT.failed);
    assert.match(refused.stderr, /open in another Evergreen window or process \(pid 1\)/);
    assert.equal(fs.readFileSync(path.join(storage, 'sessions', sessionId, 'transcript.jsonl'), 'utf8'), transcriptBefore);
  });
});
