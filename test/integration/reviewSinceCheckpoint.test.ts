/**
 * "Review Changes Since Checkpoint…" in the real extension host (issue 31): the panel's chat edits
 * two far-apart lines of a file; rejecting one hunk of what it changed since the message's
 * checkpoint puts back only those lines, and the other change stays.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { EvergreenApi } from '../../src/extension/testApi';
import { reply, startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic/server';

const lines = Array.from({ length: 30 }, (_, index) => `line ${index + 1}`);
const edited = lines.map((line, index) => (index === 1 ? 'line 2 by the chat' : index === 27 ? 'line 28 by the chat' : line));

describe('Review Changes Since Checkpoint (the panel’s chat, hunk by hunk)', function () {
  this.timeout(60_000);
  let fake: FakeAnthropic;
  let file: string;

  before(async () => {
    fake = await startFakeAnthropic();
    process.env.ANTHROPIC_API_KEY = fake.apiKey; // The documented fallback when SecretStorage has no key.
    await vscode.workspace.getConfiguration('evergreen').update('baseUrl', fake.url, vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration('evergreen').update('approvals.writes', 'auto', vscode.ConfigurationTarget.Global);
    file = path.join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, 'review-me.txt');
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
  });

  after(async () => {
    await vscode.workspace.getConfiguration('evergreen').update('baseUrl', undefined, vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration('evergreen').update('approvals.writes', undefined, vscode.ConfigurationTarget.Global);
    await fake.close();
    fs.rmSync(file, { force: true });
  });

  it('rejects one hunk of what the chat changed since the checkpoint, keeping the other', async () => {
    const api = (await vscode.extensions.getExtension<EvergreenApi>('evergreen.evergreen-agent')!.activate())!;
    await vscode.commands.executeCommand('evergreen.newChat');
    fake.enqueue(reply.toolUse('write_file', { path: 'review-me.txt', content: `${edited.join('\n')}\n` }, { preamble: 'Editing.' }), reply.text('Done.'));
    await api.sendMessage('Change lines 2 and 28 of review-me.txt');
    assert.equal(fs.readFileSync(file, 'utf8'), `${edited.join('\n')}\n`, 'the chat wrote both changes');

    // Checkpoint 1 of this new chat is the one before its first message; hunk 1 is the change of line 28.
    await vscode.commands.executeCommand('evergreen.reviewCheckpointChanges', 1, [{ path: 'review-me.txt', hunk: 1 }]);
    const now = fs.readFileSync(file, 'utf8').split('\n');
    assert.equal(now[1], 'line 2 by the chat', 'the hunk not rejected stays');
    assert.equal(now[27], 'line 28', 'the rejected hunk is back as it was');
  });
});
