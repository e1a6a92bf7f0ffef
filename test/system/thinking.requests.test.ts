/**
 * Extended thinking (issue 21) through the real SDKs against the strict fakes: what each back end
 * sends for the setting, what goes back within a turn (byte for byte) and what never does, the
 * notices when something cannot be sent as asked, and what the usage events carry.
 */
import { said as saidText } from '../support/said';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentEvent } from '../../src/core/agent/events';
import { startAgentSession, type AgentConfig, type StartedSession } from '../../src/core/agent/factory';
import { THINKING_OFF_FOR_TURN } from '../../src/core/agent/thinkingTurn';
import { INTERLEAVED_THINKING_BETA } from '../../src/core/model/anthropic';
import type { MessageParam } from '../../src/core/model/messages';
import { costOf, priceFor } from '../../src/core/model/models';
import { THINKING_DEFAULTS } from '../../src/core/model/thinking';
import { FileSessionStore } from '../../src/core/storage/sessionStore';
import { reply, thinkingSignature, type FakeAnthropic, type MessagesRequestBody } from '../fake-anthropic/server';
import { reply as openaiReply, startFakeOpenAI, type ChatRequestBody, type FakeOpenAI } from '../fake-openai/server';
import { useCliFixture } from '../support/cliFixture';
import { useTempDirs } from '../support/tempDirs';

const BASE: Omit<AgentConfig, 'provider' | 'apiKey' | 'baseURL' | 'model'> = {
  maxOutputTokens: 4096,
  approvalPolicy: { writes: 'auto', shell: 'auto', shellAllowList: [] },
  trusted: true,
  ripgrepPath: undefined,
  retryBaseDelayMs: 1,
};

type Notice = Extract<AgentEvent, { type: 'thinking_notice' }>;
const notices = (events: AgentEvent[]): Notice[] => events.filter((event): event is Notice => event.type === 'thinking_notice');
const thinkingBlocks = (messages: readonly MessageParam[]) => messages.flatMap((message) => (typeof message.content === 'string' ? [] : message.content.filter((block) => block.type === 'thinking' || block.type === 'redacted_thinking')));

