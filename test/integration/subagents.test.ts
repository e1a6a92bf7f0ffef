import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { EvergreenApi } from '../../src/extension/testApi';
import { reply, startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic/server';
import { renderedTranscriptTabs } from '../support/transcriptTabs';
import { waitFor } from '../support/waitFor';

// Runs after extension.test.js (files run in name order), on its own fake API and a new chat.
describe('a subagent in the extension host (issue 10)', () => {
  let fake: FakeAnthropic;
  let notes: string;
  before(async () => {
    fake = await startFakeAnthropic();
    process.env.ANTHROPIC_API_KEY = fake.apiKey;
    await vscode.workspace.getConfiguration('evergreen').update('baseUrl', fake.url, vscode.ConfigurationTarget.Global);
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder, 'the test workspace has no folder');
    notes = path.join(folder.uri.fsPath, 'subagent-notes.txt');
    fs.writeFileSync(notes, 'The notes say CHILD-SAW-THIS.\n');
  });
  after(async () => {
    await vscode.workspace.getConfiguration('evergreen').update('baseUrl', undefined, vscode.ConfigurationTarget.Global);
    fs.rmSync(notes, { force: true });
    await fake.close();
  });

  it('shows the task call as a subagent card and opens the child transcript read-only in the transcript tab', async () => {
    const extension = vscode.extensions.getExtension<EvergreenApi>('evergreen.evergreen-agent');
    assert.ok(extension);
    const api = await extension.activate();
    await vscode.commands.executeCommand('evergreen.newChat');
    // Parent: calls task -> child: reads the file, then reports -> parent: answers. One child, so the queue's order is the requests' order.
    fake.enqueue(
      reply.toolUse('task', { description: 'Read the notes', prompt: 'Read subagent-notes.txt and report what it says.', agent_type: 'explore' }, { id: 'toolu_task_notes', preamble: 'Asking a subagent.' }),
      reply.toolUse('read_file', { path: 'subagent-notes.txt' }, { id: 'toolu_child_read' }),
      reply.text('Report: the notes say CHILD-SAW-THIS.'),
      reply.text('The subagent found that the notes say CHILD-SAW-THIS.'),
    );
    await api.sendMessage('What do the notes say? Use a subagent.');

    const requests = fake.messageRequests();
    assert.equal(requests.length, 4, JSON.stringify(requests.map((request) => request.reply)));
    assert.ok(requests.every((request) => request.reply?.status === 200));
    // The child's requests carry only the read-only tools and its own conversation.
    const child = requests[1]!.body as { tools?: Array<{ name: string; input_schema?: { properties?: { command?: { enum?: string[] } } } }>; messages: Array<{ role: string; content: unknown }> };
    assert.deepEqual(child.tools?.map((tool) => tool.name).sort(), ['grep_search', 'list_files', 'memory', 'read_file', 'recall']);
    // Memory is the workspace's: an explore child may read it, never change it.
    assert.deepEqual(child.tools?.find((tool) => tool.name === 'memory')?.input_schema?.properties?.command?.enum, ['view']);
    assert.equal(JSON.stringify(child.messages).includes('What do the notes say'), false, 'the child sees nothing of the parent conversation');
    // The parent got the report and a line naming the child transcript, nothing of the child's reads.
    const parentAfter = JSON.stringify((requests[3]!.body as { messages: unknown[] }).messages);
    assert.ok(parentAfter.includes('Report: the notes say CHILD-SAW-THIS.'));
    assert.ok(parentAfter.includes('Subagent transcript'));
    assert.ok(!parentAfter.includes('toolu_child_read'), 'the child tool call stayed out of the parent context');

    // What the chat panel shows (and replays): the task card, the subagent's start and finish on it.
    const types = api.chatEventTypes();
    const at = (type: string) => types.indexOf(type);
    assert.ok(at('tool_call_started') >= 0, types.join(', '));
    assert.ok(at('subagent_started') > at('tool_call_started'), types.join(', '));
    assert.ok(at('subagent_finished') > at('subagent_started'), types.join(', '));
    assert.ok(types.indexOf('tool_call_finished', at('subagent_finished')) > at('subagent_finished'), types.join(', '));
    assert.equal(types.at(-1), 'turn_finished');
    assert.equal(types.filter((type) => type === 'subagent_progress').length, 0, 'running figures are live only, not replayed');

    const { sessionId } = api.contextState();
    assert.ok(sessionId);
    const subagentsDir = path.join(api.storageUri.fsPath, 'sessions', sessionId, 'subagents');
    const children = fs.readdirSync(subagentsDir);
    assert.equal(children.length, 1, `one child folder: ${children.join(', ')}`);
    const childId = children[0]!;

    // The card's "Open transcript": a child id through the panel's message guard; the host finds it in the current session.
    // It opens rendered, named by the child's description; its source is one command away.
    await api.openSubagentTranscript(childId);
    await waitFor(() => renderedTranscriptTabs().some((tab) => tab.isActive && tab.label === 'Read the notes'), { what: "the child's rendered transcript", timeoutMs: 10_000 });
    await vscode.commands.executeCommand('evergreen.openTranscriptSource', { sessionId, childId });
    const editor = vscode.window.activeTextEditor;
    assert.ok(editor, 'no editor was opened');
    const document = editor.document;
    assert.equal(document.uri.scheme, 'evergreen-transcript');
    assert.equal(document.uri.path.startsWith(`/${sessionId}/subagents/${childId}/`), true, document.uri.toString());
    assert.equal(document.isUntitled, false);
    assert.equal(document.languageId, 'markdown');
    const text = document.getText();
    assert.match(text, /^# Read the notes\n/);
    assert.ok(text.includes('> Read subagent-notes.txt and report what it says.'), `the child's brief is missing:\n${text}`);
    assert.ok(text.includes('**Tool call `read_file`** (toolu_child_read)'), 'the child tool call is missing');
    assert.ok(text.includes('The notes say CHILD-SAW-THIS.'), 'the file the child read is missing');
    assert.ok(text.includes('Report: the notes say CHILD-SAW-THIS.'), 'the report is missing');
    assert.ok(text.includes(`launched by [session ${sessionId}]`), 'the child document does not link back to its parent');
    // Read-only, like every transcript document.
    await vscode.commands.executeCommand('type', { text: 'typed ' });
    assert.equal(document.getText(), text, 'typing changed the child transcript');
    // Opening it again reuses its tabs.
    await api.openSubagentTranscript(childId);
    await vscode.commands.executeCommand('evergreen.openTranscriptSource', { sessionId, childId });
    assert.equal(renderedTranscriptTabs().filter((tab) => tab.label === 'Read the notes').length, 1);
    assert.equal(vscode.workspace.textDocuments.filter((open) => open.uri.scheme === 'evergreen-transcript' && open.uri.path.includes(`/subagents/${childId}/`)).length, 1);

    // A path is never accepted as a child id.
    await assert.rejects(api.openSubagentTranscript(`../${sessionId}`), /refuse/);

    // The parent's archived transcript nests the child under its task call, linked to the same document.
    await vscode.commands.executeCommand('evergreen.openArchivedTranscript', { sessionId });
    await waitFor(() => renderedTranscriptTabs().some((tab) => tab.isActive && tab.label !== 'Read the notes'), { what: "the parent's rendered tab", timeoutMs: 10_000 });
    await vscode.commands.executeCommand('evergreen.openTranscriptSource', { sessionId });
    const parent = vscode.window.activeTextEditor?.document;
    assert.ok(parent);
    assert.equal(parent.uri.path.split('/').length, 3, parent.uri.toString());
    const parentText = parent.getText();
    const call = parentText.indexOf('**Tool call `task`** (toolu_task_notes)');
    const nested = parentText.indexOf('> **Subagent** `explore` · Read the notes');
    const done = parentText.indexOf(`> **Subagent done** (\`${childId}\`)`);
    assert.ok(call >= 0 && nested > call && done > nested, parentText);
    // The file's own words ("The notes say", capitalized) and the child's call are only in the child's document.
    assert.ok(!parentText.includes('The notes say CHILD-SAW-THIS.') && !parentText.includes('toolu_child_read'), 'the child transcript is linked, not inlined');
    const links = await vscode.commands.executeCommand<vscode.DocumentLink[]>('vscode.executeLinkProvider', parent.uri, 50);
    assert.ok(
      links.some((link) => link.target?.scheme === 'evergreen-transcript' && link.target.path.startsWith(`/${sessionId}/subagents/${childId}/`)),
      `no link to the child document: ${JSON.stringify(links.map((link) => link.target?.toString()))}`,
    );
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});
