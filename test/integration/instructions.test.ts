import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { EvergreenApi } from '../../src/extension/testApi';
import { reply, startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic/server';

/** The system prompt of a request the fake received, as text. */
function systemOf(body: unknown): string {
  const system = (body as { system?: unknown }).system;
  if (typeof system === 'string') return system;
  return Array.isArray(system) ? system.map((block: { text?: string }) => block.text ?? '').join('\n') : '';
}

// Runs in name order after gaugeAndBreakdown, on its own fake API and a new chat; leaves no file behind.
describe('Project instructions in the real extension host', () => {
  let fake: FakeAnthropic;
  let agentsFile: string;
  before(async () => {
    fake = await startFakeAnthropic();
    process.env.ANTHROPIC_API_KEY = fake.apiKey;
    await vscode.workspace.getConfiguration('evergreen').update('baseUrl', fake.url, vscode.ConfigurationTarget.Global);
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder, 'the test window has a workspace folder');
    agentsFile = path.join(folder.uri.fsPath, 'AGENTS.md');
  });
  after(async () => {
    fs.rmSync(agentsFile, { force: true });
    await vscode.workspace.getConfiguration('evergreen').update('baseUrl', undefined, vscode.ConfigurationTarget.Global);
    await fake.close();
  });

  it('sends AGENTS.md in the first request, shows an Instructions line in the gauge and the breakdown, and Reload Instructions picks up a change', async () => {
    fs.writeFileSync(agentsFile, '# Rules\n\nINTEGRATION RULE ONE: always run the tests.\n');
    const extension = vscode.extensions.getExtension<EvergreenApi>('evergreen.evergreen-agent');
    assert.ok(extension);
    const api = await extension.activate();
    await vscode.commands.executeCommand('evergreen.newChat');
    const before = fake.messageRequests().length;
    fake.enqueue(reply.text('I will run the tests.'));
    await api.sendMessage('What are the rules here?');

    const first = fake.messageRequests()[before];
    assert.ok(first, 'a request was sent');
    const system = systemOf(first.body);
    assert.ok(system.includes('# Project instructions') && system.includes('## AGENTS.md') && system.includes('INTEGRATION RULE ONE'), system);

    const { tooltip } = api.contextState();
    assert.match(tooltip ?? '', /^Instructions: [\d.]+k? \(\d+%\)$/m, tooltip);
    await vscode.commands.executeCommand('evergreen.showContextBreakdown');
    const text = vscode.window.activeTextEditor?.document.getText() ?? '';
    assert.match(text, /\| Instructions \| ~?[\d,]+ \|/, text);

    // A changed file is read again by Reload Instructions: same chat, new system prompt.
    fs.writeFileSync(agentsFile, 'INTEGRATION RULE TWO: never push on Fridays.\n');
    const reloaded = await api.reloadInstructions();
    assert.equal(reloaded.ok, true, reloaded.message);
    const sessionId = api.contextState().sessionId;
    fake.enqueue(reply.text('Noted.'));
    await api.sendMessage('And now?');
    const last = fake.messageRequests().at(-1)!;
    const newSystem = systemOf(last.body);
    assert.ok(newSystem.includes('INTEGRATION RULE TWO') && !newSystem.includes('INTEGRATION RULE ONE'), newSystem);
    assert.equal(api.contextState().sessionId, sessionId, 'the same chat goes on');
    const sent = (last.body as { messages: unknown[] }).messages;
    assert.ok(sent.length >= 3, 'the conversation so far is still sent');
  });
});
