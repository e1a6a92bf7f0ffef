/**
 * The server's real window is smaller than the one assumed (issue 9: a local server run with
 * `-c 8192` behind a model Evergreen assumes has 128k), through each real back end: the first
 * "prompt is too long" names the server's window, the engine learns it (recorded, a notice shown
 * once, the gauge on the new window) and the turn finishes; from then on it compacts for the
 * learned window, so the server refuses nothing more — also after a resume.
 * (Adapted from the review's reproduction, /tmp/rv9/provider.tooLong.test.ts.)
 */
import { said, worded } from '../support/said';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentEvent } from '../../src/core/agent/events';
import { startAgentSession } from '../../src/core/agent/factory';
import { persistThresholdFor } from '../../src/core/context/defaults';
import { FileSessionStore } from '../../src/core/storage/sessionStore';
import { applyEvent, emptyChat } from '../../src/webview/chatModel';
import { BACKENDS, say, textOfMessage, type FakeBackend, type NeutralReply, type SentRequest } from '../support/backends';
import { useCliFixture } from '../support/cliFixture';

const REAL_WINDOW = 9_000;
const ASSUMED = 200_000;
const NOTICE = "The server's context window is 9,000 tokens, smaller than the 200,000 assumed; Evergreen now compacts for 9,000. Set --context-window to 9000 to skip this.";

interface Entry {
  type: string;
  window?: number;
  assumed?: number;
}

