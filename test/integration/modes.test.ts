import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { EvergreenApi } from '../../src/extension/testApi';
import type { ModePicker } from '../../src/protocol';
import { reply, startFakeAnthropic, type FakeAnthropic, type MessagesRequestBody } from '../fake-anthropic/server';

const PLAN = '# Greeting\n\n## Steps\n1. Edit the greeting\n2. Check it\n';

/** The texts of a request's last message (the mode's block and a plan decision open it). */
function lastTexts(body: unknown): string[] {
  const content: unknown = (body as MessagesRequestBody).messages.at(-1)?.content;
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  return content.flatMap((block: { type?: unknown; text?: unknown }) => (block.type === 'text' && typeof block.text === 'string' ? [block.text] : []));
}

// Issue 28 in the extension host: the composer's mode picker (its setMode request) puts the next
// chat in plan mode, plan mode refuses a write, exit_plan_mode ends the turn with a plan card, and
// the card's Build it (its planDecision request) switches to agent with the steps as the task list.
describe('plan mode in the extension host (issue 28)', () => {
  let fake: FakeAnthropic;
  let target: string;
  before(async () => {
    fake = await startFakeAnthropic();
    process.env.ANTHROPIC_API_KEY = fake.apiKey;
    await vscode.workspace.getConfiguration('evergreen').update('baseUrl', fake.url, vscode.ConfigurationTarget.Global);
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder, 'the test workspace has no folder');
    target = path.join(folder.uri.fsPath, 'plan-mode-greeting.txt');
  });
  after(async () => {
    await vscode.workspace.getConfiguration('evergreen').update('baseUrl', undefined, vscode.ConfigurationTarget.Global);
    fs.rmSync(target, { force: true });
    await fake.close();
  });

  it('plans without writing from the picker\'s mode, shows the plan, and builds it from the card', async () => {
    const extension = vscode.extensions.getExtension<EvergreenApi>('evergreen.evergreen-agent');
    assert.ok(extension);
    const api = await extension.activate();
    await vscode.commands.executeCommand('evergreen.newChat');
    const picker = (await api.panelRequest({ type: 'setMode', mode: 'plan' })) as ModePicker;
    assert.equal(picker.current, 'plan');
    assert.deepEqual(picker.options.slice(0, 2).map((option) => option.name), ['agent', 'plan']);

    fake.enqueue(reply.toolUse('write_file', { path: 'plan-mode-greeting.txt', content: 'hi\n' }, { id: 'toolu_write' }), reply.toolUse('exit_plan_mode', { plan: PLAN }, { id: 'toolu_plan' }));
    await api.sendMessage('Plan a greeting file.');
    const planned = fake.messageRequests();
    assert.equal(planned.length, 2, 'exit_plan_mode ended the turn');
    assert.match(lastTexts(planned[0]!.body)[0] ?? '', /^The user switched to the plan mode\./);
    assert.match(JSON.stringify((planned[1]!.body as MessagesRequestBody).messages.at(-1)), /write_file is not available in the plan mode/);
    assert.equal(fs.existsSync(target), false, 'plan mode wrote a file');
    assert.ok(api.chatEventTypes().includes('plan_proposed'), api.chatEventTypes().join(', '));

    fake.enqueue(reply.text('Building it.'));
    await api.panelRequest({ type: 'planDecision', toolUseId: 'toolu_plan', decision: 'build', note: 'Start with step 1.' });
    const texts = lastTexts(fake.messageRequests().at(-1)!.body);
    assert.match(texts[0] ?? '', /^The user switched to the agent mode\./);
    assert.match(texts[1] ?? '', /^\[Plan decision: build\] \(exit_plan_mode call toolu_plan\)[\s\S]*- \[pending\] 1: Edit the greeting/);
    assert.equal(texts.at(-1), 'Start with step 1.');
    const types = api.chatEventTypes();
    const decided = types.indexOf('plan_decided');
    assert.ok(decided > types.indexOf('plan_proposed') && types.indexOf('todos', decided) > decided, types.join(', '));
    const after = (await api.panelRequest({ type: 'setMode', mode: 'agent' })) as ModePicker;
    assert.equal(after.current, 'agent', 'Build it left the chat in agent mode');
  });
  it('/mode switches the chat as the picker does; an unknown name leaves the mode as it was', async () => {
    const extension = vscode.extensions.getExtension<EvergreenApi>('evergreen.evergreen-agent');
    assert.ok(extension);
    const api = await extension.activate();
    await vscode.commands.executeCommand('evergreen.newChat');
    const sent = fake.messageRequests().length;
    const notices = () => api.chatEventTypes().filter((type) => type === 'customization_notice').length;
    const before = notices();
    await api.sendMessage('/mode plan');
    assert.equal(fake.messageRequests().length, sent, '/mode sends nothing to the model');
    assert.equal(notices(), before + 1, '/mode says what it did');
    await api.sendMessage('/mode nope');
    assert.equal(notices(), before + 2, 'an unknown mode is said in the chat');
    fake.enqueue(reply.text('Looking.'));
    await api.sendMessage('Look around.');
    assert.match(lastTexts(fake.messageRequests().at(-1)!.body)[0] ?? '', /^The user switched to the plan mode\./);
    const picker = (await api.panelRequest({ type: 'setMode', mode: 'agent' })) as ModePicker;
    assert.equal(picker.current, 'agent');
  });
});
