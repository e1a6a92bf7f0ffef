/**
 * Subagents on every back end (issues 9 and 10): the core of the task tool — a child with its own
 * prompt, tools and transcript, concurrent children answered in call order, a failing child and a
 * child stopped at its step limit — against each strict fake, so a child's history and the parent's
 * parallel task calls are valid on the wire of each provider. The Anthropic-only details (hanging
 * streams, cancel timing, approvals) stay in agent.subagents.test.ts.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentEvent } from '../../src/core/agent/events';
import { startAgentSession, type AgentConfig, type StartedSession } from '../../src/core/agent/factory';
import { transcriptLine } from '../../src/core/agent/subagents';
import type { ContentBlockParam, MessageParam } from '../../src/core/model/messages';
import { FileSessionStore } from '../../src/core/storage/sessionStore';
import { BACKENDS, say, textOfMessage, type FakeBackend, type SentRequest } from '../support/backends';
import { useTempDirs } from '../support/tempDirs';

type Ev<T extends AgentEvent['type']> = Extract<AgentEvent, { type: T }>;
type ToolResultParam = Extract<ContentBlockParam, { type: 'tool_result' }>;

const isChild = (request: SentRequest): boolean => request.system.includes('You are a subagent');

/** The tool results of a request's newest message (what the model is answering). */
function lastResults(request: SentRequest): ToolResultParam[] {
  const last = request.messages.at(-1);
  if (!last || typeof last.content === 'string') return [];
  return last.content.flatMap((block) => (block.type === 'tool_result' ? [block] : []));
}