for (const backend of BACKENDS) describe(`too long for the server's real window [${backend.name}]`, function () {
  this.timeout(60_000);
  const fixture = useCliFixture(backend);
  let fake: FakeBackend;
  let workspace: string;
  let storage: string;

  beforeEach(async () => {
    ({ fake, workspace, storage } = fixture());
    fake.setModel(fake.model, { window: REAL_WINDOW, maxOutput: 64_000 });
  });

  /** `parts` files of `lines` lines each; the model reads them one at a time, then says so. */
  function readParts(parts: number, lines: number, prefix: string): void {
    for (let index = 1; index <= parts; index++) {
      fs.writeFileSync(path.join(workspace, `${prefix}${index}.txt`), Array.from({ length: lines }, (_, line) => `${prefix} ${index} line ${line}: the quick brown fox jumps`).join('\n') + '\n');
    }
    let step = 0;
    fake.setResponder((request): NeutralReply => {
      const last = request.messages.at(-1);
      if (last?.role === 'user' && textOfMessage(last).includes('CONTEXT COMPACTION')) {
        return say.text('<summary>1. Primary request: read every part.\n9. Next step: read the next part.</summary>');
      }
      step++;
      return step <= parts ? say.toolUse('read_file', { path: `${prefix}${step}.txt` }, { id: `toolu_${prefix}_${step}` }) : say.text(`Read all ${parts} parts.`);
    });
  }

  function transcriptOf(id: string): Entry[] {
    return fs.readFileSync(path.join(storage, 'sessions', id, 'transcript.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Entry);
  }

  async function run(prompt: string, events: AgentEvent[], resumeId?: string) {
    const started = await startAgentSession({
      // The engine is told 200,000: only the server's refusal shows the real window. The sandbox is
      // off so the tool definitions keep the size the 9k-window figures below were measured with.
      config: { ...fake.config({ contextWindow: ASSUMED }), sandbox: { enabled: false, allowedDomains: [] } },
      workspaceRoot: workspace,
      store: new FileSessionStore(storage),
      approver: { requestApproval: async () => ({ approved: true }) },
      onEvent: (event) => events.push(event),
      ...(resumeId ? { resumeId } : {}),
    });
    const outcome = await started.session.send(prompt);
    const trace = JSON.stringify(events.filter((event) => event.type === 'error')) + JSON.stringify(fake.requests().map((r) => [r.status, r.promptTokens, r.maxTokens, r.messages.length]));
    assert.equal(outcome, 'end_turn', trace);
    assert.ok(!events.some((event) => event.type === 'error'), trace);
    return { started, trace };
  }

  function assertLearnedOnce(events: AgentEvent[], entries: Entry[]): void {
    const notices = events.filter((event) => event.type === 'context_window_learned');
    assert.equal(notices.length, 1, JSON.stringify(notices));
    const notice = notices[0]!;
    assert.ok(notice.type === 'context_window_learned');
    assert.equal(notice.window, REAL_WINDOW);
    assert.equal(notice.assumed, ASSUMED);
    assert.equal(said(notice.message), NOTICE);
    // The chat shows it as one info notice.
    const chat = emptyChat();
    for (const event of worded(events)) applyEvent(chat, event);
    const shown = chat.items.filter((item) => item.kind === 'notice' && item.text === NOTICE);
    assert.equal(shown.length, 1);
    assert.ok(shown[0]!.kind === 'notice' && shown[0]!.level === 'info');
    const learned = entries.filter((entry) => entry.type === 'window_learned');
    assert.equal(learned.length, 1);
    assert.deepEqual({ window: learned[0]!.window, assumed: learned[0]!.assumed }, { window: REAL_WINDOW, assumed: ASSUMED });
    // The gauge: on the assumed window before the refusal, on the learned one right after the notice and ever since.
    const gauges = events.flatMap((event) => (event.type === 'context' ? [event.gauge] : []));
    assert.equal(gauges[0]!.window, ASSUMED);
    const after = events.slice(events.indexOf(notice) + 1).flatMap((event) => (event.type === 'context' ? [event.gauge] : []));
    assert.ok(after.length > 0, 'no gauge after the notice');
    assert.ok(after.every((gauge) => gauge.window === REAL_WINDOW), JSON.stringify(after.map((gauge) => gauge.window)));
  }

  it('learns the window from the refusal, tells the user once, and never needs another refusal (also after a resume)', async () => {
    readParts(12, 60, 'part');
    const events: AgentEvent[] = [];
    const { started, trace } = await run('Read part1.txt to part12.txt, one at a time.', events);
    started.handle.close();

    const rejected = fake.rejectedRequests();
    assert.equal(rejected.length, 1, `one refusal teaches the window, no more: ${trace}`);
    const refusedAt = fake.requests().findIndex((request) => request.status !== 200);
    const after = fake.requests().slice(refusedAt + 1);
    assert.ok(after.length > 0 && after.every((request) => request.status === 200), trace);
    // Every request after the learning leaves room for its reply inside the server's window.
    for (const request of after) assert.ok(request.promptTokens + (request.maxTokens ?? 0) <= REAL_WINDOW, trace);
    const entries = transcriptOf(started.handle.id);
    const anchors = entries.filter((entry) => entry.type === 'token_anchor');
    assert.ok(anchors.length >= 1, 'no token_anchor: the server\'s count did not reach the engine');
    assertLearnedOnce(events, entries);

    // Resume: the fold rebuilds the learned budget; the notice is replayed, not repeated; nothing is refused.
    const resumedEvents: AgentEvent[] = [];
    readParts(6, 60, 'more');
    const before = fake.requests().length;
    const resumed = await run('Read more1.txt to more6.txt, one at a time.', resumedEvents, started.handle.id);
    resumed.started.handle.close();
    assert.equal(resumed.started.session.context.budget?.window, REAL_WINDOW);
    assert.equal(resumed.started.replay.filter((event) => event.type === 'context_window_learned').length, 1);
    const replayed = emptyChat();
    for (const event of worded([...resumed.started.replay, ...resumedEvents])) applyEvent(replayed, event);
    assert.equal(replayed.items.filter((item) => item.kind === 'notice' && item.text === NOTICE).length, 1, 'the resumed chat shows the notice once');
    assert.equal(resumedEvents.filter((event) => event.type === 'context_window_learned').length, 0);
    const gauges = resumedEvents.flatMap((event) => (event.type === 'context' ? [event.gauge] : []));
    assert.ok(gauges.length > 0 && gauges.every((gauge) => gauge.window === REAL_WINDOW), JSON.stringify(gauges.map((gauge) => gauge.window)));
    assert.ok(fake.requests().length > before + 6);
    assert.equal(fake.rejectedRequests().length, 1, resumed.trace);
  });

  it('pages read_file at the learned window\'s size once it is known, so one read cannot fill the window', async () => {
    readParts(12, 60, 'part');
    fs.writeFileSync(path.join(workspace, 'huge.txt'), Array.from({ length: 3_000 }, (_, line) => `huge line ${line}: the quick brown fox jumps over the lazy dog`).join('\n') + '\n');
    let step = 0;
    fake.setResponder((request): NeutralReply => {
      const last = request.messages.at(-1);
      if (last?.role === 'user' && textOfMessage(last).includes('CONTEXT COMPACTION')) return say.text('<summary>1. Primary request: read every part, then huge.txt.</summary>');
      step++;
      if (step <= 12) return say.toolUse('read_file', { path: `part${step}.txt` }, { id: `toolu_part_${step}` });
      if (step === 13) return say.toolUse('read_file', { path: 'huge.txt' }, { id: 'toolu_huge' });
      return say.text('Read it.');
    });
    const events: AgentEvent[] = [];
    const { started, trace } = await run('Read every part, then huge.txt.', events);
    started.handle.close();
    assert.equal(events.filter((event) => event.type === 'context_window_learned').length, 1, trace);
    const huge = events.find((event) => event.type === 'tool_call_finished' && event.toolUseId === 'toolu_huge');
    assert.equal(huge?.type, 'tool_call_finished');
    assert.ok(huge?.type === 'tool_call_finished');
    const limit = persistThresholdFor(REAL_WINDOW);
    assert.ok(limit < persistThresholdFor(ASSUMED), 'the learned window pages smaller than the assumed one');
    assert.match(huge.content, /output size limit of (\d+) characters reached/);
    assert.equal(Number(/output size limit of (\d+) characters/.exec(huge.content)![1]), limit);
    assert.ok(huge.content.length < limit + 500, `${huge.content.length} characters from one read in a ${REAL_WINDOW}-token window`);
  });

  it('compacts to the learned window when the refused prompt itself is over it', async () => {
    // ~3,000 tokens a file (the tool list grew with web_fetch, which moved the old size's fourth read just under): the fourth read puts the prompt alone over 9,000.
    readParts(8, 190, 'big');
    const events: AgentEvent[] = [];
    const { started, trace } = await run('Read big1.txt to big8.txt, one at a time.', events);
    started.handle.close();
    const rejected = fake.rejectedRequests();
    assert.ok(rejected.length >= 1 && rejected.length <= 2, `refused ${rejected.length} times: ${trace}`);
    const last = fake.requests().at(-1)!;
    assert.equal(last.status, 200);
    const entries = transcriptOf(started.handle.id);
    assert.ok(entries.some((entry) => entry.type === 'compaction'), 'no compaction or drop was recorded');
    assertLearnedOnce(events, entries);
    const refusedAt = fake.requests().findIndex((request) => request.status !== 200);
    for (const request of fake.requests().slice(refusedAt + 1)) if (request.status === 200) assert.ok(request.promptTokens + (request.maxTokens ?? 0) <= REAL_WINDOW, trace);
  });

  it('the CLI prints the notice once and finishes', async () => {
    readParts(12, 60, 'part');
    const run = await fixture().run(['--context-window', String(ASSUMED), '--yes', '-p', 'Read part1.txt to part12.txt, one at a time.']);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr.split(NOTICE).length - 1, 1, run.stderr);
    assert.equal(fake.rejectedRequests().length, 1);
    assert.match(run.stdout, /Read all 12 parts\./);
  });

  it('a subagent started after the learning works within the learned window', async () => {
    readParts(12, 60, 'part');
    const isChild = (request: SentRequest) => request.system.includes('You are a subagent');
    const reads = 12;
    let step = 0;
    fake.setResponder((request): NeutralReply => {
      const last = request.messages.at(-1);
      if (last?.role === 'user' && textOfMessage(last).includes('CONTEXT COMPACTION')) return say.text('<summary>1. Primary request: read every part.</summary>');
      if (isChild(request)) return request.messages.length === 1 ? say.toolUse('read_file', { path: 'part1.txt' }, { id: 'toolu_child_read' }) : say.text('Report: part 1 has 60 lines.');
      step++;
      if (step <= reads) return say.toolUse('read_file', { path: `part${step}.txt` }, { id: `toolu_part_${step}` });
      if (step === reads + 1) return say.toolUse('task', { description: 'Count part1', prompt: 'Count the lines of part1.txt.', agent_type: 'explore' }, { id: 'toolu_task' });
      return say.text('Done.');
    });
    const events: AgentEvent[] = [];
    const { started, trace } = await run('Read every part, then have a subagent count part1.txt.', events);
    started.handle.close();
    assert.equal(fake.rejectedRequests().length, 1, trace);
    const child = fake.requests().filter(isChild);
    assert.ok(child.length >= 2, trace);
    // The child's reply reserve is the learned window's (a fifth of 9,000), not the assumed one's (4,096).
    assert.ok(child.every((request) => request.status === 200 && request.maxTokens === 1_800), JSON.stringify(child.map((request) => [request.status, request.maxTokens])));
    assert.equal(events.filter((event) => event.type === 'context_window_learned').length, 1);
  });
});
