import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type Anthropic from '@anthropic-ai/sdk';
import type { AgentEvent } from '../../src/core/agent/events';
import { startAgentSession, type AgentConfig, type StartedSession } from '../../src/core/agent/factory';
import { CANCELLED_BEFORE_RUN } from '../../src/core/agent/session';
import { AnthropicBackend as ModelClient } from '../../src/core/model/anthropic';
import { ModelError } from '../../src/core/model/errors';
import { FileSessionStore } from '../../src/core/storage/sessionStore';
import type { ApprovalDecision, Approver } from '../../src/core/tools/approval';
import { reply, startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic/server';

interface Harness {
  started: StartedSession;
  events: AgentEvent[];
  workspace: string;
  storage: string;
}

describe('agent loop against the fake API (real SDK)', function () {
  this.timeout(30_000);
  let fake: FakeAnthropic;
  const dirs: string[] = [];

  beforeEach(async () => {
    fake = await startFakeAnthropic();
  });
  afterEach(async () => {
    await fake.close();
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  function tempDir(prefix: string): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  }

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

  async function harness(overrides: Partial<AgentConfig> = {}, approver?: Approver): Promise<Harness> {
    const workspace = tempDir('evergreen-ws-');
    const storage = tempDir('evergreen-storage-');
    fs.writeFileSync(path.join(workspace, 'a.txt'), 'alpha\nbeta\n');
    const events: AgentEvent[] = [];
    const started = await startAgentSession({
      config: { ...baseConfig(), ...overrides },
      workspaceRoot: workspace,
      store: new FileSessionStore(storage),
      approver: approver ?? { requestApproval: async () => ({ approved: true }) },
      onEvent: (event) => events.push(event),
    });
    return { started, events, workspace, storage };
  }

  function lastRequestMessages(): Anthropic.MessageParam[] {
    const body = fake.messageRequests().at(-1)?.body as { messages: Anthropic.MessageParam[] };
    return body.messages;
  }

  it('runs a multi-tool turn end to end and feeds every result back', async () => {
    const h = await harness();
    fake.enqueue(
      reply.message([
        { type: 'text', text: 'Reading both.' },
        { type: 'tool_use', id: 'toolu_read', name: 'read_file', input: { path: 'a.txt' } },
        { type: 'tool_use', id: 'toolu_list', name: 'list_files', input: {} },
      ]),
      reply.text('a.txt holds alpha and beta.'),
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
    // The second request carries both results, in order, in one user message.
    const results = lastRequestMessages().at(-1);
    assert.ok(results && Array.isArray(results.content));
    assert.deepEqual(
      results.content.map((block) => block.type === 'tool_result' && block.tool_use_id),
      ['toolu_read', 'toolu_list'],
    );
    const readResult = results.content[0];
    assert.ok(readResult?.type === 'tool_result' && typeof readResult.content === 'string' && readResult.content.includes('alpha'));
    // Cache breakpoints: after tools+system and on the newest message.
    const body = fake.messageRequests().at(-1)?.body as Anthropic.MessageCreateParams;
    assert.ok(Array.isArray(body.system) && body.system.at(-1)?.cache_control);
    const lastBlocks = body.messages.at(-1)?.content;
    const lastBlock = Array.isArray(lastBlocks) ? lastBlocks.at(-1) : undefined;
    assert.ok(lastBlock && 'cache_control' in lastBlock && lastBlock.cache_control);
    // The second request reuses the prefix cached by the first.
    const usages = h.events.flatMap((event) => (event.type === 'usage' ? [event.usage] : []));
    assert.ok(usages[1]!.cacheReadTokens > 0, `expected a cache read, got ${JSON.stringify(usages[1])}`);
    // The transcript holds the whole exchange.
    assert.equal(h.started.session.history.length, 4);
  });

  it('keeps working when the storage cannot be written, and says the transcript is not being saved', async () => {
    const workspace = tempDir('evergreen-ws-');
    const events: AgentEvent[] = [];
    // A folder below a regular file can never be created (as root, permissions cannot simulate this).
    const blocker = path.join(tempDir('evergreen-storage-'), 'not-a-dir');
    fs.writeFileSync(blocker, '');
    const started = await startAgentSession({
      config: baseConfig(),
      workspaceRoot: workspace,
      store: new FileSessionStore(blocker),
      approver: { requestApproval: async () => ({ approved: true }) },
      onEvent: (event) => events.push(event),
    });
    fake.enqueue(reply.text('Still answering.'));
    assert.equal(await started.session.send('Hello?'), 'end_turn');
    const warnings = events.filter((event): event is Extract<AgentEvent, { type: 'storage_warning' }> => event.type === 'storage_warning');
    assert.equal(warnings.length, 1, 'told once, not on every append');
    assert.match(warnings[0]!.message, /not being saved/);
    assert.equal(started.session.history.length, 2, 'the conversation itself goes on in memory');
  });

  it('lets the model read its own transcript (read-only), which a summary points to, but nothing else of the storage', async () => {
    const h = await harness();
    fake.enqueue(
      reply.toolUse('read_file', { path: h.started.handle.transcriptPath }, { id: 'toolu_transcript' }),
      reply.toolUse('write_file', { path: h.started.handle.transcriptPath, content: 'x' }, { id: 'toolu_overwrite' }),
      reply.toolUse('read_file', { path: path.join(h.storage, 'sessions') }, { id: 'toolu_other' }),
      reply.text('Done.'),
    );
    assert.equal(await h.started.session.send('Remember: the codename is HERON.'), 'end_turn');
    const finished = h.events.filter((event): event is Extract<AgentEvent, { type: 'tool_call_finished' }> => event.type === 'tool_call_finished');
    assert.equal(finished.length, 3);
    assert.equal(finished[0]!.isError, false, finished[0]!.content);
    assert.match(finished[0]!.content, /the codename is HERON/);
    assert.equal(finished[1]!.isError, true, 'the transcript is read-only');
    assert.equal(finished[2]!.isError, true, 'other sessions stay out of reach');
  });

  it('answers bad tool input with an is_error result and keeps going', async () => {
    const h = await harness();
    fake.enqueue(reply.toolUse('read_file', { path: 42 }, { id: 'toolu_bad' }), reply.toolUse('no_such_tool', {}, { id: 'toolu_unknown' }), reply.text('Sorry.'));
    assert.equal(await h.started.session.send('read it'), 'end_turn');
    const finished = h.events.filter((event): event is Extract<AgentEvent, { type: 'tool_call_finished' }> => event.type === 'tool_call_finished');
    assert.equal(finished.length, 2);
    assert.ok(finished.every((event) => event.isError));
    assert.match(finished[0]!.content, /path/);
    assert.match(finished[1]!.content, /Unknown tool "no_such_tool"/);
  });

  it('cancels during streaming, keeps what was said, and the next message works', async () => {
    const h = await harness();
    fake.enqueue(reply.text('This is a long answer that streams slowly. '.repeat(20), { stream: { eventDelayMs: 30, textChunkChars: 5 } }));
    const turn = h.started.session.send('Explain');
    await waitFor(() => h.events.some((event) => event.type === 'text_delta'));
    assert.equal(h.started.session.cancel(), true);
    assert.equal(await turn, 'cancelled');
    const partial = h.started.session.history.at(-1);
    assert.equal(partial?.role, 'assistant');
    fake.enqueue(reply.text('Fine.'));
    assert.equal(await h.started.session.send('Shorter please'), 'end_turn');
    assert.equal(fake.messageRequests().at(-1)?.reply?.status, 200);
  });

  it('cancels during a tool: the running call and the ones after it get cancelled results', async () => {
    const h = await harness();
    fake.enqueue(
      reply.message([
        { type: 'tool_use', id: 'toolu_sleep', name: 'run_shell', input: { command: 'sleep 30' } },
        { type: 'tool_use', id: 'toolu_after', name: 'read_file', input: { path: 'a.txt' } },
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
    fake.enqueue(reply.text('Stopped.'));
    assert.equal(await h.started.session.send('ok, go on'), 'end_turn');
    assert.equal(fake.messageRequests().at(-1)?.reply?.status, 200, 'the fake accepted the history after the cancel');
  });

  it('retries 429 and 529 (honouring retry-after) and then succeeds', async () => {
    const h = await harness();
    fake.enqueue(reply.error(429, { retryAfter: 0.01 }), reply.error(529), reply.disconnect(), reply.text('Finally.'));
    assert.equal(await h.started.session.send('hello'), 'end_turn');
    const retries = h.events.filter((event) => event.type === 'retrying');
    assert.equal(retries.length, 3);
    assert.equal(retries[0]?.type === 'retrying' && retries[0].delayMs, 10);
    assert.equal(h.started.session.history.at(-1)?.role, 'assistant');
  });

  it('retries a stream cut mid-way', async () => {
    const h = await harness();
    fake.enqueue(reply.text('Half of this will arrive.', { stream: { cutAfterEvents: 4 } }), reply.text('Whole.'));
    assert.equal(await h.started.session.send('hello'), 'end_turn');
    assert.ok(h.events.some((event) => event.type === 'retrying'));
    const history = h.started.session.history;
    assert.deepEqual(history.at(-1), { role: 'assistant', content: [{ type: 'text', text: 'Whole.' }] });
  });

  it('gives up after the retry budget with a clear error and a next step', async () => {
    const h = await harness({ maxRetries: 1 });
    fake.enqueue(reply.error(529), reply.error(529));
    assert.equal(await h.started.session.send('hello'), 'error');
    const error = h.events.find((event) => event.type === 'error');
    assert.ok(error?.type === 'error');
    assert.match(error.message, /overloaded \(529\)/);
    assert.ok(error.hint);
    assert.equal(error.kind, 'overloaded');
    assert.deepEqual(error.actions, ['retry']);
  });

  it('Retry sends the conversation again without repeating the user message', async () => {
    const h = await harness({ maxRetries: 0 });
    fake.enqueue(reply.error(529), reply.text('Here it is.'));
    assert.equal(await h.started.session.send('hello'), 'error');
    assert.equal(await h.started.session.retry(), 'end_turn');
    const requests = fake.messageRequests();
    const last = requests.at(-1)?.body as { messages: Array<{ role: string; content: unknown }> };
    assert.equal(last.messages.length, 1, JSON.stringify(last.messages));
    assert.equal(last.messages[0]?.role, 'user');
    assert.deepEqual(
      h.started.session.history.map((message) => message.role),
      ['user', 'assistant'],
    );
    const started = h.events.filter((event) => event.type === 'turn_started');
    assert.equal(started.at(-1)?.type === 'turn_started' && started.at(-1)?.type === 'turn_started' ? (started.at(-1) as { userText: string }).userText : undefined, '');
  });

  it('Retry after a partial reply asks the model to continue', async () => {
    const h = await harness({ maxRetries: 0 });
    fake.enqueue(reply.text('Half of this will arrive and then the stream is cut.', { stream: { cutAfterEvents: 4 } }), reply.text('…and the rest.'));
    assert.equal(await h.started.session.send('hello'), 'error');
    assert.equal(h.started.session.history.at(-1)?.role, 'assistant', 'the partial text is kept');
    assert.equal(await h.started.session.retry(), 'end_turn');
    const roles = h.started.session.history.map((message) => message.role);
    assert.deepEqual(roles, ['user', 'assistant', 'user', 'assistant']);
    assert.deepEqual(h.started.session.history[2], { role: 'user', content: [{ type: 'text', text: 'Continue.' }] });
  });

  it('errors carry the kind and the next steps the core chooses', async () => {
    const h = await harness();
    fake.enqueue(reply.error(401));
    assert.equal(await h.started.session.send('hi'), 'error');
    const error = h.events.find((event) => event.type === 'error');
    assert.ok(error?.type === 'error');
    assert.equal(error.kind, 'authentication');
    assert.deepEqual(error.actions, ['setApiKey']);
  });

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

  it('refuses to start with a rejected (401) or missing key, saying what to do, and writes nothing', async () => {
    await assert.rejects(harness({ apiKey: 'sk-ant-wrong' }), (error: unknown) => {
      assert.ok(error instanceof ModelError && error.kind === 'authentication');
      assert.match(error.message, /rejected \(401\)/);
      assert.match(error.hint ?? '', /Set API Key/);
      return true;
    });
    const saved = process.env.ANTHROPIC_API_KEY;
    delete process.env.ANTHROPIC_API_KEY;
    try {
      await assert.rejects(harness({ apiKey: undefined }), (error: unknown) => error instanceof ModelError && error.kind === 'no_api_key' && /ANTHROPIC_API_KEY/.test(error.hint ?? ''));
    } finally {
      if (saved !== undefined) process.env.ANTHROPIC_API_KEY = saved;
    }
    for (const dir of dirs.filter((candidate) => candidate.includes('evergreen-storage-'))) assert.equal(fs.existsSync(path.join(dir, 'sessions')), false);
  });

  it('reports a key revoked mid-session as an error event, keeping the session usable', async () => {
    const h = await harness();
    fake.enqueue(reply.error(401), reply.text('Back.'));
    assert.equal(await h.started.session.send('hi'), 'error');
    const error = h.events.find((event) => event.type === 'error');
    assert.ok(error?.type === 'error' && /rejected \(401\)/.test(error.message) && /Set API Key/.test(error.hint ?? ''));
    assert.equal(await h.started.session.send('again'), 'end_turn');
  });

  it('reports an unreachable server and an unknown model clearly', async () => {
    const unreachable = new ModelClient({ apiKey: 'k', baseURL: 'http://127.0.0.1:9', maxRetries: 0 });
    await assert.rejects(unreachable.stream({ system: 's', tools: [], messages: [{ role: 'user', content: 'hi' }], maxTokens: 10 }), (error: unknown) => {
      assert.ok(error instanceof ModelError && error.kind === 'connection');
      assert.match(error.message, /Could not reach the Anthropic API at http:\/\/127\.0\.0\.1:9/);
      return true;
    });
    const unknown = new ModelClient({ apiKey: fake.apiKey, baseURL: fake.url, model: 'claude-imaginary-9' });
    await assert.rejects(unknown.contextWindow(undefined), (error: unknown) => error instanceof ModelError && error.kind === 'model_not_found' && /evergreen\.model/.test(error.hint ?? ''));
    const known = new ModelClient({ apiKey: fake.apiKey, baseURL: fake.url, model: 'claude-sonnet-4-6' });
    assert.equal(await known.contextWindow(undefined), 200_000);
    assert.equal(await known.contextWindow(50_000), 50_000);
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
    fake.enqueue(reply.toolUse('write_file', { path: 'new.txt', content: 'x' }, { id: 'toolu_w' }), reply.text('Understood.'));
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
    fake.enqueue(
      reply.message([
        { type: 'text', text: '\n\n' },
        { type: 'tool_use', id: 'toolu_ws', name: 'read_file', input: { path: 'a.txt' } },
      ]),
      reply.text('Done.'),
      reply.text('Still fine.'),
    );
    assert.equal(await h.started.session.send('read'), 'end_turn');
    assert.equal(await h.started.session.send('again'), 'end_turn');
    assert.ok(fake.messageRequests().every((request) => request.reply?.status === 200));
  });

  it('retries an overload reported inside the stream (an SSE error event)', async () => {
    const h = await harness();
    fake.enqueue(reply.text('Partial', { stream: { errorAfterEvents: { after: 3, type: 'overloaded_error' } } }), reply.text('Recovered.'));
    assert.equal(await h.started.session.send('hi'), 'end_turn');
    const retry = h.events.find((event) => event.type === 'retrying');
    assert.ok(retry?.type === 'retrying' && /overloaded/i.test(retry.reason), JSON.stringify(retry));
  });

  it('caps the reply reserve at the model\'s output limit', async () => {
    fake.setModel('claude-small-output', { max_input_tokens: 200_000, max_tokens: 8192 });
    const h = await harness({ model: 'claude-small-output', maxOutputTokens: 16_000 });
    fake.enqueue(reply.text('Short.'));
    assert.equal(await h.started.session.send('hi'), 'end_turn');
    assert.equal((fake.messageRequests().at(-1)?.body as { max_tokens: number }).max_tokens, 8192);
  });

  it('treats a stalled stream as a dropped connection and retries it', async () => {
    const client = new ModelClient({ apiKey: fake.apiKey, baseURL: fake.url, model: 'claude-sonnet-4-6', streamIdleTimeoutMs: 200, retryBaseDelayMs: 1 });
    fake.enqueue(reply.text('slow', { stream: { eventDelayMs: 2_000 } }), reply.text('fast'));
    const retries: string[] = [];
    const response = await client.stream({ system: 's', tools: [], messages: [{ role: 'user', content: 'hi' }], maxTokens: 100 }, { onRetry: (info) => retries.push(info.reason) });
    assert.deepEqual(response.content.map((block) => block.type === 'text' && block.text), ['fast']);
    assert.match(retries[0] ?? '', /stalled: no data for 0 s/);
  });

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

  it('does not retry what the server marks x-should-retry: false', async () => {
    const client = new ModelClient({ apiKey: fake.apiKey, baseURL: fake.url, model: 'claude-sonnet-4-6', retryBaseDelayMs: 1 });
    fake.enqueue(reply.error(529, { headers: { 'x-should-retry': 'false' } }), reply.text('never reached'));
    await assert.rejects(client.stream({ system: 's', tools: [], messages: [{ role: 'user', content: 'hi' }], maxTokens: 100 }), (error: unknown) => error instanceof ModelError && error.kind === 'overloaded');
    assert.equal(fake.pendingReplies(), 1);
  });

  it('resumes a session that crashed after a tool_use, and records the repair so replay matches', async () => {
    const h = await harness();
    fake.enqueue(reply.text('ok'));
    await h.started.session.send('hi');
    // Simulate a crash between the tool_use being written and its result.
    h.started.handle.append({ type: 'message', ts: 't', message: { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_lost', name: 'read_file', input: { path: 'a.txt' } }] } });
    const resume = () =>
      startAgentSession({ config: baseConfig(), workspaceRoot: h.workspace, store: new FileSessionStore(h.storage), resumeId: h.started.handle.id, approver: { requestApproval: async () => ({ approved: true }) }, onEvent: () => undefined });
    const first = await resume();
    const answer = first.session.history.at(-1);
    assert.ok(answer?.role === 'user' && Array.isArray(answer.content) && answer.content[0]?.type === 'tool_result' && answer.content[0].tool_use_id === 'toolu_lost');
    const second = await resume();
    assert.deepEqual(second.session.history, first.session.history);
    fake.enqueue(reply.text('Recovered.'));
    assert.equal(await second.session.send('go on'), 'end_turn');
    assert.equal(fake.messageRequests().at(-1)?.reply?.status, 200);
  });

  it('resumes a session from its transcript with the same history and system prompt', async () => {
    const h = await harness();
    fake.enqueue(reply.toolUse('read_file', { path: 'a.txt' }), reply.text('Read it.'));
    await h.started.session.send('read a.txt');
    const resumed = await startAgentSession({
      config: baseConfig(),
      workspaceRoot: h.workspace,
      store: new FileSessionStore(h.storage),
      resumeId: h.started.handle.id,
      approver: { requestApproval: async () => ({ approved: true }) },
      onEvent: () => undefined,
    });
    assert.deepEqual(resumed.session.history, h.started.session.history);
    assert.equal(resumed.session.systemPrompt, h.started.session.systemPrompt);
    assert.deepEqual(resumed.replay.filter((event) => event.type === 'tool_call_finished').length, 1);
    fake.enqueue(reply.text('Still here.'));
    assert.equal(await resumed.session.send('and now?'), 'end_turn');
    const body = fake.messageRequests().at(-1)?.body as Anthropic.MessageCreateParams;
    assert.equal(body.messages.length, 5);
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