describe('extended thinking against the fake Messages API (real SDK)', function () {
  this.timeout(30_000);
  const fixture = useCliFixture('anthropic');
  let fake: FakeAnthropic;
  let workspace: string;
  let storage: string;

  beforeEach(async () => {
    ({ fake, workspace, storage } = fixture());
    fs.writeFileSync(path.join(workspace, 'a.txt'), 'alpha\n');
  });

  async function start(overrides: Partial<AgentConfig>, resumeId?: string): Promise<{ started: StartedSession; events: AgentEvent[] }> {
    const events: AgentEvent[] = [];
    const config: AgentConfig = { ...BASE, provider: 'anthropic', apiKey: fake.apiKey, baseURL: fake.url, model: 'claude-opus-4-1', ...overrides };
    const started = await startAgentSession({ config, workspaceRoot: workspace, store: new FileSessionStore(storage), resumeId, approver: { requestApproval: async () => ({ approved: true }) }, onEvent: (event) => events.push(event) });
    return { started, events };
  }
  const bodies = (): MessagesRequestBody[] => fake.messageRequests().map((request) => request.body as MessagesRequestBody);
  const statuses = (): (number | undefined)[] => fake.messageRequests().map((request) => request.reply?.status);

  it('asks a budget-form model for budget_tokens with max_tokens raised to hold it, the interleaved beta, and no sampling parameters', async () => {
    const { started, events } = await start({ thinking: 'auto' });
    fake.enqueue(reply.message([{ type: 'thinking', thinking: 'Plan: answer.' }, { type: 'text', text: 'Hi.' }]));
    assert.equal(await started.session.send('Hello'), 'end_turn');
    const request = fake.messageRequests()[0]!;
    const body = request.body as MessagesRequestBody;
    assert.deepEqual(body.thinking, { type: 'enabled', budget_tokens: THINKING_DEFAULTS.autoBudgetTokens });
    assert.equal(body.max_tokens, 4096 + THINKING_DEFAULTS.autoBudgetTokens, 'the reply keeps its 4,096 beside the budget');
    assert.equal(request.headers['anthropic-beta'], INTERLEAVED_THINKING_BETA);
    assert.equal('temperature' in body || 'top_k' in body || 'top_p' in body, false);
    assert.equal(notices(events).length, 0);
    // The engine reserves the budget too: the gauge's reserve is reply + budget.
    const gauge = events.filter((event): event is Extract<AgentEvent, { type: 'context' }> => event.type === 'context').at(-1)!.gauge;
    assert.equal(gauge.outputReserve, 4096 + THINKING_DEFAULTS.autoBudgetTokens);
    started.handle.close();
  });

  it('asks an adaptive model for adaptive thinking with the budget as an effort, and no beta header', async () => {
    const { started } = await start({ model: 'claude-sonnet-4-6', thinking: 20_000 });
    fake.enqueue(reply.text('Hi.'));
    await started.session.send('Hello');
    const request = fake.messageRequests()[0]!;
    const body = request.body as MessagesRequestBody & { output_config?: unknown };
    assert.deepEqual(body.thinking, { type: 'adaptive', display: 'summarized' });
    assert.deepEqual(body.output_config, { effort: 'high' });
    assert.equal(request.headers['anthropic-beta'], undefined);
    assert.deepEqual(statuses(), [200]);
    started.handle.close();
  });

  it('sends nothing and says so once when the model cannot think', async () => {
    fake.setModel('claude-3-5-haiku-20241022', { max_input_tokens: 200_000, max_tokens: 8192 });
    const { started, events } = await start({ model: 'claude-3-5-haiku-20241022', thinking: 10_000 });
    fake.enqueue(reply.text('Hi.'));
    assert.equal(await started.session.send('Hello'), 'end_turn');
    assert.equal(bodies()[0]!.thinking, undefined);
    assert.equal(bodies()[0]!.max_tokens, 4096);
    const said = notices(events);
    assert.equal(said.length, 1);
    assert.equal(said[0]!.level, 'warning');
    assert.match(saidText(said[0]!.message), /claude-3-5-haiku-20241022 cannot be asked to think/);
    started.handle.close();
  });

  it("returns the turn's signed thinking byte for byte in its tool loop, never in a later turn, and counts it in the usage", async () => {
    const { started, events } = await start({ thinking: 4000 });
    const plan = 'I should read a.txt.\nThen answer, quoting "it" exactly: \u00e9\u202e.';
    fake.enqueue(
      reply.message([{ type: 'thinking', thinking: plan }, { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4a' }, { type: 'tool_use', name: 'read_file', input: { path: 'a.txt' } }]),
      reply.text('It says alpha.'),
      reply.text('Bye.'),
    );
    assert.equal(await started.session.send('What does a.txt say?'), 'end_turn');
    assert.equal(await started.session.send('Thanks'), 'end_turn');
    assert.deepEqual(statuses(), [200, 200, 200]);
    const loop = bodies()[1]!.messages as MessageParam[];
    assert.deepEqual(thinkingBlocks(loop), [
      { type: 'thinking', thinking: plan, signature: thinkingSignature(plan) },
      { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4a' },
    ]);
    assert.deepEqual(bodies()[1]!.thinking, { type: 'enabled', budget_tokens: 4000 }, 'thinking stays on in the tool loop');
    assert.deepEqual(thinkingBlocks(bodies()[2]!.messages as MessageParam[]), [], "a completed turn's thinking is not sent again");
    // The history keeps it (the transcript and the panel show it).
    assert.ok(thinkingBlocks(started.session.history as MessageParam[]).length === 2);
    const usage = events.filter((event): event is Extract<AgentEvent, { type: 'usage' }> => event.type === 'usage')[0]!;
    assert.ok(usage.thinkingTokens !== undefined && usage.thinkingTokens > 0, 'the usage event says how much of the output was thinking');
    // The panel hears of the redacted block live, as a resume shows it.
    const firstTurn = events.slice(0, events.findIndex((event) => event.type === 'turn_finished'));
    assert.equal(firstTurn.filter((event) => event.type === 'thinking_redacted').length, 1);
    assert.ok(usage.usage.outputTokens >= usage.thinkingTokens);
    // Cost counts thinking as output: the whole output_tokens at the output price.
    assert.equal(usage.costUsd, costOf(usage.usage, priceFor('claude-opus-4-1')));
    started.handle.close();
  });

  it('never sends back unsigned thinking: the tool loop goes on without thinking for the rest of the turn, with a notice', async () => {
    const { started, events } = await start({ thinking: 'auto' });
    fake.enqueue(
      reply.message([{ type: 'thinking', thinking: 'A gateway stripped my signature.', signature: '' }, { type: 'tool_use', name: 'read_file', input: { path: 'a.txt' } }]),
      reply.toolUse('read_file', { path: 'a.txt' }),
      reply.text('Alpha.'),
      reply.message([{ type: 'thinking', thinking: 'Back on.' }, { type: 'text', text: 'Yes.' }]),
    );
    assert.equal(await started.session.send('Read it'), 'end_turn');
    assert.deepEqual(statuses(), [200, 200, 200], 'the fake refused a request');
    for (const body of bodies().slice(1)) {
      assert.equal(body.thinking, undefined);
      assert.deepEqual(thinkingBlocks(body.messages as MessageParam[]), []);
    }
    const said = notices(events);
    assert.equal(said.length, 1, 'said once per turn');
    assert.equal(saidText(said[0]!.message), saidText(THINKING_OFF_FOR_TURN));
    assert.match(saidText(THINKING_OFF_FOR_TURN), /^Thinking is off for the rest of this turn: .* It is back on from your next message\.$/);
    assert.equal(await started.session.send('Again?'), 'end_turn');
    assert.deepEqual(bodies()[3]!.thinking, { type: 'enabled', budget_tokens: THINKING_DEFAULTS.autoBudgetTokens }, 'back on in the next turn');
    started.handle.close();
  });

  it('a stream cut inside a thinking block is retried whole: only the complete, signed block goes back', async () => {
    const { started, events } = await start({ thinking: 'auto' });
    const plan = 'Read a.txt, then answer with what it says, word for word, and nothing else.';
    // message_start, content_block_start, one thinking_delta: cut before the rest of it and its signature.
    fake.enqueue(
      reply.message([{ type: 'thinking', thinking: plan }, { type: 'tool_use', name: 'read_file', input: { path: 'a.txt' } }], { stream: { cutAfterEvents: 3, textChunkChars: 10 } }),
      reply.message([{ type: 'thinking', thinking: plan }, { type: 'tool_use', name: 'read_file', input: { path: 'a.txt' } }]),
      reply.text('Alpha.'),
    );
    assert.equal(await started.session.send('Read it'), 'end_turn');
    assert.ok(events.some((event) => event.type === 'retrying'), 'the cut attempt was retried');
    assert.equal(fake.messageRequests()[0]!.reply?.kind, 'stream-cut');
    const loop = bodies().at(-1)!.messages as MessageParam[];
    assert.deepEqual(thinkingBlocks(loop), [{ type: 'thinking', thinking: plan, signature: thinkingSignature(plan) }]);
    assert.deepEqual(thinkingBlocks(started.session.history as MessageParam[]), [{ type: 'thinking', thinking: plan, signature: thinkingSignature(plan) }]);
    assert.equal(statuses().at(-1), 200);
    started.handle.close();
  });

  it('a summary request never asks for thinking and never ends with an assistant prefill', async () => {
    const { started } = await start({ thinking: 'auto' });
    fake.enqueue(
      reply.message([{ type: 'thinking', thinking: 'Look first.' }, { type: 'tool_use', name: 'read_file', input: { path: 'a.txt' } }]),
      reply.text('It says alpha.'),
      reply.text('<summary>The user asked what a.txt says: alpha.</summary>'),
    );
    await started.session.send('What does a.txt say?');
    const outcome = await started.session.compact();
    assert.ok(outcome.ok, saidText(outcome.message));
    const summary = bodies().at(-1)!;
    assert.equal(summary.thinking, undefined);
    assert.equal(summary.messages.at(-1)!.role, 'user');
    assert.equal(statuses().at(-1), 200);
    started.handle.close();
  });

  it('resumed under another model: its stored thinking is left out with one note, and the conversation goes on', async () => {
    const first = await start({ thinking: 'auto' });
    fake.enqueue(reply.message([{ type: 'thinking', thinking: 'Opus thinks.' }, { type: 'tool_use', name: 'read_file', input: { path: 'a.txt' } }]), reply.text('Alpha.'));
    await first.started.session.send('Read it');
    first.started.handle.close();
    const second = await start({ model: 'claude-haiku-4-5', thinking: 'auto' }, first.started.handle.id);
    const said = notices(second.events);
    assert.equal(said.length, 1);
    assert.equal(said[0]!.level, 'info');
    assert.match(saidText(said[0]!.message), /anthropic\/claude-opus-4-1.*claude-haiku-4-5 cannot take it.*conversation is kept/);
    fake.enqueue(reply.text('Still alpha.'));
    assert.equal(await second.started.session.send('And now?'), 'end_turn');
    const last = bodies().at(-1)!;
    assert.deepEqual(thinkingBlocks(last.messages as MessageParam[]), []);
    assert.equal((last.messages as MessageParam[]).length, 5, 'every message of the conversation is still sent');
    assert.equal(statuses().at(-1), 200);
    second.started.handle.close();
  });
});

/** A streamed Chat Completions reply as raw SSE: reasoning deltas (as vLLM / DeepSeek send), content, and usage with reasoning tokens. */
function reasoningSse(reasoning: string[], content: string, usage: { prompt: number; completion: number; reasoning: number }): string {
  const base = { id: 'chatcmpl-r1', object: 'chat.completion.chunk', created: 1, model: 'o4-mini' };
  const chunk = (delta: object, finish: string | null = null) => `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finish }], usage: null })}\n\n`;
  return [
    chunk({ role: 'assistant', content: '' }),
    ...reasoning.map((text) => chunk({ reasoning_content: text })),
    chunk({ content }),
    chunk({}, 'stop'),
    `data: ${JSON.stringify({ ...base, choices: [], usage: { prompt_tokens: usage.prompt, completion_tokens: usage.completion, total_tokens: usage.prompt + usage.completion, completion_tokens_details: { reasoning_tokens: usage.reasoning } } })}\n\n`,
    'data: [DONE]\n\n',
  ].join('');
}

describe('extended thinking against the fake Chat Completions API (real SDK)', function () {
  this.timeout(30_000);
  let fake: FakeOpenAI;
  let workspace: string;
  let storage: string;

  const temp = useTempDirs();
  beforeEach(async () => {
    fake = await startFakeOpenAI();
    workspace = temp.make('evergreen-thinking-ws-');
    storage = temp.make('evergreen-thinking-store-');
  });
  afterEach(async () => {
    await fake.close();
  });

  async function start(overrides: Partial<AgentConfig>): Promise<{ started: StartedSession; events: AgentEvent[] }> {
    const events: AgentEvent[] = [];
    const config: AgentConfig = { ...BASE, provider: 'openai', apiKey: fake.apiKey, baseURL: fake.url, model: 'o4-mini', ...overrides };
    const started = await startAgentSession({ config, workspaceRoot: workspace, store: new FileSessionStore(storage), approver: { requestApproval: async () => ({ approved: true }) }, onEvent: (event) => events.push(event) });
    return { started, events };
  }
  const bodies = (): ChatRequestBody[] => fake.completionRequests().map((request) => request.body as ChatRequestBody);

  it('maps the budget to reasoning_effort on a reasoning model, and sends none to a model without it', async () => {
    const { started } = await start({ thinking: 2000 });
    fake.enqueue(openaiReply.text('Hi.'), openaiReply.text('Hi again.'));
    assert.equal(await started.session.send('Hello'), 'end_turn');
    const answered = bodies().filter((_, index) => fake.completionRequests()[index]!.reply?.status === 200);
    assert.equal(answered.at(-1)!.reasoning_effort, 'low');
    assert.ok((answered.at(-1)!.max_completion_tokens ?? answered.at(-1)!.max_tokens)! >= 4096 + 2000, 'the completion limit holds the reasoning too');
    started.handle.close();

    const plain = await start({ model: 'gpt-4.1', thinking: 'auto' });
    fake.enqueue(openaiReply.text('Hi.'));
    await plain.started.session.send('Hello');
    assert.equal(bodies().at(-1)!.reasoning_effort, undefined);
    assert.equal(notices(plain.events)[0]?.level, 'info');
    plain.started.handle.close();
  });

  it('drops reasoning_effort once when the server refuses it, with a notice, and goes on', async () => {
    const { started, events } = await start({ model: 'gpt-5', thinking: 'auto', baseURL: fake.url });
    fake.enqueue(
      openaiReply.error(400, { message: 'Unrecognized request argument supplied: reasoning_effort', param: 'reasoning_effort' }),
      openaiReply.text('Hi.'),
      openaiReply.text('Hi again.'),
    );
    assert.equal(await started.session.send('Hello'), 'end_turn');
    assert.equal(await started.session.send('Hello again'), 'end_turn');
    const efforts = bodies().map((body) => body.reasoning_effort);
    assert.equal(efforts.filter((effort) => effort !== undefined).length >= 1, true, 'it was asked for first');
    assert.equal(efforts.at(-1), undefined);
    assert.equal(efforts.at(-2), undefined, 'dropped for the rest of the session');
    const said = notices(events);
    assert.equal(said.length, 1);
    assert.match(saidText(said[0]!.message), /refuses reasoning_effort for gpt-5.*without thinking/);
    started.handle.close();
  });

  it("shows a compatible server's reasoning_content as thinking, never sends it back, and counts reasoning tokens", async () => {
    const { started, events } = await start({ thinking: 'auto' });
    fake.enqueue(openaiReply.raw(200, reasoningSse(['The user ', 'greets me.'], 'Hello!', { prompt: 900, completion: 120, reasoning: 100 }), 'text/event-stream'), openaiReply.text('Fine.'));
    assert.equal(await started.session.send('Hi'), 'end_turn');
    const streamed = events.filter((event): event is Extract<AgentEvent, { type: 'thinking_delta' }> => event.type === 'thinking_delta').map((event) => event.text).join('');
    assert.equal(streamed, 'The user greets me.');
    const usage = events.find((event): event is Extract<AgentEvent, { type: 'usage' }> => event.type === 'usage')!;
    assert.equal(usage.thinkingTokens, 100);
    assert.equal(usage.usage.outputTokens, 120, 'reasoning is part of the output the cost counts');
    assert.equal(await started.session.send('How are you?'), 'end_turn');
    const sent = JSON.stringify(bodies().at(-1)!.messages);
    assert.ok(!sent.includes('greets me'), 'the reasoning went back to the server');
    assert.ok(sent.includes('Hello!'));
    started.handle.close();
  });
});
