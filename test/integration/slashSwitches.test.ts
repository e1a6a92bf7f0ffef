import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { EvergreenApi } from '../../src/extension/testApi';
import { reply, type FakeAnthropic, type MessagesRequestBody } from '../fake-anthropic/server';
import { useFakeApi } from '../support/hostFakeApi';

type SentBody = MessagesRequestBody & { model: string; thinking?: { type: string } };

// Issue 28 in the extension host: /model and /thinking typed in the panel switch this chat on its
// own transcript (the conversation goes on), send nothing by themselves, and leave the settings alone.
describe('/model and /thinking in the panel (issue 28)', () => {
  let fake: FakeAnthropic;
  useFakeApi((started) => (fake = started));

  it('switch the running chat from the next message, keep its conversation, and refuse a model that cannot be used', async () => {
    const extension = vscode.extensions.getExtension<EvergreenApi>('evergreen.evergreen-agent');
    assert.ok(extension);
    const api = await extension.activate();
    await vscode.commands.executeCommand('evergreen.newChat');
    fake.enqueue(reply.text('On the first model.'));
    await api.sendMessage('Which model?');
    const first = fake.messageRequests().at(-1)!.body as SentBody;
    assert.notEqual(first.model, 'claude-opus-4-6', 'the chat already runs on the model /model switches to');
    assert.equal(first.thinking, undefined, 'thinking is off by default');

    const sent = fake.messageRequests().length;
    const notices = () => api.chatEventTypes().filter((type) => type === 'customization_notice').length;
    const before = notices();
    await api.sendMessage('/model claude-opus-4-6');
    await api.sendMessage('/thinking 2048');
    await api.sendMessage('/model no-such-model');
    assert.equal(fake.messageRequests().length, sent, 'the commands send nothing to the model');
    assert.equal(notices(), before + 3, 'each command says what it did in the chat');

    fake.enqueue(reply.text('On the second model.'));
    await api.sendMessage('And now?');
    const switched = fake.messageRequests().at(-1)!.body as SentBody;
    assert.equal(switched.model, 'claude-opus-4-6', 'the unknown model left the switched one in place');
    assert.equal(switched.thinking?.type, 'adaptive', 'Claude 4.6 thinks in the adaptive form');
    assert.match(JSON.stringify(switched.messages), /Which model\?[\s\S]*On the first model\.[\s\S]*And now\?/, 'the conversation went on');
    const settings = vscode.workspace.getConfiguration('evergreen');
    assert.equal(settings.inspect('model')?.globalValue, undefined, 'the model setting is untouched');
    assert.equal(settings.inspect('thinking')?.globalValue, undefined, 'the thinking setting is untouched');
  });
});
