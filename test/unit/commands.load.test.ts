/**
 * Slash commands loaded from files (src/core/commands/fileCommands.ts): every source, with files
 * shaped like the ones Claude Code and Copilot users keep (test/fixtures/customization), which one
 * wins a name, an untrusted workspace, and every kind of bad file, each a notice while the rest loads.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadFileCommands, type CommandDefinition } from '../../src/core/commands/fileCommands';
import type { DefinitionNotice } from '../../src/core/definitions/types';
import { customizationFolders, type CustomizationFolders } from '../support/customization';
import { said } from '../support/said';

describe('commands: loading from files', function () {
  this.timeout(30_000);
  let folders: CustomizationFolders;
  beforeEach(() => {
    folders = customizationFolders();
  });
  afterEach(() => folders.cleanup());

  const load = (trusted = true) => loadFileCommands({ workspaceRoot: folders.workspace, workspaceTrusted: trusted, home: folders.home });
  const named = (commands: readonly CommandDefinition[], name: string): CommandDefinition => {
    const found = commands.find((command) => command.name === name);
    assert.ok(found, `no command ${name} in ${commands.map((command) => command.name).join(', ')}`);
    return found;
  };
  const noticesOf = (notices: readonly DefinitionNotice[], kind: DefinitionNotice['kind']) => notices.filter((item) => item.kind === kind);

  it('reads every source: the user\'s own, then .evergreen, .claude (subfolders as namespaces) and .github/prompts', async () => {
    const { commands } = await load();
    assert.deepEqual(
      commands.map((command) => [command.name, command.origin.scope, command.origin.format]),
      [
        ['standup', 'user', 'claude'],
        ['release-notes', 'workspace', 'evergreen'],
        ['backend:test', 'workspace', 'claude'],
        ['commit', 'workspace', 'claude'],
        ['frontend:component', 'workspace', 'claude'],
        ['frontend:test', 'workspace', 'claude'],
        ['review-pr', 'workspace', 'claude'],
        ['create-react-form', 'workspace', 'copilot'],
        ['security-review', 'workspace', 'copilot'],
      ],
    );
    const component = named(commands, 'frontend:component');
    assert.equal(component.shortName, 'component');
    assert.equal(component.namespace, 'frontend');
    assert.equal(component.origin.file, '.claude/commands/frontend/component.md');
    assert.equal(named(commands, 'standup').origin.file, '~/.claude/commands/standup.md');
  });

  it("honours each format's frontmatter: description, argument-hint (Claude Code's [a] [b] form too), model, mode/agent, tools", async () => {
    const { commands, notices } = await load();
    const review = named(commands, 'review-pr');
    assert.equal(review.description, 'Review a pull request and leave a verdict');
    assert.equal(review.argumentHint, '[pr-number] [priority] [assignee]', 'not valid YAML as written, read as Claude Code reads it');
    assert.deepEqual(review.model, ['claude-3-5-haiku-20241022']);
    assert.equal(review.mode, undefined, "Claude Code's files pick no mode");
    assert.deepEqual([...review.tools!.tools].sort(), ['grep_search', 'list_files', 'read_file', 'run_shell']);

    const form = named(commands, 'create-react-form');
    assert.equal(form.mode, 'agent');
    assert.deepEqual(form.model, ['GPT-4o']);
    assert.deepEqual([...form.tools!.tools].sort(), ['edit_file', 'grep_search', 'list_files', 'read_file', 'write_file']);
    assert.equal(named(commands, 'security-review').mode, 'plan', "Copilot's ask agent changes nothing: plan");

    const notes = named(commands, 'release-notes');
    assert.equal(notes.mode, 'plan');
    assert.deepEqual(notes.tools!.mcp.map((selector) => selector.written), ['mcp__github__*']);
    assert.equal(named(commands, 'frontend:test').description, 'Run the frontend\'s unit tests with `npm run test:web` and fix what fails.', 'no description: the first line');

    const unknown = noticesOf(notices, 'unknown-tool');
    assert.deepEqual(unknown.map((item) => [item.file, item.entries]), [['.github/prompts/create-react-form.prompt.md', ['githubRepo']]]);
    const shell = noticesOf(notices, 'unsupported-field').find((item) => item.file === '.claude/commands/review-pr.md');
    assert.ok(shell, 'the !`…` lines are reported, never run');
    assert.deepEqual(shell.entries, ['gh pr view $1', 'gh pr diff $1']);
  });

  it("takes the user's own command over the workspace's of the same name, and reports the one hidden", async () => {
    folders.write(folders.home, '.evergreen/commands/review-pr.md', '---\ndescription: My own review\n---\nReview PR $1 my way.');
    const { commands, notices } = await load();
    const review = named(commands, 'review-pr');
    assert.equal(review.origin.file, '~/.evergreen/commands/review-pr.md');
    const shadowed = noticesOf(notices, 'shadowed');
    assert.equal(shadowed.length, 1);
    assert.equal(shadowed[0]!.file, '.claude/commands/review-pr.md');
    assert.equal(shadowed[0]!.winner, '~/.evergreen/commands/review-pr.md');
    assert.match(said(shadowed[0]!.message), /your own ~\/\.evergreen\/commands\/review-pr\.md takes precedence over the workspace's/);
  });

  it('reports a duplicate at the same level and a file that takes a built-in name', async () => {
    folders.write(folders.workspace, '.claude/commands/compact.md', 'Summarize everything.');
    folders.write(folders.workspace, '.evergreen/commands/commit.md', 'Commit my way.');
    const { commands, notices } = await load();
    assert.equal(named(commands, 'commit').origin.file, '.evergreen/commands/commit.md', '.evergreen is read before .claude');
    assert.equal(commands.find((command) => command.name === 'compact'), undefined);
    const builtIn = noticesOf(notices, 'shadowed').find((item) => item.name === 'compact');
    assert.match(said(builtIn!.message), /built-in \/compact/);
    assert.ok(noticesOf(notices, 'shadowed').some((item) => item.file === '.claude/commands/commit.md' && item.winner === '.evergreen/commands/commit.md'));
    folders.write(folders.workspace, '.github/prompts/commit-two.prompt.md', '---\nname: release\n---\nA');
    folders.write(folders.workspace, '.github/prompts/release.prompt.md', 'B');
    const again = await load();
    const duplicate = noticesOf(again.notices, 'duplicate');
    assert.deepEqual(duplicate.map((item) => [item.file, item.winner]), [['.github/prompts/release.prompt.md', '.github/prompts/commit-two.prompt.md']]);
  });

  it("loads only the user's own commands in an untrusted workspace, and says what it skipped", async () => {
    const { commands, notices } = await load(false);
    assert.deepEqual(commands.map((command) => command.name), ['standup']);
    const untrusted = noticesOf(notices, 'untrusted');
    assert.equal(untrusted.length, 1);
    assert.match(said(untrusted[0]!.message), /\.evergreen\/commands, \.claude\/commands, \.github\/prompts/);
  });

  it("refuses a workspace's .claude that is a link out of it, and follows the user's own folder into a dotfiles repository", async () => {
    const { workspace, home, outside, write } = folders;
    fs.rmSync(path.join(workspace, '.claude'), { recursive: true });
    write(outside, 'elsewhere/commands/evil.md', 'From outside the workspace.');
    fs.symlinkSync(path.join(outside, 'elsewhere'), path.join(workspace, '.claude'));
    fs.rmSync(path.join(home, '.claude'), { recursive: true });
    write(outside, 'dotfiles/claude/commands/mine.md', 'My dotfiles command.');
    write(outside, 'dotfiles/secret.md', 'NOT A COMMAND');
    fs.symlinkSync(path.join(outside, 'dotfiles/secret.md'), path.join(outside, 'dotfiles/claude/commands/escape.md'));
    fs.mkdirSync(path.join(home, '.claude'));
    fs.symlinkSync(path.join(outside, 'dotfiles/claude/commands'), path.join(home, '.claude/commands'));
    const { commands, notices } = await load();
    const names = commands.map((command) => command.name);
    assert.ok(!names.includes('evil'));
    assert.match(said(notices.find((item) => item.file === '.claude/commands')!.message), /outside the workspace root/);
    assert.ok(names.includes('mine'), "the user's own folder is followed");
    assert.equal(named(commands, 'mine').origin.file, '~/.claude/commands/mine.md');
    assert.ok(!names.includes('escape'), 'but a link out of it is not');
    assert.equal(notices.find((item) => item.file === '~/.claude/commands/escape.md')?.kind, 'unreadable');
  });

  it('stops at the folder limits and says so', async () => {
    for (let index = 0; index < 205; index++) folders.write(folders.workspace, `.evergreen/commands/c${String(index).padStart(3, '0')}.md`, `Command ${index}`);
    folders.write(folders.workspace, '.claude/commands/a/b/c/d/e/deep.md', 'too deep');
    const { commands, notices } = await load();
    assert.equal(commands.filter((command) => /^c\d{3}$/.test(command.name)).length, 200);
    assert.ok(commands.some((command) => command.name === 'c199') && !commands.some((command) => command.name === 'c200'), 'the first 200 by name');
    assert.ok(noticesOf(notices, 'limit').some((item) => /more than 200 files/.test(said(item.message))));
    assert.ok(!commands.some((command) => command.shortName === 'deep'));
    assert.ok(noticesOf(notices, 'limit').some((item) => /levels deep/.test(said(item.message))));
  });
});
