import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { testApiFor, type EvergreenApi } from '../../src/extension/testApi';
import { bundledRipgrep } from '../../src/extension/ripgrep';
import { reply, startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic/server';
import { waitFor } from '../support/waitFor';
import { renderedTranscriptTabs } from '../support/transcriptTabs';
import { RENDERED_TRANSCRIPT_MAX_CHARS } from '../../src/extension/transcriptHtml';
import { COMMANDS as MANIFEST_COMMANDS } from '../../src/extension/manifest';

const EXTENSION_ID = 'evergreen.evergreen-agent';
// The manifest's own list (the generator writes package.json's commands from it): every one must be registered.
const COMMANDS = Object.keys(MANIFEST_COMMANDS).map((id) => `evergreen.${id}`);

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms))]);
}

async function activate(): Promise<EvergreenApi> {
  const extension = vscode.extensions.getExtension<EvergreenApi>(EXTENSION_ID);
  assert.ok(extension, `${EXTENSION_ID} is not installed in this extension host`);
  const api = await extension.activate();
  assert.equal(extension.isActive, true);
  assert.ok(api, 'activate() returns the test API in the extension host that runs the integration tests');
  return api;
}

describe('Evergreen in the extension host', () => {
  it('runs inside VS Code 1.100', () => {
    console.log(`vscode.version = ${vscode.version}`);
    assert.match(vscode.version, /^1\.(1\d\d)\./);
  });

  it('activates and registers every command of the manifest', async () => {
    await activate();
    const registered = new Set(await vscode.commands.getCommands(true));
    for (const command of COMMANDS) assert.ok(registered.has(command), `${command} is not registered`);
    const manifest = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON as { contributes: { commands: Array<{ command: string }> } };
    assert.deepEqual(manifest.contributes.commands.map((entry) => entry.command).sort(), [...COMMANDS].sort());
  });

  it('gives the test API to the integration tests alone: no other extension host mode gets it', () => {
    const parts = () => {
      throw new Error('the parts are not even looked at outside ExtensionMode.Test');
    };
    assert.equal(testApiFor(vscode.ExtensionMode.Production, parts), undefined);
    assert.equal(testApiFor(vscode.ExtensionMode.Development, parts), undefined);
    assert.throws(() => testApiFor(vscode.ExtensionMode.Test, parts), /not even looked at/);
  });

  it('has a writable storageUri', async () => {
    const api = await activate();
    const probe = vscode.Uri.joinPath(api.storageUri, 'probe.txt');
    await vscode.workspace.fs.writeFile(probe, Buffer.from('evergreen'));
    assert.equal(Buffer.from(await vscode.workspace.fs.readFile(probe)).toString(), 'evergreen');
    await vscode.workspace.fs.delete(probe);
  });

  it('resolves the chat view, whose script loads under a nonce CSP and says ready', async () => {
    const api = await activate();
    await vscode.commands.executeCommand('evergreen.chat.focus');
    await within(api.whenChatReady(), 30_000, 'the chat webview saying ready');
    const html = api.chatHtml();
    assert.ok(html, 'the chat view has no HTML');
    const nonce = /script-src 'nonce-([^']+)'/.exec(html)?.[1];
    assert.ok(nonce, 'the CSP has no script nonce');
    assert.match(html, /default-src 'none'/);
    assert.match(html, new RegExp(`<script nonce="${nonce.replace(/[+/=]/g, (c) => `\\${c}`)}" src="[^"]+/dist/webview\\.js"`));
  });

  it("finds VS Code's bundled ripgrep for grep_search", () => {
    const rg = bundledRipgrep();
    assert.ok(rg, `no rg under ${vscode.env.appRoot}`);
    fs.accessSync(rg, fs.constants.X_OK);
  });

  it('answers commands honestly when there is no conversation yet', async () => {
    const api = await activate();
    // The test bundle lives in the extension's folder, so it shares the extension's vscode API object.
    const shown: string[] = [];
    const original = vscode.window.showInformationMessage;
    vscode.window.showInformationMessage = ((message: string) => {
      shown.push(message);
      return Promise.resolve(undefined);
    }) as typeof vscode.window.showInformationMessage;
    const editorBefore = vscode.window.activeTextEditor;
    try {
      await vscode.commands.executeCommand('evergreen.cancel');
      await vscode.commands.executeCommand('evergreen.compactConversation');
      await vscode.commands.executeCommand('evergreen.showContextBreakdown');
    } finally {
      vscode.window.showInformationMessage = original;
    }
    // Each says why it did nothing and what to do, instead of throwing, prompting or staying silent.
    assert.deepEqual(shown, [
      'Evergreen: nothing is running.',
      'Evergreen: nothing to compact yet. Start a chat in the Evergreen view first.',
      'Evergreen: no conversation yet. Start a chat in the Evergreen view to see what the context holds.',
    ]);
    // And none of them started a session or opened a document.
    assert.equal(api.contextState().sessionId, undefined);
    assert.equal(fs.existsSync(path.join(api.storageUri.fsPath, 'sessions')), false);
    assert.equal(vscode.window.activeTextEditor, editorBefore);
  });

  describe('a chat turn against the fake Messages API', () => {
    let fake: FakeAnthropic;
    before(async () => {
      fake = await startFakeAnthropic();
      process.env.ANTHROPIC_API_KEY = fake.apiKey; // The documented fallback when SecretStorage has no key.
      await vscode.workspace.getConfiguration('evergreen').update('baseUrl', fake.url, vscode.ConfigurationTarget.Global);
      await vscode.workspace.getConfiguration('evergreen').update('approvals.writes', 'auto', vscode.ConfigurationTarget.Global);
    });
    after(async () => {
      await vscode.workspace.getConfiguration('evergreen').update('baseUrl', undefined, vscode.ConfigurationTarget.Global);
      await vscode.workspace.getConfiguration('evergreen').update('approvals.writes', undefined, vscode.ConfigurationTarget.Global);
      await fake.close();
    });

    it('streams a tool-using turn, writes the file and stores the transcript', async () => {
      const api = await activate();
      await vscode.commands.executeCommand('evergreen.newChat');
      fake.enqueue(reply.toolUse('write_file', { path: 'hello.txt', content: 'hi from evergreen\n' }, { preamble: 'Writing it.' }), reply.text('Created hello.txt.'));
      await within(api.sendMessage('Create hello.txt'), 30_000, 'the chat turn finishing');

      const requests = fake.messageRequests();
      assert.equal(requests.length, 2, JSON.stringify(requests.map((request) => request.reply)));
      assert.ok(requests.every((request) => request.reply?.status === 200));
      const folder = vscode.workspace.workspaceFolders?.[0];
      assert.ok(folder);
      assert.equal(fs.readFileSync(path.join(folder.uri.fsPath, 'hello.txt'), 'utf8'), 'hi from evergreen\n');

      const sessions = path.join(api.storageUri.fsPath, 'sessions');
      const [session] = fs.readdirSync(sessions);
      assert.ok(session, 'no session folder was written');
      const lines = fs.readFileSync(path.join(sessions, session, 'transcript.jsonl'), 'utf8').trim().split('\n');
      const messages = lines.map((line) => JSON.parse(line) as { type: string }).filter((entry) => entry.type === 'message');
      assert.equal(messages.length, 4);
      assert.ok(!fs.readFileSync(path.join(sessions, session, 'transcript.jsonl'), 'utf8').includes(fake.apiKey), 'the API key leaked into the transcript');
    });

    it('applies a changed setting to the next message of the same conversation', async () => {
      const api = await activate();
      // Its own conversation: one turn on the default model, then the setting changes.
      await vscode.commands.executeCommand('evergreen.newChat');
      fake.enqueue(reply.text('On the default model.'));
      await within(api.sendMessage('Which model?'), 30_000, 'the first chat turn finishing');
      const first = fake.messageRequests().at(-1)?.body as { model: string };
      assert.notEqual(first.model, 'claude-opus-4-6', 'the default model is already the one the setting switches to');
      const { sessionId } = api.contextState();
      const before = fake.messageRequests().length;
      await vscode.workspace.getConfiguration('evergreen').update('model', 'claude-opus-4-6', vscode.ConfigurationTarget.Global);
      try {
        fake.enqueue(reply.text('Now on Opus.'));
        await within(api.sendMessage('Which model now?'), 30_000, 'the chat turn finishing');
      } finally {
        await vscode.workspace.getConfiguration('evergreen').update('model', undefined, vscode.ConfigurationTarget.Global);
      }
      const request = fake.messageRequests()[before];
      const body = request?.body as { model: string; messages: unknown[] };
      assert.equal(body.model, 'claude-opus-4-6');
      // user, assistant, user: the first turn was kept, in the same session.
      assert.equal(body.messages.length, 3, 'the history of the conversation was kept');
      assert.equal(api.contextState().sessionId, sessionId);
      assert.equal(request?.reply?.status, 200);
    });

    it('Compact Conversation shrinks the context and writes the boundary to the transcript', async () => {
      const api = await activate();
      const folder = vscode.workspace.workspaceFolders?.[0];
      assert.ok(folder);
      // A search result (not a file read: recently read files are restored after a summary).
      const big = Array.from({ length: 350 }, (_, line) => `line ${line}: the quick brown fox jumps over the lazy dog`).join('\n');
      fs.writeFileSync(path.join(folder.uri.fsPath, 'big.txt'), big);
      fake.enqueue(reply.toolUse('grep_search', { pattern: 'fox', path: 'big.txt', max_results: 1000 }, { preamble: 'Searching.' }), reply.text('It is 350 lines about a fox.'));
      await within(api.sendMessage('What is in big.txt?'), 30_000, 'the chat turn finishing');
      const before = api.contextState();
      assert.ok(before.sessionId && before.usedTokens !== undefined && before.usedTokens > 5000, JSON.stringify(before));

      fake.enqueue(reply.text('<analysis>Reviewing.</analysis><summary>1. Primary request: inspect hello.txt and big.txt.\n9. Next step: wait for the user.</summary>'));
      const outcome = await within(api.compact('the file names'), 30_000, 'the compaction');
      assert.equal(outcome.ok, true, outcome.message);
      const after = api.contextState();
      assert.equal(after.sessionId, before.sessionId);
      assert.ok(after.usedTokens !== undefined && after.usedTokens < before.usedTokens / 2, `${before.usedTokens} -> ${after.usedTokens}`);

      // The summary request reused the conversation and carried the focus instructions.
      const summaryRequest = fake.messageRequests().at(-1)?.body as { messages: Array<{ content: Array<{ type: string; text?: string }> }> };
      const instruction = summaryRequest.messages.at(-1)?.content.at(-1)?.text ?? '';
      assert.match(instruction, /CONTEXT COMPACTION/);
      assert.match(instruction, /focus on: the file names/);

      const transcript = fs.readFileSync(path.join(api.storageUri.fsPath, 'sessions', before.sessionId, 'transcript.jsonl'), 'utf8');
      const boundaries = transcript.trim().split('\n').map((line) => JSON.parse(line) as { type: string; compaction?: { trigger: string; focus?: string; summary?: string } }).filter((entry) => entry.type === 'compaction');
      assert.equal(boundaries.length, 1);
      assert.equal(boundaries[0]?.compaction?.trigger, 'manual');
      assert.equal(boundaries[0]?.compaction?.focus, 'the file names');
      assert.match(boundaries[0]?.compaction?.summary ?? '', /inspect hello\.txt and big\.txt/);

      // The next message goes out on the compacted view: the summary first, the big read gone.
      fake.enqueue(reply.text('Still here.'));
      await within(api.sendMessage('Are you there?'), 30_000, 'the chat turn finishing');
      const next = fake.messageRequests().at(-1)?.body as { messages: Array<{ role: string; content: Array<{ type: string; text?: string }> }> };
      assert.match(next.messages[0]?.content[0]?.text ?? '', /<summary>/);
      assert.ok(!JSON.stringify(next.messages).includes('line 349: the quick brown fox'), 'the big read is no longer sent');
    });

    it('opens an archived transcript rendered, with its read-only markdown source one command away at the same compaction boundary', async () => {
      const api = await activate();
      const { sessionId } = api.contextState();
      assert.ok(sessionId, 'the compaction test left no session');
      await vscode.commands.executeCommand('evergreen.openArchivedTranscript', { sessionId, compactionIndex: 0 });
      // Rendered: a webview tab of its own, named by the session's title, and no text editor.
      await waitFor(() => renderedTranscriptTabs().some((tab) => tab.isActive), { what: 'the rendered transcript tab', timeoutMs: 10_000 });
      const meta = JSON.parse(fs.readFileSync(path.join(api.storageUri.fsPath, 'sessions', sessionId, 'meta.json'), 'utf8')) as { title: string };
      assert.equal(renderedTranscriptTabs()[0]?.label, meta.title);
      assert.equal(vscode.window.activeTextEditor?.document.uri.toString(), undefined, 'a text editor opened instead of the rendered tab');
      assert.equal(vscode.workspace.textDocuments.filter((open) => open.uri.scheme === 'evergreen-transcript').length, 0, 'the source was opened too');
      // Opening it again reuses the tab.
      await vscode.commands.executeCommand('evergreen.openArchivedTranscript', { sessionId, compactionIndex: 0 });
      assert.equal(renderedTranscriptTabs().length, 1);
      const [renderedTab] = renderedTranscriptTabs();

      // "Open Source" (the tab's title bar; given the session here, as the active tab's is settled asynchronously):
      // at the boundary the rendered tab was opened at.
      await vscode.commands.executeCommand('evergreen.openTranscriptSource', { sessionId });
      const editor = vscode.window.activeTextEditor;
      assert.ok(editor, 'no editor was opened');
      const document = editor.document;
      assert.equal(document.uri.scheme, 'evergreen-transcript');
      assert.equal(document.uri.path.split('/')[1], sessionId);
      assert.equal(document.isUntitled, false);
      assert.equal(document.languageId, 'markdown');
      const text = document.getText();
      assert.ok(text.includes('> What is in big.txt?'), 'the user message is missing');
      assert.ok(text.includes('1. Primary request: inspect hello.txt and big.txt.'), 'the summary is missing');
      assert.ok(text.includes('focus: the file names'));
      // Revealed at the boundary's heading.
      assert.match(document.lineAt(editor.selection.active.line).text, /^## Context compacted \(manual\)/);
      // The 350-line search result is folded, with a link to its line in the raw JSONL.
      const jsonl = vscode.Uri.file(path.join(api.storageUri.fsPath, 'sessions', sessionId, 'transcript.jsonl'));
      assert.match(text, /lines folded — full text: \[transcript\.jsonl line \d+\]\(file:\/\/\//);
      const links = await vscode.commands.executeCommand<vscode.DocumentLink[]>('vscode.executeLinkProvider', document.uri, 50);
      assert.ok(Array.isArray(links));
      assert.ok(
        links.some((link) => link.target?.scheme === 'file' && link.target.path === jsonl.path),
        `the markdown editor offers no link to the raw JSONL: ${JSON.stringify(links.map((link) => link.target?.toString()))}`,
      );

      // Read-only: typing is refused by the editor, and an extension's edit through the API
      // (which VS Code lets through even for read-only editors) is undone at once.
      await vscode.window.showTextDocument(document, { preview: false });
      await vscode.commands.executeCommand('type', { text: 'typed ' });
      assert.equal(document.getText(), text, 'typing changed the transcript');
      const edit = new vscode.WorkspaceEdit();
      edit.insert(document.uri, new vscode.Position(0, 0), 'tampered ');
      await vscode.workspace.applyEdit(edit);
      await waitFor(() => document.getText() === text, { what: 'the read-only transcript to undo an API edit', timeoutMs: 5_000 });
      assert.equal(document.getText(), text, 'an API edit of the transcript stayed');
      assert.equal(document.isDirty, false);

      // Opening the source again reuses its tab; "Open Rendered" goes back to the rendered one; the
      // title bar's "Open Raw JSONL" opens transcript.jsonl itself.
      await vscode.commands.executeCommand('evergreen.openTranscriptSource', { sessionId });
      assert.equal(vscode.workspace.textDocuments.filter((open) => open.uri.scheme === 'evergreen-transcript').length, 1);
      await vscode.commands.executeCommand('evergreen.openTranscriptRendered', document.uri);
      assert.deepEqual(renderedTranscriptTabs().map((tab) => tab.label), [renderedTab?.label], "no second rendered tab");
      await waitFor(() => renderedTranscriptTabs()[0]?.isActive === true, { what: 'the rendered tab to come back to the front', timeoutMs: 5_000 });
      await vscode.commands.executeCommand('evergreen.openRawTranscript', document.uri);
      assert.equal(vscode.window.activeTextEditor?.document.uri.fsPath, jsonl.fsPath);
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    });

    it('opens a transcript too large to render quickly as its markdown source', async () => {
      const api = await activate();
      // A stored session whose document passes RENDERED_TRANSCRIPT_MAX_CHARS: 80 replies of 300 lines (prose is never folded under 400).
      const sessionId = '20260101-120000-bigone';
      const dir = path.join(api.storageUri.fsPath, 'sessions', sessionId);
      fs.mkdirSync(dir, { recursive: true });
      const totals = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 };
      fs.writeFileSync(path.join(dir, 'meta.json'), JSON.stringify({ id: sessionId, title: 'A long one', model: 'm', createdAt: '2026-01-01T12:00:00.000Z', updatedAt: '2026-01-01T12:00:00.000Z', messageCount: 81, totals }));
      const reply = Array.from({ length: 300 }, (_, line) => `Line ${line} of a long answer, long enough to fill a screen's width with words and more words.`).join('\n');
      const entries = [{ type: 'message', ts: 't', message: { role: 'user', content: 'Tell me everything' } }, ...Array.from({ length: 80 }, () => ({ type: 'message', ts: 't', message: { role: 'assistant', content: reply } }))];
      fs.writeFileSync(path.join(dir, 'transcript.jsonl'), entries.map((entry) => JSON.stringify(entry)).join('\n') + '\n');
      assert.ok(reply.length * 80 > RENDERED_TRANSCRIPT_MAX_CHARS);

      await vscode.commands.executeCommand('evergreen.openArchivedTranscript', { sessionId });
      const document = vscode.window.activeTextEditor?.document;
      assert.equal(document?.uri.scheme, 'evergreen-transcript', 'the source did not open');
      assert.equal(document.uri.path.split('/')[1], sessionId);
      assert.match(document.getText(), /^# A long one\n/);
      assert.equal(renderedTranscriptTabs().filter((tab) => tab.label === 'A long one').length, 0, 'it was rendered anyway');
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    });

    it('Undo Last Compaction brings the old messages back, records the undo, and refuses a second one', async () => {
      const api = await activate();
      await vscode.commands.executeCommand('evergreen.newChat');
      const folder = vscode.workspace.workspaceFolders?.[0];
      assert.ok(folder);
      const big = Array.from({ length: 350 }, (_, line) => `line ${line}: the quick brown fox jumps over the lazy dog`).join('\n');
      fs.writeFileSync(path.join(folder.uri.fsPath, 'big.txt'), big);
      fake.enqueue(reply.toolUse('grep_search', { pattern: 'fox', path: 'big.txt', max_results: 1000 }, { preamble: 'Searching.' }), reply.text('It is 350 lines about a fox.'));
      await within(api.sendMessage('What is in big.txt?'), 30_000, 'the chat turn finishing');
      const before = api.contextState();
      assert.ok(before.sessionId && before.usedTokens !== undefined && before.usedTokens > 5000, JSON.stringify(before));

      fake.enqueue(reply.text('<analysis>Reviewing.</analysis><summary>1. Primary request: inspect big.txt.\n9. Next step: wait for the user.</summary>'));
      const compacted = await within(api.compact(), 30_000, 'the compaction');
      assert.equal(compacted.ok, true, compacted.message);
      const small = api.contextState().usedTokens;
      assert.ok(small !== undefined && small < before.usedTokens / 2, `${before.usedTokens} -> ${small}`);

      const undone = await within(api.undoCompaction(), 30_000, 'the undo');
      assert.equal(undone.ok, true, undone.message);
      const after = api.contextState();
      assert.equal(after.sessionId, before.sessionId);
      // Counted by the API again (count_tokens): the old view's size, less the last reply's output.
      assert.ok(after.usedTokens !== undefined && Math.abs(after.usedTokens - before.usedTokens) < before.usedTokens * 0.1, `${before.usedTokens} -> ${small} -> ${after.usedTokens}`);

      const entries = fs
        .readFileSync(path.join(api.storageUri.fsPath, 'sessions', before.sessionId, 'transcript.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { type: string; compaction?: { id: string }; compactionId?: string });
      const boundary = entries.find((entry) => entry.type === 'compaction');
      const undo = entries.find((entry) => entry.type === 'compaction_undo');
      assert.ok(boundary?.compaction && undo, 'the transcript has the compaction and its undo');
      assert.equal(undo.compactionId, boundary.compaction.id);

      const again = await api.undoCompaction();
      assert.equal(again.ok, false);
      assert.match(again.message, /Nothing to undo/);

      // The next message goes out with the old messages verbatim: the big search result, no summary.
      fake.enqueue(reply.text('Back in full.'));
      await within(api.sendMessage('Are you there?'), 30_000, 'the chat turn finishing');
      const next = JSON.stringify(fake.messageRequests().at(-1)?.body);
      assert.ok(next.includes('line 349: the quick brown fox'), 'the big search result is sent again');
      assert.ok(!next.includes('<summary>'), 'the summary is no longer sent');
    });

    it('Resume restores the chat as it was shown: messages, tool cards, the divider and the undo note', async () => {
      const api = await activate();
      const sessionId = api.contextState().sessionId;
      assert.ok(sessionId, 'the previous test left a session');
      const shown = api.chatEventTypes();
      assert.ok(shown.includes('compaction'), `no divider before resuming: ${shown.join(',')}`);
      const open = api.openChats().find((chat) => chat.shown);
      await vscode.commands.executeCommand('evergreen.newChat');
      assert.deepEqual(api.chatEventTypes(), []);
      // New Chat keeps the old chat open, and a session open in a chat is shown, not resumed: closed, it is read from disk.
      await vscode.commands.executeCommand('evergreen.closeChat', open?.id);
      assert.equal(api.contextState().usedTokens, undefined, 'a new chat has no gauge yet');
      await within(api.resume(sessionId), 30_000, 'the resume');
      assert.equal(api.contextState().sessionId, sessionId);
      // The gauge (and status bar) show the resumed context at once, not after the next message.
      const resumed = api.contextState();
      assert.ok(resumed.usedTokens !== undefined && resumed.usedTokens > 0 && resumed.window !== undefined, JSON.stringify(resumed));
      const replayed = api.chatEventTypes();
      for (const type of ['turn_started', 'tool_call_started', 'tool_call_finished', 'compaction', 'compaction_undone', 'text_delta']) {
        assert.ok(replayed.includes(type), `the resumed chat lacks ${type}: ${replayed.join(',')}`);
      }
      // The divider sits where it was: after the first answer, before the later question.
      const divider = replayed.indexOf('compaction');
      assert.ok(replayed.slice(0, divider).includes('tool_call_finished') && replayed.slice(divider).includes('turn_started'), replayed.join(','));
    });

    it('a pricing change applies to the next message without restarting the session', async () => {
      const api = await activate();
      const modelRequests = () => fake.requests.filter((request) => request.path.startsWith('/v1/models')).length;
      fake.enqueue(reply.text('Warm.'));
      await within(api.sendMessage('Warm up.'), 30_000, 'the chat turn finishing');
      const model = (fake.messageRequests().at(-1)?.body as { model: string }).model;
      const sessionId = api.contextState().sessionId;
      assert.ok(sessionId);
      const before = modelRequests();
      const price = { input: 1000, output: 1000, cacheRead: 1000, cacheWrite: 1000 };
      await vscode.workspace.getConfiguration('evergreen').update('pricing', { [model]: price }, vscode.ConfigurationTarget.Global);
      try {
        fake.enqueue(reply.text('Priced.'));
        await within(api.sendMessage('How much now?'), 30_000, 'the chat turn finishing');
      } finally {
        await vscode.workspace.getConfiguration('evergreen').update('pricing', undefined, vscode.ConfigurationTarget.Global);
      }
      assert.equal(modelRequests(), before, 'the session was rebuilt (it asked the Models API again)');
      assert.equal(api.contextState().sessionId, sessionId);
      const usage = fs
        .readFileSync(path.join(api.storageUri.fsPath, 'sessions', sessionId, 'transcript.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { type: string; costUsd?: number })
        .filter((entry) => entry.type === 'usage')
        .at(-1);
      // At $1000 per million tokens, even a short request costs dollars.
      assert.ok(usage?.costUsd !== undefined && usage.costUsd > 0.5, JSON.stringify(usage));
    });

    it('resolves an approval by its tool-use id: a decision for another call is ignored', async () => {
      const api = await activate();
      const folder = vscode.workspace.workspaceFolders?.[0];
      assert.ok(folder);
      const target = path.join(folder.uri.fsPath, 'approved.txt');
      fake.enqueue(reply.toolUse('run_shell', { command: 'echo approved > approved.txt' }), reply.text('Ran it.'));
      const turn = api.sendMessage('Run the command.');
      await waitFor(() => api.pendingApproval() !== undefined, { what: 'the approval prompt' });
      const toolUseId = api.pendingApproval();
      assert.ok(toolUseId, 'no approval prompt appeared');
      await api.decideApproval('toolu_someone_else', true);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(api.pendingApproval(), toolUseId, 'a decision for another tool call resolved this one');
      assert.equal(fs.existsSync(target), false);
      await api.decideApproval(toolUseId, true);
      await within(turn, 30_000, 'the approved turn finishing');
      assert.equal(fs.readFileSync(target, 'utf8'), 'approved\n');
      assert.equal(api.pendingApproval(), undefined);
      fs.rmSync(target);
    });

    it("runs shell commands in the OS sandbox under VS Code's own Node: inside the workspace works, outside is refused", async () => {
      const api = await activate();
      const folder = vscode.workspace.workspaceFolders?.[0];
      assert.ok(folder);
      const inside = path.join(folder.uri.fsPath, 'sandboxed.txt');
      const outside = path.join(os.tmpdir(), `evergreen-integration-escape-${process.pid}.txt`);
      fake.enqueue(reply.toolUse('run_shell', { command: `echo in > sandboxed.txt; echo out > '${outside}'` }), reply.text('Tried both.'));
      const turn = api.sendMessage('Write both files.');
      await waitFor(() => api.pendingApproval() !== undefined, { what: 'the approval prompt' });
      const toolUseId = api.pendingApproval();
      assert.ok(toolUseId, 'no approval prompt appeared');
      await api.decideApproval(toolUseId, true);
      await within(turn, 30_000, 'the sandboxed turn finishing');
      assert.equal(fs.readFileSync(inside, 'utf8'), 'in\n');
      assert.equal(fs.existsSync(outside), false, 'the command wrote outside the workspace: it did not run in the sandbox');
      const request = fake.messageRequests().at(-1)?.body as { messages: Array<{ content: unknown }> } | undefined;
      assert.match(JSON.stringify(request?.messages.at(-1)?.content), /\[sandbox\] The sandbox refused a write/);
      fs.rmSync(inside);
    });

    it('a workspace cannot loosen approvals or pick the model, and writes to files that configure commands always ask', async () => {
      const api = await activate();
      const folder = vscode.workspace.workspaceFolders?.[0];
      assert.ok(folder);
      const root = folder.uri.fsPath;
      const settingsFile = path.join(root, '.vscode', 'settings.json');
      fs.mkdirSync(path.dirname(settingsFile), { recursive: true });
      // What a cloned repository (or an agent with writes on auto) could ship.
      fs.writeFileSync(settingsFile, JSON.stringify({ 'evergreen.approvals.shell': 'auto', 'evergreen.approvals.shellAllowList': ['echo'], 'evergreen.model': 'claude-opus-4-6', 'editor.tabSize': 7 }));
      try {
        // Proof that VS Code read the file: a window-scoped setting of another extension applies
        // (every evergreen.* setting is user-only, so none of them can show it).
        await waitFor(() => vscode.workspace.getConfiguration('editor').get('tabSize') === 7, { what: 'the workspace settings loading' });
        const attempts: Array<[string, Record<string, unknown>, string]> = [
          // A plain `echo` (no redirection, which would ask anyway): only the workspace's allow-list could let it through.
          ['run_shell', { command: 'echo pwned' }, 'pwned.txt'],
          // Writes are on auto (user settings) in this suite, yet this one asks.
          ['write_file', { path: '.vscode/tasks.json', content: '{"version":"2.0.0","tasks":[]}' }, path.join('.vscode', 'tasks.json')],
        ];
        for (const [tool, input, target] of attempts) {
          const before = fake.messageRequests().length;
          fake.enqueue(reply.toolUse(tool, input)); // The cancel ends the turn: no second reply is asked for.
          const turn = api.sendMessage(`Use ${tool}.`);
          await waitFor(() => api.pendingApproval() !== undefined, { what: `an approval prompt for ${tool}` });
          // evergreen.model is machine-scoped: the repository's expensive choice is not used.
          assert.notEqual((fake.messageRequests()[before]?.body as { model: string }).model, 'claude-opus-4-6');
          assert.equal(fs.existsSync(path.join(root, target)), false, `${target} was written without asking`);
          await vscode.commands.executeCommand('evergreen.cancel');
          await within(turn, 30_000, 'the cancelled turn ending');
          assert.equal(fs.existsSync(path.join(root, target)), false);
          assert.equal(fake.pendingReplies(), 0);
        }
      } finally {
        fs.rmSync(path.join(root, '.vscode'), { recursive: true, force: true });
        await waitFor(() => vscode.workspace.getConfiguration('editor').get('tabSize') !== 7, { what: 'the workspace settings going away' });
      }
    });
  });
});
