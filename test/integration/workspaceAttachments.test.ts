import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { EvergreenApi } from '../../src/extension/extension';
import { reply, startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic/server';

// Runs after extension.test.js (files run in name order): that suite starts with no conversation.
// Issue 17: what the composer attaches reaches the model as the host gathered it at send time —
// the editor's selection (its unsaved text, with path and line numbers) and a workspace file.
describe('attachments from the editor', () => {
  let fake: FakeAnthropic;
  before(async () => {
    fake = await startFakeAnthropic();
    process.env.ANTHROPIC_API_KEY = fake.apiKey;
    await vscode.workspace.getConfiguration('evergreen').update('baseUrl', fake.url, vscode.ConfigurationTarget.Global);
  });
  after(async () => {
    await vscode.workspace.getConfiguration('evergreen').update('baseUrl', undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await fake.close();
  });

  it('sends the selection (unsaved edits included) and a file before the message, and refuses an empty selection without sending', async () => {
    const extension = vscode.extensions.getExtension<EvergreenApi>('evergreen.evergreen-agent');
    assert.ok(extension);
    const api = await extension.activate();
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder, 'the integration tests run on a folder');
    const source = vscode.Uri.joinPath(folder.uri, 'attach-source.ts');
    const other = vscode.Uri.joinPath(folder.uri, 'attach-other.md');
    await vscode.workspace.fs.writeFile(source, Buffer.from('const a = 1;\nconst b = 2;\nconst c = 3;\nconst d = 4;\n'));
    await vscode.workspace.fs.writeFile(other, Buffer.from('# Other\nthe other file\n'));
    const editor = await vscode.window.showTextDocument(source);
    // An edit not saved yet: the selection is the editor's text, not the file's.
    await editor.edit((edit) => edit.replace(new vscode.Range(1, 6, 1, 7), 'bee'));
    editor.selection = new vscode.Selection(1, 0, 2, 12);
    await vscode.commands.executeCommand('evergreen.newChat');
    fake.enqueue(reply.text('Understood.'));
    await api.sendMessage('Explain these', [{ kind: 'selection' }, { kind: 'file', path: 'attach-other.md' }]);
    const sent = JSON.stringify((fake.messageRequests().at(-1)?.body as { messages: unknown[] }).messages[0]);
    assert.match(sent, /<attachment kind=\\"selection\\" label=\\"attach-source\.ts:2-3\\">/);
    assert.match(sent, /attach-source\.ts, lines 2-3 \(selected in the editor\)/);
    assert.match(sent, /const bee = 2;/, 'the unsaved edit is what was attached');
    assert.doesNotMatch(sent, /const a = 1|const d = 4/, 'only the selected lines');
    assert.match(sent, /<attachment kind=\\"file\\" label=\\"attach-other\.md\\">[^]*the other file/);
    assert.ok(sent.indexOf('Explain these') > sent.lastIndexOf('</attachment>'));

    editor.selection = new vscode.Selection(0, 0, 0, 0);
    const before = fake.messageRequests().length;
    await assert.rejects(api.sendMessage('And this?', [{ kind: 'selection' }]), /nothing is selected in the active editor/);
    assert.equal(fake.messageRequests().length, before, 'nothing was sent');
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    for (const file of [source, other]) await vscode.workspace.fs.delete(file);
  });
});