function resultText(block: ToolResultParam): string {
  if (typeof block.content === 'string') return block.content;
  return (block.content ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}

function ofType<T extends AgentEvent['type']>(events: readonly AgentEvent[], type: T): Ev<T>[] {
  return events.filter((event): event is Ev<T> => event.type === type);
}

const task = (description: string, prompt: string, agentType: 'explore' | 'general' = 'explore') => ({ name: 'task', input: { description, prompt, agent_type: agentType } });

/** Every tool call of a history answered, in order, by the next message. */
function assertValidPairs(history: readonly MessageParam[]): void {
  history.forEach((message, index) => {
    if (message.role !== 'assistant' || typeof message.content === 'string') return;
    const ids = message.content.flatMap((block) => (block.type === 'tool_use' ? [block.id] : []));
    if (ids.length === 0) return;
    const next = history[index + 1];
    assert.ok(next && next.role === 'user' && typeof next.content !== 'string', `message ${index} has unanswered tool calls`);
    assert.deepEqual(
      next.content.flatMap((block) => (block.type === 'tool_result' ? [block.tool_use_id] : [])),
      ids,
    );
  });
}

for (const backend of BACKENDS) {
  const temp = useTempDirs();

  describe(`subagents against the fake API (real SDK) [${backend.name}]`, function () {
    this.timeout(60_000);
    let fake: FakeBackend;
    const dirs: string[] = [];
    const sessions: StartedSession[] = [];

    beforeEach(async () => {
      fake = await backend.start();
    });
    afterEach(async () => {
      for (const started of sessions.splice(0)) started.handle.close();
      await fake.close();
      for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
    });

    async function harness(overrides: Partial<AgentConfig> = {}): Promise<{ started: StartedSession; events: AgentEvent[]; workspace: string }> {
      const workspace = temp.make('evergreen-ws-');
      const storage = temp.make('evergreen-storage-');
      dirs.push(workspace, storage);
      fs.writeFileSync(path.join(workspace, 'a.txt'), 'alpha\nbeta\n');
      const events: AgentEvent[] = [];
      const started = await startAgentSession({
        config: fake.config({ maxRetries: 0, ...overrides }),
        workspaceRoot: workspace,
        store: new FileSessionStore(storage),
        approver: { requestApproval: async () => ({ approved: true }) },
        onEvent: (event) => events.push(event),
      });
      sessions.push(started);
      return { started, events, workspace };
    }

    it('an explore child reads with its own prompt and tools; the parent gets only its report and the transcript line', async () => {
      const h = await harness();
      fake.setResponder((request) => {
        if (isChild(request)) return lastResults(request).length === 0 ? say.toolUse('read_file', { path: 'a.txt' }) : say.text(`Report: a.txt says ${resultText(lastResults(request)[0]!).includes('beta') ? 'alpha, beta' : '?'}.`);
        return lastResults(request).length === 0 ? say.toolUses([task('Read a.txt', 'Read a.txt and report.')]) : say.text('Done.');
      });
      assert.equal(await h.started.session.send('What is in a.txt? Use a subagent.'), 'end_turn');
      assert.deepEqual(fake.rejectedRequests(), []);
      const requests = fake.requests();
      const child = requests.filter(isChild);
      assert.equal(child.length, 2);
      assert.equal(textOfMessage(child[0]!.messages[0]), 'Read a.txt and report.', 'the child sees its brief, nothing of the parent');
      const [started] = ofType(h.events, 'subagent_started');
      const [finished] = ofType(h.events, 'subagent_finished');
      assert.ok(started && finished);
      assert.equal(finished.status, 'done');
      const parentLast = requests.filter((request) => !isChild(request)).at(-1)!;
      const [result] = lastResults(parentLast);
      assert.ok(result);
      assert.equal(resultText(result), `${transcriptLine(started.transcriptPath)}\n\nReport: a.txt says alpha, beta.`);
      assert.ok(fs.existsSync(started.transcriptPath));
      // The child's requests count in the parent's cost.
      const usages = ofType(h.events, 'usage');
      assert.equal(usages.filter((event) => event.childId === started.childId).length, 2);
      assert.ok(Math.abs(h.started.session.costUsd - usages.reduce((sum, event) => sum + event.costUsd, 0)) < 1e-9);
    });

    it('three task calls in one response run as three children; results come back in call order', async () => {
      const h = await harness({ subagents: { maxConcurrent: 2 } });
      fake.setResponder((request) => {
        if (isChild(request)) return say.text(`report of ${textOfMessage(request.messages[0])}`);
        return lastResults(request).length === 0 ? say.toolUses([task('One', 'child one'), task('Two', 'child two'), task('Three', 'child three')]) : say.text('All three reported.');
      });
      assert.equal(await h.started.session.send('Three at once'), 'end_turn');
      assert.deepEqual(fake.rejectedRequests(), []);
      const parentLast = fake.requests().filter((request) => !isChild(request)).at(-1)!;
      assert.deepEqual(
        lastResults(parentLast).map((block) => resultText(block).split('\n\n')[1]),
        ['report of child one', 'report of child two', 'report of child three'],
      );
      assert.deepEqual(ofType(h.events, 'subagent_finished').map((event) => event.status), ['done', 'done', 'done']);
      assertValidPairs(h.started.session.history);
    });

    it('a failing child is an error result naming its transcript, and the parent goes on', async () => {
      const h = await harness();
      fake.setResponder((request) => {
        if (isChild(request)) return say.error(400);
        return lastResults(request).length === 0 ? say.toolUses([task('Fails', 'do it')]) : say.text('I will do it myself.');
      });
      assert.equal(await h.started.session.send('Try'), 'end_turn');
      const [started] = ofType(h.events, 'subagent_started');
      const [finished] = ofType(h.events, 'subagent_finished');
      assert.ok(started && finished);
      assert.equal(finished.status, 'error');
      const [result] = lastResults(fake.requests().filter((request) => !isChild(request)).at(-1)!);
      assert.ok(result);
      assert.equal(result.is_error, true);
      assert.ok(resultText(result).includes(started.transcriptPath));
      // Only the scripted refusals of the child failed; the parent's requests were all accepted.
      assert.ok(fake.requests().filter((request) => !isChild(request)).every((request) => request.status === 200));
      assertValidPairs(h.started.session.history);
    });

    it('a child that keeps calling tools stops at its step limit and hands back its last text', async () => {
      const h = await harness({ subagents: { maxToolRounds: 2 } });
      let step = 0;
      fake.setResponder((request) => {
        if (isChild(request)) return say.toolUse('read_file', { path: 'a.txt' }, { preamble: `Still looking, step ${++step}.` });
        return lastResults(request).length === 0 ? say.toolUses([task('Loops', 'look forever')]) : say.text('It ran out of steps.');
      });
      assert.equal(await h.started.session.send('Go'), 'end_turn');
      assert.deepEqual(fake.rejectedRequests(), []);
      const [finished] = ofType(h.events, 'subagent_finished');
      assert.ok(finished);
      assert.equal(finished.status, 'limit');
      assert.match(finished.report, /^Still looking, step 3\.\n\n\[Note: the subagent was stopped at its limit of 2 tool rounds/);
    });
  });
}
