import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { EvergreenApi } from '../../src/extension/testApi';
import { reply, type FakeAnthropic } from '../fake-anthropic/server';
import { useFakeApi } from '../support/hostFakeApi';

// Runs after extension.test.js (files run in name order), on its own fake API and a new chat.
describe('Show Context Breakdown after a turn', () => {
  let fake: FakeAnthropic;
  useFakeApi((started) => (fake = started));

  it('opens a read-only markdown document of its own scheme with the categories and a line per tier, refreshed on every run', async () => {
    const extension = vscode.extensions.getExtension<EvergreenApi>('evergreen.evergreen-agent');
    assert.ok(extension);
    const api = await extension.activate();
    await vscode.commands.executeCommand('evergreen.newChat');
    fake.enqueue(reply.toolUse('list_files', {}, { preamble: 'Looking.' }), reply.text('Done looking.'));
    await api.sendMessage('What files are here?');

    await vscode.commands.executeCommand('evergreen.showContextBreakdown');
    const editor = vscode.window.activeTextEditor;
    assert.ok(editor, 'no editor was opened');
    const document = editor.document;
    assert.equal(document.uri.scheme, 'evergreen-context');
    assert.equal(document.isUntitled, false);
    assert.equal(document.languageId, 'markdown');
    const text = document.getText();
    for (const category of ['System prompt', 'Tool definitions', 'Messages', 'Tool results', 'Summaries and task list', 'Previews of large outputs', 'Reserved for the reply', 'Free', '**Window**']) {
      assert.ok(text.includes(`| ${category} |`), `the table has no "${category}" row:\n${text}`);
    }
    for (const step of [/\| Trim old tool results \|/, /\| Snip superseded reads and old searches \|/, /\| Clear old tool results \|/, /\| Summarize the conversation: /, /^## How it works$/m]) assert.match(text, step);
    assert.match(text, /Auto-compact threshold: [\d,]+ tokens/);
    assert.match(text, /Session cost so far: \$/);
    // Read-only: a read-only file system, so the editor refuses typing and nothing can be saved.
    // (An API edit would still change the in-memory model, as for any read-only editor.)
    assert.equal(vscode.workspace.fs.isWritableFileSystem('evergreen-context'), false);
    await assert.rejects(Promise.resolve(vscode.workspace.fs.writeFile(document.uri, Buffer.from('tampered'))));
    const { sessionId } = api.contextState();
    assert.ok(sessionId && text.includes(sessionId), 'the document names the session');

    // A later turn and a second run refresh the same document in place.
    fake.enqueue(reply.text('x'.repeat(4_000)));
    await api.sendMessage('Say a lot.');
    await vscode.commands.executeCommand('evergreen.showContextBreakdown');
    const again = vscode.window.activeTextEditor?.document;
    assert.ok(again);
    assert.equal(again.uri.toString(), document.uri.toString());
    assert.notEqual(again.getText(), text, 'the second run shows fresh numbers');
  });
});
