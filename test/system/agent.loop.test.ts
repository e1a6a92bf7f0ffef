import { said } from '../support/said';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type Anthropic from '@anthropic-ai/sdk';
import type { AgentEvent } from '../../src/core/agent/events';
import { startAgentSession, type AgentConfig, type StartedSession } from '../../src/core/agent/factory';
import { CANCELLED_BEFORE_RUN } from '../../src/core/agent/round';
import { AnthropicBackend as ModelClient } from '../../src/core/model/anthropic';
import { ModelError } from '../../src/core/model/errors';
import { FileSessionStore } from '../../src/core/storage/sessionStore';
import type { ApprovalDecision, Approver } from '../../src/core/approvals/approval';
import { extensionHint } from '../../src/extension/errorHints';
import { reply, startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic/server';
import { BACKENDS, say, type FakeBackend } from '../support/backends';
import { waitFor } from '../support/waitFor';
import { useTempDirs } from '../support/tempDirs';

interface Harness {
  started: StartedSession;
  events: AgentEvent[];
  workspace: string;
  storage: string;
}

// The same suite against each back end (the test matrix of issue 9): the session only sees ModelBackend.
for (const backend of BACKENDS) {
  describe(`agent loop against the fake API (real SDK) [${backend.name}]`, function () {
    this.timeout(30_000);
    let fake: FakeBackend;
    const dirs = useTempDirs();

    beforeEach(async () => {
      fake = await backend.start();
    });
    afterEach(async () => {
      await fake.close();
    });

    async function harness(overrides: Partial<AgentConfig> = {}, approver?: Approver): Promise<Harness> {
      const workspace = dirs.make('evergreen-ws-');
      const storage = dirs.make('evergreen-storage-');
      fs.writeFileSync(path.join(workspace, 'a.txt'), 'alpha\nbeta\n');
      const events: AgentEvent[] = [];
      const started = await startAgentSession({
        config: fake.config(overrides),
        workspaceRoot: workspace,
        store: new FileSessionStore(storage),
        approver: approver ?? { requestApproval: async () => ({ approved: true }) },
        onEvent: (event) => events.push(event),
      });
      return { started, events, workspace, storage };
    }

    function finishedCalls(h: Harness): Array<Extract<AgentEvent, { type: 'tool_call_finished' }>> {
      return h.events.filter((event): event is Extract<AgentEvent, { type: 'tool_call_finished' }> => event.type === 'tool_call_finished');
    }

    it('runs a multi-tool turn end to end and feeds every result back', async () => {
      const h = await harness();
      fake.enqueue(
        say.toolUses(
          [
            { name: 'read_file', input: { path: 'a.txt' }, id: 'toolu_read' },
            { name: 'list_files', input: {}, id: 'toolu_list' },
          ],
          { preamble: 'Reading both.' },
        ),
        say.text('a.txt holds alpha and beta.'),
      );
      const stop = await h.started.session.send('What is in a.txt?');
      assert.equal(stop, 'end_turn');
      // Gauge updates ('context') are covered by the context engine's tests.
      const types = h.events.map((event) => event.type).filter((type) => type !== 'text_delta' && type !== 'context');
      assert.deepEqual(types, [
        'session_started',
        'turn_started',
        'request_started',
        'usage',
        'tool_call_started',
        'tool_call_finished',
        'tool_call_started',
        'tool_call_finished',
        'request_started',
        'usage',
        'turn_finished',
      ]);
      const text = h.events.flatMap((event) => (event.type === 'text_delta' ? [event.text] : [])).join('');
      assert.equal(text, 'Reading both.a.txt holds alpha and beta.');
      // The second request carries both results, in order, in the turn after the calls.
      const [first, second] = fake.requests();
      assert.ok(first && second);
      const results = second.messages.at(-1);
      assert.ok(results && results.role === 'user' && Array.isArray(results.content));
      assert.deepEqual(
        results.content.map((block) => block.type === 'tool_result' && block.tool_use_id),
        ['toolu_read', 'toolu_list'],
      );
      const readResult = results.content[0];
      assert.ok(readResult?.type === 'tool_result' && typeof readResult.content === 'string' && readResult.content.includes('alpha'));
      if (fake.name === 'anthropic') {
        // Explicit cache breakpoints (Anthropic only): after tools+system and on the newest message.
        const body = second.raw as Anthropic.MessageCreateParams;
        assert.ok(Array.isArray(body.system) && body.system.at(-1)?.cache_control);
        const lastBlocks = body.messages.at(-1)?.content;
        const lastBlock = Array.isArray(lastBlocks) ? lastBlocks.at(-1) : undefined;
        assert.ok(lastBlock && 'cache_control' in lastBlock && lastBlock.cache_control);
      } else {
        // Automatic prefix caching: the second request starts with the first one's messages, byte for byte.
        const firstMessages = (first.raw as { messages: unknown[] }).messages;
        assert.deepEqual((second.raw as { messages: unknown[] }).messages.slice(0, firstMessages.length), firstMessages);
      }
      // The second request reuses the prefix cached by the first.
      const usages = h.events.flatMap((event) => (event.type === 'usage' ? [event.usage] : []));
      assert.ok(usages[1]!.cacheReadTokens > 0, `expected a cache read, got ${JSON.stringify(usages[1])}`);
      assert.equal(usages[1]!.cacheReadTokens, second.cachedTokens, 'the usage event reports what the server billed as cached');
      // The transcript holds the whole exchange.
      assert.equal(h.started.session.history.length, 4);
      assert.deepEqual(fake.rejectedRequests(), []);
    });

    it('keeps working when the storage cannot be written, and says the transcript is not being saved', async () => {
      const workspace = dirs.make('evergreen-ws-');
      const events: AgentEvent[] = [];
      // A folder below a regular file can never be created (as root, permissions cannot simulate this).
      const blocker = path.join(dirs.make('evergreen-storage-'), 'not-a-dir');
      fs.writeFileSync(blocker, '');
      const started = await startAgentSession({
        config: fake.config(),
        workspaceRoot: workspace,
        store: new FileSessionStore(blocker),
        approver: { requestApproval: async () => ({ approved: true }) },
        onEvent: (event) => events.push(event),
      });
      fake.enqueue(say.text('Still answering.'));
      assert.equal(await started.session.send('Hello?'), 'end_turn');
      const warnings = events.filter((event): event is Extract<AgentEvent, { type: 'storage_warning' }> => event.type === 'storage_warning');
      assert.equal(warnings.length, 1, 'told once, not on every append');
      assert.match(said(warnings[0]!.message), /not being saved/);
      assert.equal(started.session.history.length, 2, 'the conversation itself goes on in memory');
    });

    it('lets the model read its own transcript (read-only), which a summary points to, but nothing else of the storage', async () => {
      const h = await harness();
      fake.enqueue(
        say.toolUse('read_file', { path: h.started.handle.transcriptPath }, { id: 'toolu_transcript' }),
        say.toolUse('write_file', { path: h.started.handle.transcriptPath, content: 'x' }, { id: 'toolu_overwrite' }),
        say.toolUse('read_file', { path: path.join(h.storage, 'sessions') }, { id: 'toolu_other' }),
        say.text('Done.'),
      );
      assert.equal(await h.started.session.send('Remember: the codename is HERON.'), 'end_turn');
      const finished = finishedCalls(h);
      assert.equal(finished.length, 3);
      assert.equal(finished[0]!.isError, false, finished[0]!.content);
      assert.match(finished[0]!.content, /the codename is HERON/);
      assert.equal(finished[1]!.isError, true, 'the transcript is read-only');
      assert.equal(finished[2]!.isError, true, 'other sessions stay out of reach');
    });

    it('answers bad tool input with an is_error result and keeps going', async () => {
      const h = await harness();
      fake.enqueue(say.toolUse('read_file', { path: 42 }, { id: 'toolu_bad' }), say.toolUse('no_such_tool', {}, { id: 'toolu_unknown' }), say.text('Sorry.'));
      assert.equal(await h.started.session.send('read it'), 'end_turn');
      const finished = finishedCalls(h);
      assert.equal(finished.length, 2);
      assert.ok(finished.every((event) => event.isError));
      assert.match(finished[0]!.content, /path/);
      assert.match(finished[1]!.content, /Unknown tool "no_such_tool"/);
      // The error results reach the model marked as errors (OpenAI: in the tool message's text).
      const last = fake.requests().at(-1)?.messages.at(-1);
      assert.ok(last && Array.isArray(last.content));
      assert.deepEqual(
        last.content.map((block) => block.type === 'tool_result' && [block.tool_use_id, block.is_error]),
        [['toolu_unknown', true]],
      );
    });

    it('cancels during streaming, keeps what was said, and the next message works', async () => {
      const h = await harness();
      fake.enqueue(say.text('This is a long answer that streams slowly. '.repeat(20), { stream: { delayMs: 30, chunkChars: 5 } }));
      const turn = h.started.session.send('Explain');
      await waitFor(() => h.events.some((event) => event.type === 'text_delta'));
      assert.equal(h.started.session.cancel(), true);
      assert.equal(await turn, 'cancelled');
      const partial = h.started.session.history.at(-1);
      assert.equal(partial?.role, 'assistant');
      fake.enqueue(say.text('Fine.'));
      assert.equal(await h.started.session.send('Shorter please'), 'end_turn');
      assert.equal(fake.requests().at(-1)?.status, 200);
    });

    it('cancels during a tool: the running call and the ones after it get cancelled results', async () => {
      const h = await harness();
      fake.enqueue(
        say.toolUses([
          { name: 'run_shell', input: { command: 'sleep 30' }, id: 'toolu_sleep' },
          { name: 'read_file', input: { path: 'a.txt' }, id: 'toolu_after' },
        ]),
      );
      const turn = h.started.session.send('Wait a while');
      await waitFor(() => h.events.some((event) => event.type === 'tool_call_started'));
      h.started.session.cancel();
      assert.equal(await turn, 'cancelled');
      const results = h.started.session.history.at(-1);
      assert.ok(results && Array.isArray(results.content));
      const [sleep, after] = results.content;
      assert.ok(sleep?.type === 'tool_result' && /cancel/i.test(String(sleep.content)));
      assert.ok(after?.type === 'tool_result' && after.content === CANCELLED_BEFORE_RUN);
      fake.enqueue(say.text('Stopped.'));
      assert.equal(await h.started.session.send('ok, go on'), 'end_turn');
      assert.equal(fake.requests().at(-1)?.status, 200, 'the fake accepted the history after the cancel');
    });

    it(`retries 429 and ${backend.name === 'anthropic' ? 529 : 503} (honouring retry-after) and then succeeds`, async () => {
      const h = await harness();
      fake.enqueue(say.error(429, { retryAfter: 0.01 }), say.error(fake.overloadedStatus), say.disconnect(), say.text('Finally.'));
      assert.equal(await h.started.session.send('hello'), 'end_turn');
      const retries = h.events.filter((event) => event.type === 'retrying');
      assert.equal(retries.length, 3);
      assert.equal(retries[0]?.type === 'retrying' && retries[0].delayMs, 10);
      assert.equal(h.started.session.history.at(-1)?.role, 'assistant');
    });

    it('retries a stream cut mid-way', async () => {
      const h = await harness();
      fake.enqueue(say.text('Half of this will arrive.', { stream: { cutAfter: 4 } }), say.text('Whole.'));
      assert.equal(await h.started.session.send('hello'), 'end_turn');
      assert.ok(h.events.some((event) => event.type === 'retrying'));
      const history = h.started.session.history;
      assert.deepEqual(history.at(-1), { role: 'assistant', content: [{ type: 'text', text: 'Whole.' }] });
    });

    it('gives up after the retry budget with a clear error and a next step', async () => {
      const h = await harness({ maxRetries: 1 });
      fake.enqueue(say.error(fake.overloadedStatus), say.error(fake.overloadedStatus));
      assert.equal(await h.started.session.send('hello'), 'error');
      const error = h.events.find((event) => event.type === 'error');
      assert.ok(error?.type === 'error');
      assert.match(said(error.message), new RegExp(`overloaded \\(${fake.overloadedStatus}\\)`));
      assert.ok(error.hint);
      assert.equal(error.kind, 'overloaded');
      assert.deepEqual(error.actions, ['retry']);
    });

    it('Retry sends the conversation again without repeating the user message', async () => {
      const h = await harness({ maxRetries: 0 });
      fake.enqueue(say.error(fake.overloadedStatus), say.text('Here it is.'));
      assert.equal(await h.started.session.send('hello'), 'error');
      assert.equal(await h.started.session.retry(), 'end_turn');
      const last = fake.requests().at(-1);
      assert.ok(last);
      assert.equal(last.messages.length, 1, JSON.stringify(last.messages));
      assert.equal(last.messages[0]?.role, 'user');
      assert.deepEqual(
        h.started.session.history.map((message) => message.role),
        ['user', 'assistant'],
      );
      const started = h.events.filter((event): event is Extract<AgentEvent, { type: 'turn_started' }> => event.type === 'turn_started');
      assert.equal(started.at(-1)?.userText, '');
    });

    it('Retry after a partial reply asks the model to continue', async () => {
      const h = await harness({ maxRetries: 0 });
      fake.enqueue(say.text('Half of this will arrive and then the stream is cut.', { stream: { cutAfter: 4 } }), say.text('…and the rest.'));
      assert.equal(await h.started.session.send('hello'), 'error');
      assert.equal(h.started.session.history.at(-1)?.role, 'assistant', 'the partial text is kept');
      assert.equal(await h.started.session.retry(), 'end_turn');
      const roles = h.started.session.history.map((message) => message.role);
      assert.deepEqual(roles, ['user', 'assistant', 'user', 'assistant']);
      assert.deepEqual(h.started.session.history[2], { role: 'user', content: [{ type: 'text', text: 'Continue.' }] });
    });

    it('errors carry the kind and the next steps the core chooses', async () => {
      const h = await harness();
      fake.enqueue(say.error(401));
      assert.equal(await h.started.session.send('hi'), 'error');
      const error = h.events.find((event) => event.type === 'error');
      assert.ok(error?.type === 'error');
      assert.equal(error.kind, 'authentication');
      assert.deepEqual(error.actions, ['setApiKey']);
    });

    it('refuses to start with a missing key, naming the variable, and writes nothing', async () => {
      const saved = process.env[fake.keyEnv];
      delete process.env[fake.keyEnv];
      try {
        // An OpenAI-compatible server at another base URL (a local one) needs no key: OpenAI's own API does.
        const missing: Partial<AgentConfig> = fake.name === 'openai' ? { apiKey: undefined, baseURL: undefined } : { apiKey: undefined };
        await assert.rejects(harness(missing), (error: unknown) => error instanceof ModelError && error.kind === 'no_api_key' && (extensionHint(error.hint) ?? '').includes(fake.keyEnv));
      } finally {
        if (saved !== undefined) process.env[fake.keyEnv] = saved;
      }
      for (const dir of dirs.all().filter((candidate) => candidate.includes('evergreen-storage-'))) assert.equal(fs.existsSync(path.join(dir, 'sessions')), false);
      assert.equal(fake.requests().length, 0);
    });

    it('reports a key revoked mid-session as an error event, keeping the session usable', async () => {
      const h = await harness();
      fake.enqueue(say.error(401), say.text('Back.'));
      assert.equal(await h.started.session.send('hi'), 'error');
      const error = h.events.find((event) => event.type === 'error');
      assert.ok(error?.type === 'error' && /rejected \(401\)/.test(said(error.message)) && /Set API Key/.test(extensionHint(error.errorHint) ?? ''));
      assert.equal(await h.started.session.send('again'), 'end_turn');
    });

    it('tells the model when the user declines a write, and writes nothing', async () => {
      const asked: string[] = [];
      const decline: Approver = {
        requestApproval: async (request): Promise<ApprovalDecision> => {
          asked.push(request.kind);
          return { approved: false };
        },
      };
      const h = await harness({ approvalPolicy: { writes: 'ask', shell: 'ask', shellAllowList: [] } }, decline);
      fake.enqueue(say.toolUse('write_file', { path: 'new.txt', content: 'x' }, { id: 'toolu_w' }), say.text('Understood.'));
      assert.equal(await h.started.session.send('create new.txt'), 'end_turn');
      assert.deepEqual(asked, ['write']);
      assert.equal(fs.existsSync(path.join(h.workspace, 'new.txt')), false);
      const needed = h.events.find((event) => event.type === 'approval_needed');
      assert.ok(needed?.type === 'approval_needed' && needed.request.kind === 'write' && needed.toolUseId === 'toolu_w');
      const finished = h.events.find((event) => event.type === 'tool_call_finished');
      assert.ok(finished?.type === 'tool_call_finished' && /declined/i.test(finished.content));
    });

    it('drops whitespace-only text so the next request is still valid', async () => {
      const h = await harness();
      fake.enqueue(say.toolUse('read_file', { path: 'a.txt' }, { id: 'toolu_ws', preamble: '\n\n' }), say.text('Done.'), say.text('Still fine.'));
      assert.equal(await h.started.session.send('read'), 'end_turn');
      assert.equal(await h.started.session.send('again'), 'end_turn');
      assert.ok(fake.requests().every((request) => request.status === 200));
    });

    it('retries a failure reported inside the stream (after the 200)', async () => {
      const h = await harness();
      fake.enqueue(say.text('Partial', { stream: { errorAfter: 3 } }), say.text('Recovered.'));
      assert.equal(await h.started.session.send('hi'), 'end_turn');
      const retry = h.events.find((event) => event.type === 'retrying');
      assert.ok(retry?.type === 'retrying' && fake.midStreamErrorReason.test(said(retry.reason)), JSON.stringify(retry));
    });

    it('caps the reply reserve at the model\'s output limit', async () => {
      fake.setModel('small-output', { window: 200_000, maxOutput: 8192 });
      const h = await harness({ model: 'small-output', maxOutputTokens: 16_000 });
      fake.enqueue(say.text('Short.'));
      assert.equal(await h.started.session.send('hi'), 'end_turn');
      // Anthropic's Models API states the limit up front; an OpenAI-compatible server's refusal teaches it (one 400).
      assert.equal(fake.requests().at(-1)?.maxTokens, 8192);
      assert.equal(fake.requests().at(-1)?.status, 200);
    });

    it('resumes a session that crashed after a tool_use, and records the repair so replay matches', async () => {
      const h = await harness();
      fake.enqueue(say.text('ok'));
      await h.started.session.send('hi');
      // Simulate a crash between the tool_use being written and its result.
      h.started.handle.append({ type: 'message', ts: 't', message: { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_lost', name: 'read_file', input: { path: 'a.txt' } }] } });
      const resume = () =>
        startAgentSession({ config: fake.config(), workspaceRoot: h.workspace, store: new FileSessionStore(h.storage), resumeId: h.started.handle.id, approver: { requestApproval: async () => ({ approved: true }) }, onEvent: () => undefined });
      const first = await resume();
      const answer = first.session.history.at(-1);
      assert.ok(answer?.role === 'user' && Array.isArray(answer.content) && answer.content[0]?.type === 'tool_result' && answer.content[0].tool_use_id === 'toolu_lost');
      const second = await resume();
      assert.deepEqual(second.session.history, first.session.history);
      fake.enqueue(say.text('Recovered.'));
      assert.equal(await second.session.send('go on'), 'end_turn');
      assert.equal(fake.requests().at(-1)?.status, 200);
    });

    it('resumes a session from its transcript with the same history and system prompt', async () => {
      const h = await harness();
      fake.enqueue(say.toolUse('read_file', { path: 'a.txt' }), say.text('Read it.'));
      await h.started.session.send('read a.txt');
      const resumed = await startAgentSession({
        config: fake.config(),
        workspaceRoot: h.workspace,
        store: new FileSessionStore(h.storage),
        resumeId: h.started.handle.id,
        approver: { requestApproval: async () => ({ approved: true }) },
        onEvent: () => undefined,
      });
      assert.deepEqual(resumed.session.history, h.started.session.history);
      assert.equal(resumed.session.systemPrompt, h.started.session.systemPrompt);
      assert.deepEqual(resumed.replay.filter((event) => event.type === 'tool_call_finished').length, 1);
      fake.enqueue(say.text('Still here.'));
      assert.equal(await resumed.session.send('and now?'), 'end_turn');
      const last = fake.requests().at(-1);
      assert.equal(last?.messages.length, 5);
      assert.equal(last?.system, h.started.session.systemPrompt);
    });
  });
}

/**
 * What only the Anthropic back end has: the Models API failing a start, stop reasons and headers
 * of the Messages API, token counting. The OpenAI back end's counterparts (window from
 * max_model_len, finish_reason length, the idle watchdog, no counting endpoint) are in
 * model.openai.test.ts.
 */
describe('agent loop: Anthropic-specific behaviour (fake Messages API)', function () {
  this.timeout(30_000);
  let fake: FakeAnthropic;
  const dirs = useTempDirs();

  beforeEach(async () => {
    fake = await startFakeAnthropic();
  });
  afterEach(async () => {
    await fake.close();
  });

  function baseConfig(): AgentConfig {
    return {
      apiKey: fake.apiKey,
      baseURL: fake.url,
      model: 'claude-sonnet-4-6',
      maxOutputTokens: 4096,
      approvalPolicy: { writes: 'auto', shell: 'auto', shellAllowList: [] },
      trusted: true,
      ripgrepPath: undefined,
      retryBaseDelayMs: 1,
    };
  }

  async function harness(overrides: Partial<AgentConfig> = {}): Promise<Harness> {
    const workspace = dirs.make('evergreen-ws-');
    const storage = dirs.make('evergreen-storage-');
    const events: AgentEvent[] = [];
    const started = await startAgentSession({
      config: { ...baseConfig(), ...overrides },
      workspaceRoot: workspace,
      store: new FileSessionStore(storage),
      approver: { requestApproval: async () => ({ approved: true }) },
      onEvent: (event) => events.push(event),
    });
    return { started, events, workspace, storage };
  }

  // model_context_window_exceeded is a Messages API stop reason; a Chat Completions server says `length`.
  it('a reply cut at the context window ends the turn with the core\'s next steps (Compact, New Chat)', async () => {
    // The model's real window is smaller than the one configured, so the API cuts the reply there.
    fake.setModel('claude-tight-window', { max_input_tokens: 6_000, max_tokens: 8192 });
    const h = await harness({ model: 'claude-tight-window', contextWindow: 200_000 });
    fake.enqueue(reply.text('word '.repeat(6_000)));
    assert.equal(await h.started.session.send('Write a lot.'), 'context_window_exceeded');
    const finished = h.events.find((event) => event.type === 'turn_finished');
    assert.equal(finished?.type, 'turn_finished');
    assert.ok(finished?.type === 'turn_finished');
    assert.deepEqual(finished.actions, ['compact', 'newChat']);
  });

  // The Models API is required on Anthropic, so a bad key fails the start; an OpenAI-compatible
  // server's models endpoint is optional, so there the first request says it (tested above).
  it('refuses to start with a rejected (401) key, saying what to do, and writes nothing', async () => {
    await assert.rejects(harness({ apiKey: 'sk-ant-wrong' }), (error: unknown) => {
      assert.ok(error instanceof ModelError && error.kind === 'authentication');
      assert.match(error.message, /rejected \(401\)/);
      assert.match(extensionHint(error.hint) ?? '', /Set API Key/);
      return true;
    });
    for (const dir of dirs.all().filter((candidate) => candidate.includes('evergreen-storage-'))) assert.equal(fs.existsSync(path.join(dir, 'sessions')), false);
  });

  // Connection and model-id messages name the Anthropic API; the OpenAI ones are in model.openai.test.ts.
  it('reports an unreachable server and an unknown model clearly', async () => {
    const unreachable = new ModelClient({ apiKey: 'k', baseURL: 'http://127.0.0.1:9', maxRetries: 0 });
    await assert.rejects(unreachable.stream({ system: 's', tools: [], messages: [{ role: 'user', content: 'hi' }], maxTokens: 10 }), (error: unknown) => {
      assert.ok(error instanceof ModelError && error.kind === 'connection');
      assert.match(error.message, /Could not reach the Anthropic API at http:\/\/127\.0\.0\.1:9/);
      return true;
    });
    const unknown = new ModelClient({ apiKey: fake.apiKey, baseURL: fake.url, model: 'claude-imaginary-9' });
    await assert.rejects(unknown.contextWindow(undefined), (error: unknown) => error instanceof ModelError && error.kind === 'model_not_found' && /evergreen\.model/.test(extensionHint(error.hint) ?? ''));
    const known = new ModelClient({ apiKey: fake.apiKey, baseURL: fake.url, model: 'claude-sonnet-4-6' });
    assert.equal(await known.contextWindow(undefined), 200_000);
    assert.equal(await known.contextWindow(50_000), 50_000);
  });

  // The OpenAI back end's idle watchdog is tested in model.openai.test.ts.
  it('treats a stalled stream as a dropped connection and retries it', async () => {
    const client = new ModelClient({ apiKey: fake.apiKey, baseURL: fake.url, model: 'claude-sonnet-4-6', streamIdleTimeoutMs: 200, retryBaseDelayMs: 1 });
    fake.enqueue(reply.text('slow', { stream: { eventDelayMs: 2_000 } }), reply.text('fast'));
    const retries: string[] = [];
    const response = await client.stream({ system: 's', tools: [], messages: [{ role: 'user', content: 'hi' }], maxTokens: 100 }, { onRetry: (info) => retries.push(said(info.reason.text)) });
    assert.deepEqual(response.content.map((block) => block.type === 'text' && block.text), ['fast']);
    assert.match(retries[0] ?? '', /stalled: no data for 200 ms\./);
  });

  it('a prompt over the window -> prompt_too_long carrying the API\'s count for the engine', async () => {
    fake.setModel('claude-tiny-window', { max_input_tokens: 1_000, max_tokens: 8192 });
    const client = new ModelClient({ apiKey: fake.apiKey, baseURL: fake.url, model: 'claude-tiny-window', retryBaseDelayMs: 1 });
    await assert.rejects(client.stream({ system: 's', tools: [], messages: [{ role: 'user', content: 'word '.repeat(3_000) }], maxTokens: 100 }), (error: unknown) => {
      assert.ok(error instanceof ModelError && error.kind === 'prompt_too_long');
      const counted = /(\d+) tokens > (\d+) maximum/.exec(error.message);
      assert.ok(counted, error.message);
      assert.deepEqual(error.tooLong, { promptTokens: Number(counted[1]), maxTokens: 1_000, window: 1_000, replyCounted: false });
      assert.ok(error.tooLong.promptTokens > 1_000);
      return true;
    });
  });

  // Only Anthropic has a token-counting endpoint (an OpenAI-compatible session estimates until its first usage).
  it('counts tokens for the context engine exactly as the next request is billed', async () => {
    const client = new ModelClient({ apiKey: fake.apiKey, baseURL: fake.url, model: 'claude-sonnet-4-6' });
    const request = { system: 'You are terse.', tools: [], messages: [{ role: 'user' as const, content: 'Count me, please.' }] };
    const counted = await client.countTokens(request);
    fake.enqueue(reply.text('ok'));
    const response = await client.stream({ ...request, maxTokens: 100 });
    const billed = response.usage.inputTokens + response.usage.cacheReadTokens + response.usage.cacheWriteTokens;
    assert.ok(counted > 0);
    assert.equal(counted, billed);
  });

  // x-should-retry is an Anthropic response header.
  it('does not retry what the server marks x-should-retry: false', async () => {
    const client = new ModelClient({ apiKey: fake.apiKey, baseURL: fake.url, model: 'claude-sonnet-4-6', retryBaseDelayMs: 1 });
    fake.enqueue(reply.error(529, { headers: { 'x-should-retry': 'false' } }), reply.text('never reached'));
    await assert.rejects(client.stream({ system: 's', tools: [], messages: [{ role: 'user', content: 'hi' }], maxTokens: 100 }), (error: unknown) => error instanceof ModelError && error.kind === 'overloaded');
    assert.equal(fake.pendingReplies(), 1);
  });

});
