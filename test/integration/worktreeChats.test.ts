/**
 * The Background Chats view in the real extension host (issue 31): the workspace becomes a Git
 * repository, a worktree chat is made with the core's WorktreeManager in the extension's storage
 * (as the CLI's --worktree makes one), and the view lists it; Review Changes opens VS Code's diff
 * editor on the base and the worktree's file, and Apply Changes brings the chat's changes into the
 * checkout. The file runs last (by name): it leaves the workspace as it found it.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { discardWorktree, planDiscard } from '../../src/core/worktrees/discard';
import { WorktreeManager, type WorktreeRecord } from '../../src/core/worktrees/manager';
import type { EvergreenApi } from '../../src/extension/testApi';
import { BACKGROUND_REFUSAL } from '../../src/frontends/backgroundChats';
import { reply, startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic/server';
import { waitFor } from '../support/waitFor';

const EXTENSION_ID = 'evergreen.evergreen-agent';
const CHAT = 'ui-review';

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=Evergreen Test', '-c', 'user.email=test@example.invalid', '-c', 'init.defaultBranch=main', ...args], { cwd, encoding: 'utf8' });
}

describe('Background Chats view (worktree chats)', function () {
  this.timeout(60_000);
  let api: EvergreenApi;
  let workspace: string;
  let manager: WorktreeManager;
  let record: WorktreeRecord | undefined;
  let readmeBefore: string;
  let fake: FakeAnthropic | undefined;
  const others: WorktreeRecord[] = [];

  before(async () => {
    const extension = vscode.extensions.getExtension<EvergreenApi>(EXTENSION_ID);
    assert.ok(extension);
    const activated = await extension.activate();
    assert.ok(activated, 'the test API is returned in the test extension host');
    api = activated;
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder, 'the integration workspace is open');
    workspace = folder.uri.fsPath;
    readmeBefore = fs.readFileSync(path.join(workspace, 'README.md'), 'utf8');
    manager = new WorktreeManager({ storageRoot: api.storageUri.fsPath });
  });

  after(async () => {
    for (const made of [record, ...others]) if (made) await discardWorktree(manager, await planDiscard(made));
    if (fake) {
      await vscode.workspace.getConfiguration('evergreen').update('baseUrl', undefined, vscode.ConfigurationTarget.Global);
      await fake.close();
    }
    fs.writeFileSync(path.join(workspace, 'README.md'), readmeBefore);
    fs.rmSync(path.join(workspace, 'notes.txt'), { force: true });
    fs.rmSync(path.join(workspace, 'merged.txt'), { force: true });
    fs.rmSync(path.join(workspace, 'long.txt'), { force: true });
    fs.rmSync(path.join(workspace, '.git'), { recursive: true, force: true });
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('is contributed to the Evergreen container, and says why it is empty in a folder that is not a Git repository', async () => {
    const manifest = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON as { contributes: { views: { evergreen: Array<{ id: string }> } } };
    assert.deepEqual(manifest.contributes.views.evergreen.map((view) => view.id), ['evergreen.chat', 'evergreen.chats', 'evergreen.backgroundChats']);
    const empty = await api.backgroundChats();
    assert.deepEqual(empty.rows, []);
    assert.match(empty.message ?? '', /is not in a Git repository/);
  });

  it('lists a worktree chat with its branch, state and files changed, and follows its changes', async () => {
    git(workspace, 'init', '--quiet');
    git(workspace, 'add', 'README.md');
    git(workspace, 'commit', '--quiet', '-m', 'Start');
    assert.match((await api.backgroundChats()).message ?? '', /No background chats in this repository yet/);

    record = await manager.create({ checkout: workspace, name: CHAT, task: 'Rewrite the readme' });
    await waitFor(async () => (await api.backgroundChats()).rows.length === 1, { what: 'the new chat in the view' });
    let { rows } = await api.backgroundChats();
    assert.equal(rows[0]!.label, CHAT);
    assert.equal(rows[0]!.description, `evergreen/${CHAT} · ready · 0 files changed`);
    assert.equal(rows[0]!.contextValue, 'backgroundChat.ready');

    fs.writeFileSync(path.join(record.folder, 'README.md'), '# Rewritten by the background chat\n');
    fs.writeFileSync(path.join(record.folder, 'notes.txt'), 'a new file\n');
    ({ rows } = await api.backgroundChats());
    assert.equal(rows[0]!.description, `evergreen/${CHAT} · ready · 2 files changed`);
  });

  it('Review Changes opens the diff editor: the base on the left (read-only), the worktree on the right', async () => {
    assert.ok(record);
    await vscode.commands.executeCommand('evergreen.reviewBackgroundChanges', CHAT, 'README.md');
    await waitFor(() => vscode.window.tabGroups.activeTabGroup.activeTab?.input instanceof vscode.TabInputTextDiff, { what: 'the diff editor' });
    const input = vscode.window.tabGroups.activeTabGroup.activeTab!.input as vscode.TabInputTextDiff;
    assert.equal(input.original.scheme, 'evergreen-worktree-base');
    assert.equal(input.modified.fsPath, path.join(record.folder, 'README.md'));
    const base = await vscode.workspace.openTextDocument(input.original);
    assert.equal(base.getText(), readmeBefore);

    // Without a file named: every changed file, in one multi-file diff editor (VS Code counts them in its title).
    await vscode.commands.executeCommand('evergreen.reviewBackgroundChanges', CHAT);
    await waitFor(() => vscode.window.tabGroups.activeTabGroup.activeTab?.label === `Evergreen: ${CHAT} (2 files)`, { what: 'the multi-file diff of both changes' });
  });

  it('Apply Changes brings every change into the checkout as uncommitted changes, its HEAD untouched', async () => {
    assert.ok(record);
    const head = git(workspace, 'rev-parse', 'HEAD');
    await vscode.commands.executeCommand('evergreen.applyBackgroundChanges', CHAT);
    assert.equal(fs.readFileSync(path.join(workspace, 'README.md'), 'utf8'), '# Rewritten by the background chat\n');
    assert.equal(fs.readFileSync(path.join(workspace, 'notes.txt'), 'utf8'), 'a new file\n');
    assert.equal(git(workspace, 'rev-parse', 'HEAD'), head);
    assert.match(git(workspace, 'status', '--porcelain'), / M README\.md/);
  });

  it('New Background Chat runs a chat in a new worktree beside the panel, refusing what would need an approval', async () => {
    fake = await startFakeAnthropic();
    process.env.ANTHROPIC_API_KEY = fake.apiKey; // The documented fallback when SecretStorage has no key.
    await vscode.workspace.getConfiguration('evergreen').update('baseUrl', fake.url, vscode.ConfigurationTarget.Global);
    fake.enqueue(reply.toolUse('write_file', { path: 'bg.txt', content: 'from the background\n' }, { preamble: 'Writing it.' }), reply.text('I was not allowed to write bg.txt.'));

    const name = await vscode.commands.executeCommand<string | undefined>('evergreen.newBackgroundChat', 'Write bg.txt');
    assert.ok(name, 'the command returns the new chat');
    const made = await manager.find(workspace, name);
    assert.ok(made);
    others.push(made);
    const outcome = await api.backgroundOutcome(name);
    assert.ok(outcome, 'the runner knows the chat it started');
    assert.equal(outcome.stop, 'end_turn');
    assert.deepEqual(outcome.refused, ['write bg.txt']);

    // The write needed an approval: refused, told to the model, never shown in the panel's chat.
    assert.equal(fs.existsSync(path.join(made.folder, 'bg.txt')), false);
    assert.equal(fs.existsSync(path.join(workspace, 'bg.txt')), false);
    assert.equal(api.pendingApproval(), undefined);
    const requests = fake.messageRequests();
    assert.equal(requests.length, 2);
    assert.ok(JSON.stringify(requests[1]!.body).includes(BACKGROUND_REFUSAL), 'the model reads why the write was refused');
    // The chat's session is on its worktree's record (a resume finds the worktree), and the view lists it.
    assert.ok((await manager.find(workspace, name))?.sessionId);
    const { rows } = await api.backgroundChats();
    assert.equal(rows.find((row) => row.name === name)?.description, `evergreen/${name} · ready · 0 files changed`);

    // The panel does not resume it in the checkout, where its next edits would land.
    const sessionId = (await manager.find(workspace, name))!.sessionId!;
    await api.resume(sessionId);
    assert.notEqual(api.contextState().sessionId, sessionId);
  });

  it("Merge Branch merges the chat's commits into the checkout's branch as a merge commit", async () => {
    const merging = await manager.create({ checkout: workspace, name: 'ui-merge', task: 'Add merged.txt' });
    others.push(merging);
    fs.writeFileSync(path.join(merging.folder, 'merged.txt'), 'committed by the chat\n');
    git(merging.folder, 'add', 'merged.txt');
    git(merging.folder, 'commit', '--quiet', '-m', 'Add merged.txt');
    // The merge commit is the user's: Evergreen takes their identity from their Git config.
    git(workspace, 'config', 'user.name', 'Evergreen Test');
    git(workspace, 'config', 'user.email', 'test@example.invalid');
    const before = git(workspace, 'rev-parse', 'HEAD').trim();
    await vscode.commands.executeCommand('evergreen.mergeBackgroundBranch', 'ui-merge');
    assert.equal(fs.readFileSync(path.join(workspace, 'merged.txt'), 'utf8'), 'committed by the chat\n');
    assert.equal(git(workspace, 'rev-parse', 'HEAD^1').trim(), before, 'a merge commit on the branch the checkout had out');
    assert.equal(git(workspace, 'rev-parse', 'HEAD^2').trim(), git(workspace, 'rev-parse', 'refs/heads/evergreen/ui-merge').trim());
  });

  it('accepts and rejects hunk by hunk in a chat’s Changes, applies only the accepted, and applies nothing when one is in the way of the user’s edit', async () => {
    const lines = Array.from({ length: 30 }, (_, index) => `line ${index + 1}`);
    fs.writeFileSync(path.join(workspace, 'long.txt'), `${lines.join('\n')}\n`);
    git(workspace, 'add', 'long.txt');
    git(workspace, 'commit', '--quiet', '-m', 'long');
    const hunky = await manager.create({ checkout: workspace, name: 'ui-hunks' });
    others.push(hunky);
    const edited = lines.map((line, index) => (index === 1 ? 'line 2 by the chat' : index === 27 ? 'line 28 by the chat' : line));
    fs.writeFileSync(path.join(hunky.folder, 'long.txt'), `${edited.join('\n')}\n`);
    let [file] = await api.backgroundChanges('ui-hunks');
    assert.ok(file);
    assert.equal(file.label, 'long.txt');
    assert.deepEqual(file.hunks.map((hunk) => [hunk.label, hunk.contextValue]), [['Lines 1–5', 'backgroundHunk.undecided'], ['Lines 25–30', 'backgroundHunk.undecided']]);

    // The user edits line 28 too: accepting both hunks applies nothing, the user's line stays.
    const userVersion = `${lines.map((line, index) => (index === 27 ? 'line 28 by the user' : line)).join('\n')}\n`;
    fs.writeFileSync(path.join(workspace, 'long.txt'), userVersion);
    await vscode.commands.executeCommand('evergreen.acceptBackgroundChange', file.node);
    await vscode.commands.executeCommand('evergreen.applyAcceptedBackgroundChanges', 'ui-hunks');
    assert.equal(fs.readFileSync(path.join(workspace, 'long.txt'), 'utf8'), userVersion, 'a conflict changes nothing');
    [file] = await api.backgroundChanges('ui-hunks');
    assert.deepEqual(file!.hunks.map((hunk) => hunk.contextValue), ['backgroundHunk.accepted', 'backgroundHunk.accepted'], 'still accepted, not applied');

    // Reject the hunk in the way: the other one applies, beside the user's edit.
    await vscode.commands.executeCommand('evergreen.rejectBackgroundChange', file!.hunks[1]!.node);
    await vscode.commands.executeCommand('evergreen.applyAcceptedBackgroundChanges', 'ui-hunks');
    const now = fs.readFileSync(path.join(workspace, 'long.txt'), 'utf8').split('\n');
    assert.equal(now[1], 'line 2 by the chat');
    assert.equal(now[27], 'line 28 by the user');
    [file] = await api.backgroundChanges('ui-hunks');
    assert.deepEqual(file!.hunks.map((hunk) => hunk.contextValue), ['backgroundHunk.applied', 'backgroundHunk.rejected']);
    git(workspace, 'checkout', '--', 'long.txt');
  });

  it('notices a worktree whose folder was deleted by hand and cleans it up: the row, the record and its empty branch go', async () => {
    const deleted = await manager.create({ checkout: workspace, name: 'ui-deleted' });
    await waitFor(async () => (await api.backgroundChats()).rows.some((row) => row.name === 'ui-deleted'), { what: 'the new chat in the view' });
    fs.rmSync(deleted.folder, { recursive: true, force: true });
    await waitFor(async () => !(await api.backgroundChats()).rows.some((row) => row.name === 'ui-deleted'), { what: 'the deleted chat gone from the view' });
    assert.equal(await manager.find(workspace, 'ui-deleted'), undefined);
    assert.equal(git(workspace, 'branch', '--list', 'evergreen/ui-deleted'), '');
    assert.doesNotMatch(git(workspace, 'worktree', 'list', '--porcelain'), /ui-deleted/);
  });
});
