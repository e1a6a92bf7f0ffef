/**
 * A session that changes provider on its way (issue 9): Anthropic (thinking and tool calls) ->
 * OpenAI-compatible (parallel calls, a whitespace preamble, ids Anthropic refuses, an id repeated
 * across turns, as some local servers send) -> Anthropic again. Each strict fake must accept every
 * request: what one provider wrote stays a valid history for the other.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startAgentSession, type AgentConfig } from '../../src/core/agent/factory';
import type { MessageParam } from '../../src/core/model/messages';
import { FileSessionStore } from '../../src/core/storage/sessionStore';
import { reply, startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic/server';
import { reply as openaiReply, startFakeOpenAI, type FakeOpenAI } from '../fake-openai/server';
import { useTempDirs } from '../support/tempDirs';

const BASE: Omit<AgentConfig, 'provider' | 'apiKey' | 'baseURL' | 'model'> = {
  maxOutputTokens: 4096,
  approvalPolicy: { writes: 'auto', shell: 'auto', shellAllowList: [] },
  trusted: true,
  ripgrepPath: undefined,
  retryBaseDelayMs: 1,
};

describe('switching provider mid-session, and back', function () {
  this.timeout(30_000);
  const temp = useTempDirs();
  let anthropic: FakeAnthropic;
  let openai: FakeOpenAI;
  let workspace: string;
  let storage: string;

  beforeEach(async () => {
    anthropic = await startFakeAnthropic();
    openai = await startFakeOpenAI();
    workspace = temp.make('evergreen-switch-ws-');
    storage = temp.make('evergreen-switch-store-');
    fs.writeFileSync(path.join(workspace, 'a.txt'), 'alpha\n');
  });
  afterEach(async () => {
    await Promise.all([anthropic.close(), openai.close()]);
  });

  it('keeps a history each strict fake accepts, whoever wrote it', async () => {
    const store = new FileSessionStore(storage);
    const onClaude: AgentConfig = { ...BASE, provider: 'anthropic', apiKey: anthropic.apiKey, baseURL: anthropic.url, model: 'claude-sonnet-4-6', thinking: 'auto' };
    const onGpt: AgentConfig = { ...BASE, provider: 'openai', apiKey: openai.apiKey, baseURL: openai.url, model: 'gpt-4.1-mini' };
    const turn = async (config: AgentConfig, text: string, resumeId?: string): Promise<string> => {
      const started = await startAgentSession({ config, workspaceRoot: workspace, store, resumeId, approver: { requestApproval: async () => ({ approved: true }) }, onEvent: () => undefined });
      assert.equal(await started.session.send(text), 'end_turn');
      started.handle.close();
      return started.handle.id;
    };

    anthropic.enqueue(reply.message([{ type: 'thinking', thinking: 'Read the file first.' }, { type: 'tool_use', name: 'read_file', input: { path: 'a.txt' } }]), reply.text('It says alpha.'));
    const id = await turn(onClaude, 'What does a.txt say?');

    openai.enqueue(
      openaiReply.toolCalls(
        [
          { name: 'read_file', arguments: { path: 'a.txt' }, id: 'functions.read_file:0' },
          { name: 'list_files', arguments: {}, id: 'call_0' },
        ],
        { preamble: '\n' },
      ),
      openaiReply.toolCall('read_file', { path: 'a.txt' }, { id: 'call_0' }),
      openaiReply.text('Still alpha.'),
    );
    await turn(onGpt, 'Check again, twice.', id);
    assert.equal(openai.rejectedRequests().length, 0, 'the OpenAI server refused the converted history');

    anthropic.enqueue(reply.toolUse('read_file', { path: 'a.txt' }), reply.text('Alpha, as before.'));
    await turn(onClaude, 'And once more on Claude.', id);
    const answered = anthropic.messageRequests().map((request) => request.reply?.status);
    assert.deepEqual(answered, [200, 200, 200, 200], 'the Anthropic server refused the history OpenAI wrote');

    // The last request holds the whole conversation: every call of every provider, each answered.
    const messages = (anthropic.messageRequests().at(-1)!.body as { messages: MessageParam[] }).messages;
    const blocks = messages.flatMap((message) => (typeof message.content === 'string' ? [] : message.content));
    const calls = blocks.flatMap((block) => (block.type === 'tool_use' ? [block.id] : []));
    const results = blocks.flatMap((block) => (block.type === 'tool_result' ? [block.tool_use_id] : []));
    assert.equal(calls.length, 5);
    assert.equal(new Set(calls).size, 5, `tool_use ids repeat: ${calls.join(', ')}`);
    assert.deepEqual(results, calls);
    assert.ok(calls.every((callId) => /^[a-zA-Z0-9_-]+$/.test(callId)), calls.join(', '));
    // Thinking goes back within the turn that wrote it (the tool loop) and never after (issue 21: the API ignores it).
    const loop = (anthropic.messageRequests()[1]!.body as { messages: MessageParam[] }).messages;
    assert.ok(loop.some((message) => typeof message.content !== 'string' && message.content.some((block) => block.type === 'thinking')), "Claude's thinking went back within its turn");
    assert.ok(!blocks.some((block) => block.type === 'thinking'), "a completed turn's thinking was sent again");
  });
});
