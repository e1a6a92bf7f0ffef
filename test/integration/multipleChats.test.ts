/**
 * Several chats at once in the real extension host (issue 31): a chat keeps its turn and its
 * approval while another is shown, its approval never reaches the shown chat, it calls for
 * attention with a badge, the Chats list shows each one's state, switching back shows its card,
 * `evergreen.chats.maxRunning` queues a turn, and Close Chat ends a chat.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { EvergreenApi } from '../../src/extension/testApi';
import { reply, startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic/server';
import { waitFor } from '../support/waitFor';

const config = () => vscode.workspace.getConfiguration('evergreen');

describe('several chats at once (issue 31)', function () {
  this.timeout(90_000);
  let fake: FakeAnthropic;
  let api: EvergreenApi;
  let target: string;

  before(async () => {
    fake = await startFakeAnthropic();
    process.env.ANTHROPIC_API_KEY = fake.apiKey;
    await config().update('baseUrl', fake.url, vscode.ConfigurationTarget.Global);
    const extension = vscode.extensions.getExtension<EvergreenApi>('evergreen.evergreen-agent');
    assert.ok(extension);
    api = await extension.activate();
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder);
    target = path.join(folder.uri.fsPath, 'from-chat-a.txt');
  });

  after(async () => {
    await config().update('baseUrl', undefined, vscode.ConfigurationTarget.Global);
    await config().update('chats.maxRunning', undefined, vscode.ConfigurationTarget.Global);
    // Leave one empty chat, as a fresh window has (an approval still waiting is declined first: the test host shows no dialog).
    for (const chat of api.openChats()) {
      await vscode.commands.executeCommand('evergreen.showChat', chat.id);
      for (const toolUseId of chat.waiting) await api.decideApproval(toolUseId, false);
      await vscode.commands.executeCommand('evergreen.closeChat', chat.id);
    }
    fs.rmSync(target, { force: true });
    await fake.close();
  });

  const shownId = () => api.openChats().find((chat) => chat.shown)?.id;
  const chatById = (id: string | undefined) => api.openChats().find((chat) => chat.id === id);

  it('keeps a chat waiting for its approval while another works, and calls for it with a badge', async () => {
    await vscode.commands.executeCommand('evergreen.newChat');
    // Each chat gets its own replies whatever the order of their requests; chat A's first comes
    // late, when chat B is shown: its approval is asked out of sight.
    fake.setResponder((body) => {
      const conversation = JSON.stringify(body.messages);
      if (!conversation.includes('from-chat-a')) return reply.text('B answered.');
      return conversation.includes('tool_result') ? reply.text('A is done.') : reply.toolUse('write_file', { path: 'from-chat-a.txt', content: 'A wrote this\n' }, { id: 'toolu_chat_a', delayMs: 1500 });
    });
    const sentA = api.sendMessage('Write from-chat-a.txt');
    const chatA = shownId();
    await waitFor(() => chatById(chatA)?.activity === 'working', { what: 'chat A to start its turn', timeoutMs: 30_000 });
    await vscode.commands.executeCommand('evergreen.newChat');
    const chatB = shownId();
    assert.ok(chatA && chatB && chatA !== chatB, `New Chat opened no second chat: ${JSON.stringify(api.openChats())}`);
    assert.ok(chatById(chatA), 'New Chat closed the chat that was working');

    await waitFor(() => chatById(chatA)?.activity === 'waiting', { what: 'chat A to wait for its approval', timeoutMs: 30_000 });
    assert.deepEqual(chatById(chatA)?.waiting, ['toolu_chat_a']);
    assert.equal(api.chatsBadge(), 1, 'the Chats view shows no badge for the chat waiting out of sight');
    // The shown chat (B) has no card and no approval of A's: answering there would answer nothing.
    assert.ok(!api.chatEventTypes().includes('approval_needed'), api.chatEventTypes().join(','));
    assert.equal(api.pendingApproval(), undefined);

    // B works and finishes while A still waits; each chat's requests carry only its own conversation.
    await api.sendMessage('Hello from B');
    const bRequest = JSON.stringify(fake.messageRequests().at(-1)?.body);
    assert.ok(bRequest.includes('Hello from B') && !bRequest.includes('from-chat-a'), 'chat B\'s request carries chat A\'s conversation');
    assert.equal(chatById(chatB)?.activity, 'done');
    assert.equal(chatById(chatA)?.activity, 'waiting');
    assert.ok(!fs.existsSync(target), 'A wrote before its approval');

    // Switched to A: its card is there, the badge is seen, and the answer goes to A.
    await vscode.commands.executeCommand('evergreen.showChat', chatA);
    assert.equal(shownId(), chatA);
    assert.equal(api.chatsBadge(), undefined, 'the badge stays once the chat was shown');
    assert.ok(api.chatEventTypes().includes('approval_needed'), api.chatEventTypes().join(','));
    assert.equal(api.pendingApproval(), 'toolu_chat_a');
    await api.decideApproval('toolu_chat_a', true);
    await sentA;
    fake.setResponder(undefined);
    assert.equal(fs.readFileSync(target, 'utf8'), 'A wrote this\n');
    assert.ok(api.chatEventTypes().includes('text_delta'));
    const aRequest = JSON.stringify(fake.messageRequests().at(-1)?.body);
    assert.ok(aRequest.includes('tool_result') && !aRequest.includes('Hello from B'), 'chat A\'s request carries chat B\'s conversation');
    assert.equal(chatById(chatA)?.activity, 'done');
    // B's conversation is its own: it never saw A's tool call.
    await vscode.commands.executeCommand('evergreen.showChat', chatB);
    assert.ok(!api.chatEventTypes().includes('tool_call_started'), api.chatEventTypes().join(','));
    assert.match(chatById(chatB)?.description ?? '', /^done · \d+% · \$/);
  });

  it('queues a turn beyond evergreen.chats.maxRunning and starts it when the running one ends', async () => {
    await config().update('chats.maxRunning', 1, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('evergreen.newChat');
    fake.enqueue(reply.text('First, slowly.', { delayMs: 2000 }), reply.text('Second.'));
    const first = api.sendMessage('Run first');
    const firstId = shownId();
    await waitFor(() => chatById(firstId)?.activity === 'working', { what: 'the first chat to work', timeoutMs: 30_000 });
    await vscode.commands.executeCommand('evergreen.newChat');
    const secondId = shownId();
    const requestsBefore = fake.messageRequests().length;
    const second = api.sendMessage('Run second');
    await waitFor(() => chatById(secondId)?.activity === 'queued', { what: 'the second chat to be queued' });
    assert.equal(fake.messageRequests().length, requestsBefore, 'the queued chat sent its request');
    await first;
    await second;
    assert.equal(chatById(secondId)?.activity, 'done');
    assert.equal(chatById(firstId)?.activity, 'done');
  });

  it('opens a chat in an editor tab of its own, which works beside the sidebar\'s and closes with its tab', async () => {
    const sidebarBefore = shownId();
    const sidebarEvents = api.chatEventTypes().length;
    await vscode.commands.executeCommand('evergreen.openChatInEditor');
    const tabChat = api.openChats().find((chat) => chat.inEditor);
    assert.ok(tabChat, JSON.stringify(api.openChats()));
    assert.equal(shownId(), sidebarBefore, 'the sidebar switched to the editor tab\'s chat');
    const tabs = () => vscode.window.tabGroups.all.flatMap((group) => group.tabs).filter((tab) => tab.input instanceof vscode.TabInputWebview && tab.input.viewType.endsWith('evergreen-chat'));
    await waitFor(() => tabs().length === 1, { what: 'the chat\'s editor tab' });

    fake.enqueue(reply.text('From the tab.'));
    await api.sendMessageIn(tabChat.id, 'Hello from the editor tab');
    assert.equal(chatById(tabChat.id)?.activity, 'done');
    assert.match(chatById(tabChat.id)?.label ?? '', /Hello from the editor tab/);
    assert.match(chatById(tabChat.id)?.description ?? '', /editor tab$/);
    assert.equal(api.chatEventTypes().length, sidebarEvents, 'the editor tab\'s turn reached the sidebar\'s chat');
    await waitFor(() => tabs()[0]?.label === 'Hello from the editor tab', { what: 'the tab to take the chat\'s title' });

    await vscode.window.tabGroups.close(tabs()[0]!);
    await waitFor(() => !chatById(tabChat.id), { what: 'the chat to close with its tab' });
    assert.equal(shownId(), sidebarBefore);
  });

  it('shows a background chat\'s conversation in the panel, read-only, from its stored session', async () => {
    await vscode.commands.executeCommand('evergreen.newChat');
    fake.enqueue(reply.text('Worked in the worktree.'));
    await api.sendMessage('Background task');
    const { sessionId } = api.contextState();
    assert.ok(sessionId);
    // Its session closed (as a background chat's is, outside the panel); only its transcript is left.
    await vscode.commands.executeCommand('evergreen.closeChat', shownId());
    const before = api.openChats().length;
    await vscode.commands.executeCommand('evergreen.showBackgroundChat', { name: 'bg-task' });
    assert.equal(api.openChats().length, before, 'a chat without a session opened a chat');

    await vscode.commands.executeCommand('evergreen.showBackgroundChat', { name: 'bg-task', sessionId });
    const shown = api.openChats().find((chat) => chat.shown);
    assert.equal(shown?.label, 'bg-task (background)');
    assert.ok(['turn_started', 'text_delta'].every((type) => api.chatEventTypes().includes(type)), api.chatEventTypes().join(','));
    assert.equal(api.contextState().sessionId, undefined, 'the panel started the background chat\'s session');
    const requests = fake.messageRequests().length;
    await assert.rejects(api.sendMessage('Go on'), /background chat bg-task/);
    assert.equal(fake.messageRequests().length, requests);
    // Asked again, the same chat is shown.
    await vscode.commands.executeCommand('evergreen.showBackgroundChat', { name: 'bg-task', sessionId });
    assert.equal(api.openChats().filter((chat) => chat.label === 'bg-task (background)').length, 1);
  });

  it('Close Chat ends a chat and shows another; the last one closed leaves a new empty chat', async () => {
    const before = api.openChats();
    const shown = shownId();
    await vscode.commands.executeCommand('evergreen.closeChat', shown);
    const after = api.openChats();
    assert.equal(after.length, before.length - 1);
    assert.ok(!chatById(shown));
    assert.equal(after.filter((chat) => chat.shown).length, 1);
    for (const chat of api.openChats()) await vscode.commands.executeCommand('evergreen.closeChat', chat.id);
    const fresh = api.openChats();
    assert.equal(fresh.length, 1);
    assert.equal(fresh[0]?.activity, 'idle');
    assert.equal(api.contextState().sessionId, undefined);
  });
});
