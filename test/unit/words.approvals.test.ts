// Tool cards' and approval cards' texts (issue 27 item 6): the core says kinds, the front ends word
// them with the English the cards showed before.
import { userText } from '../../src/core/texts/userText';
import assert from 'node:assert/strict';
import { PROTECTED_WHY, protectedWriteWhy } from '../../src/core/approvals/protectedPaths';
import { protectedWhyText } from '../../src/core/approvals/texts';
import { approvalSummaryOf, type AgentEvent } from '../../src/core/agent/events';
import { serverHintsOf } from '../../src/core/mcp/tools';
import { OVERLAY_ALSO_HELD } from '../../src/core/sandbox/policy';
import type { ProtectedWhy } from '../../src/core/texts/approvals';
import { configureWords } from '../../src/frontends/words';
import { said, worded } from '../support/said';

describe('words: tool cards and approval cards (issue 27 item 6)', () => {
  afterEach(() => configureWords({ locale: 'en', voice: 'cli' }));

  it('words each headline kind the model\'s values go into', () => {
    assert.equal(said(userText('tool.mcpCall', { server: 'github', tool: 'get_issue', input: '{"n":1}' })), 'github: get_issue {"n":1}');
    assert.equal(said(userText('tool.memory', { command: 'view', path: '/memories/a.md' })), 'view /memories/a.md');
    assert.equal(said(userText('tool.memoryRename', { from: '/memories/a', to: '/memories/b' })), 'rename /memories/a → /memories/b');
    assert.equal(said(userText('tool.fetchWithPrompt', { url: 'https://x.test/', prompt: 'the price' })), 'https://x.test/ — the price');
  });

  it('a count is a quantity in the user\'s locale; a line number is an identifier', () => {
    configureWords({ locale: 'de', voice: 'extension' });
    assert.equal(said(userText('tool.todos', { done: 1200, total: 1500 })), '1.200/1.500 done');
    assert.equal(said(userText('tool.readFromLine', { path: 'a.ts', line: '12000' })), 'a.ts (from line 12000)');
  });

  it('words every reason a path is protected as the core says it to the model', () => {
    for (const [why, english] of Object.entries(PROTECTED_WHY)) assert.equal(said(protectedWhyText(why as ProtectedWhy)), english, why);
    assert.equal(said(protectedWhyText(protectedWriteWhy('.git/config') ?? 'ssh')), 'Git configuration and hooks run commands (core.fsmonitor, core.pager, aliases, hooks)');
  });

  it('words what an MCP server claims about its tool', () => {
    const hints = serverHintsOf({ name: 't', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true, destructiveHint: true, idempotentHint: true, openWorldHint: true } });
    assert.deepEqual(hints.map((hint) => said(hint)), ['read-only', 'may delete or overwrite', 'repeatable', 'reaches outside systems']);
  });

  it('words why a sandboxed command\'s write waits for the user, as the result tells the model', () => {
    assert.equal(said(userText('approval.heldNew', { path: '.vscode', why: protectedWhyText('editor') })), "a new .vscode: workspace settings and tasks run commands and hold Evergreen's own settings");
    assert.equal(said(userText('approval.heldNew', { path: '.claude', why: OVERLAY_ALSO_HELD['.claude']!.said })), `a new .claude: ${OVERLAY_ALSO_HELD['.claude']!.english}`);
    assert.equal(said(userText('approval.heldNew', { path: '.idea', why: OVERLAY_ALSO_HELD['.idea']!.said })), `a new .idea: ${OVERLAY_ALSO_HELD['.idea']!.english}`);
    assert.equal(said(userText('approval.heldNew', { path: 'x', why: { kind: 'approval.heldWhyOutside', data: {} } })), 'a new x: it configures what runs outside the sandbox');
    assert.equal(said(userText('approval.heldGitLink', {})), 'a .git link: Git would use the folder it points to, and its configuration, as this repository');
    assert.equal(said(userText('approval.heldGitFile', {})), 'a .git file: Git would use the folder it names, and its configuration, as this repository');
    assert.equal(said(userText('approval.heldLinkInGitDir', { where: 'sub/.git' })), 'a link inside the Git directory sub/.git: Git could read configuration through it');
    assert.equal(said(userText('approval.heldGitHook', { where: 'sub/.git' })), 'a Git hook in sub/.git: Git runs it outside the sandbox');
    assert.equal(said(userText('approval.heldGitRedirect', { name: 'commondir', where: 'sub/.git' })), 'commondir in sub/.git: Git would read its configuration from the folder it names');
    assert.equal(said(userText('approval.heldGitConfig', { where: 'sub/.git' })), 'Git configuration in sub/.git that runs commands or points Git elsewhere');
  });

  it('an approval_needed event reaches the panel and stream-json in words', () => {
    const write = approvalSummaryOf({ kind: 'write', path: 'package.json', diff: '', isNew: false, protectedReason: protectedWhyText('packageScripts') });
    const mcp = approvalSummaryOf({ kind: 'mcp', server: 's', tool: 't', fullName: 'mcp__s__t', arguments: '{}', serverHints: [userText('approval.hintReadOnly', {})] });
    const held = approvalSummaryOf({ kind: 'sandbox_changes', command: 'git init', changes: [{ path: 'sub/.git/hooks/pre-commit', reason: userText('approval.heldGitHook', { where: 'sub/.git' }), detail: 'x' }] });
    const events: AgentEvent[] = [write, mcp, held].map((request) => ({ type: 'approval_needed', turnId: 't', toolUseId: 'u', request }));
    const [first, second, third] = worded(events);
    assert.ok(first?.type === 'approval_needed' && first.request.kind === 'write');
    assert.equal(first.request.protectedReason, 'package scripts and package-manager settings run commands');
    assert.ok(second?.type === 'approval_needed' && second.request.kind === 'mcp');
    assert.deepEqual(second.request.serverHints, ['read-only']);
    assert.ok(third?.type === 'approval_needed' && third.request.kind === 'sandbox_changes');
    assert.deepEqual(third.request.changes, [{ path: 'sub/.git/hooks/pre-commit', reason: 'a Git hook in sub/.git: Git runs it outside the sandbox', detail: 'x' }]);
  });
});
