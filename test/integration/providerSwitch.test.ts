import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { EvergreenApi } from '../../src/extension/testApi';
import { reply, startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic/server';
import { reply as openaiReply, startFakeOpenAI, type FakeOpenAI } from '../fake-openai/server';

/** The text of a chat message as either API carries it (a string, or parts/blocks with text). */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part: { type?: unknown; text?: unknown }) => (part.type === 'text' && typeof part.text === 'string' ? part.text : '')).join('');
}

// Issue 9: switching evergreen.provider mid-conversation rebuilds the session on its transcript,
// so the next message goes to the other provider with the whole history.
describe('Switching the provider mid-session', () => {
  let anthropic: FakeAnthropic;
  let openai: FakeOpenAI;
  const config = () => vscode.workspace.getConfiguration('evergreen');

  before(async () => {
    anthropic = await startFakeAnthropic();
    openai = await startFakeOpenAI();
    process.env.ANTHROPIC_API_KEY = anthropic.apiKey;
    process.env.OPENAI_API_KEY = openai.apiKey;
    await config().update('provider', 'anthropic', vscode.ConfigurationTarget.Global);
    await config().update('baseUrl', anthropic.url, vscode.ConfigurationTarget.Global);
    await config().update('openai.baseUrl', openai.url, vscode.ConfigurationTarget.Global);
    await config().update('openai.model', 'gpt-4.1-mini', vscode.ConfigurationTarget.Global);
  });
  after(async () => {
    for (const key of ['provider', 'baseUrl', 'openai.baseUrl', 'openai.model']) await config().update(key, undefined, vscode.ConfigurationTarget.Global);
    delete process.env.OPENAI_API_KEY;
    await Promise.all([anthropic.close(), openai.close()]);
  });

  it('sends the next message to the new provider with the history intact, and records who wrote each reply', async () => {
    const extension = vscode.extensions.getExtension<EvergreenApi>('evergreen.evergreen-agent');
    assert.ok(extension);
    const api = await extension.activate();
    await vscode.commands.executeCommand('evergreen.newChat');

    anthropic.enqueue(reply.text('Claude here: the answer is 42.'));
    await api.sendMessage('What is the answer?');
    assert.equal(anthropic.messageRequests().length, 1);
    const { sessionId } = api.contextState();
    assert.ok(sessionId);

    await config().update('provider', 'openai', vscode.ConfigurationTarget.Global);
    openai.enqueue(openaiReply.text('GPT here: you asked about 42.'));
    await api.sendMessage('What did you say before?');

    assert.equal(anthropic.messageRequests().length, 1, 'the second message went to Anthropic');
    const requests = openai.completionRequests();
    assert.equal(requests.length, 1, 'the second message did not reach the OpenAI server');
    assert.equal(openai.rejectedRequests().length, 0, 'the OpenAI server rejected the converted history');
    const body = requests[0]!.body as { model: string; messages: Array<{ role: string; content: unknown }> };
    assert.equal(body.model, 'gpt-4.1-mini');
    assert.deepEqual(
      body.messages.map((message) => [message.role, textOf(message.content)]).filter(([role]) => role !== 'system'),
      [
        ['user', 'What is the answer?'],
        ['assistant', 'Claude here: the answer is 42.'],
        ['user', 'What did you say before?'],
      ],
    );
    assert.equal(body.messages[0]?.role, 'system');
    assert.equal(api.contextState().sessionId, sessionId, 'the switch started another session');

    const transcript = path.join(api.storageUri.fsPath, 'sessions', sessionId, 'transcript.jsonl');
    const replies = fs
      .readFileSync(transcript, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; message?: { role: string }; provider?: string; model?: string })
      .filter((entry) => entry.type === 'message' && entry.message?.role === 'assistant')
      .map((entry) => [entry.provider, entry.model]);
    assert.equal(replies.length, 2);
    assert.equal(replies[0]?.[0], 'anthropic');
    assert.deepEqual(replies[1], ['openai', 'gpt-4.1-mini']);
  });
});
