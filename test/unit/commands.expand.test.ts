/**
 * A typed slash command (src/core/commands/slash.ts): built-ins parsed into typed commands, file
 * commands expanded with their arguments and `@` references (as attachment requests, confined to
 * the workspace), an unknown command with the near names, and a workspace command that tries to
 * grant itself approvals: it narrows the tools and grants nothing.
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import type { AttachmentSpec } from '../../src/core/agent/attachments';
import { splitArguments, substituteArguments } from '../../src/core/commands/arguments';
import { loadFileCommands, type CommandDefinition } from '../../src/core/commands/fileCommands';
import { referencesToAttachments } from '../../src/core/commands/references';
import { expandCommand, parseSlashInput, resolveSlashCommand, type SlashResolution } from '../../src/core/commands/slash';
import { restrictTools } from '../../src/core/definitions/toolNames';
import { decide, type ApprovalPolicy } from '../../src/core/approvals/approval';
import { NodeWorkspace } from '../../src/core/workspace/workspace';
import { customizationFolders, type CustomizationFolders } from '../support/customization';
import { said } from '../support/said';
import type { UserText } from '../../src/core/texts/userText';

describe('commands: typed prompts, arguments and references', function () {
  this.timeout(30_000);
  let folders: CustomizationFolders;
  let commands: CommandDefinition[];
  beforeEach(async () => {
    folders = customizationFolders();
    commands = (await loadFileCommands({ workspaceRoot: folders.workspace, workspaceTrusted: true, home: folders.home })).commands;
  });
  afterEach(() => folders.cleanup());

  const fileCommand = (prompt: string): { command: CommandDefinition; args: string } => {
    const resolved = resolveSlashCommand(prompt, commands);
    assert.equal(resolved.kind, 'file', JSON.stringify(resolved));
    return resolved as Extract<SlashResolution, { kind: 'file' }>;
  };
  const expand = (prompt: string, context = {}) => {
    const { command, args } = fileCommand(prompt);
    return expandCommand(command, args, context);
  };
  const attach = async (expansion: ReturnType<typeof expand>) => referencesToAttachments(expansion.references, new NodeWorkspace(folders.workspace), expansion.command.origin.real);

  it("fills Claude Code's $1-$9 and keeps its !`…` lines as text", () => {
    const expansion = expand('/review-pr 456 high "Alice Smith"');
    assert.match(expansion.prompt, /Review PR #456 with priority high and assign the follow-ups to Alice Smith\./);
    assert.match(expansion.prompt, /- The pull request: !`gh pr view 456`/);
    assert.deepEqual(expansion.model, ['claude-3-5-haiku-20241022']);
    assert.deepEqual(expansion.notices, []);
    const short = expand('/review-pr 456');
    assert.match(short.prompt, /with priority \$2 and assign the follow-ups to \$3/, 'a placeholder with no argument stays as written');
    assert.match(said(short.notices[0]!), /"\$2" and "\$3" had no value.*\[pr-number\] \[priority\] \[assignee\]/);
  });

  it('finds a namespaced command by its short name, fills $ARGUMENTS, keeps \\$1, and attaches its @file', async () => {
    const expansion = expand('/component PriceTag');
    assert.equal(expansion.command.name, 'frontend:component');
    assert.match(expansion.prompt, /named PriceTag in src\/components/);
    assert.match(expansion.prompt, /Costs of \$1 per render/);
    assert.equal(expand('/frontend:component PriceTag').prompt, expansion.prompt);
    const { attachments, notices } = await attach(expansion);
    assert.deepEqual(attachments, [{ kind: 'file', path: 'src/components/Button.jsx' }]);
    assert.deepEqual(notices, []);
    const spec: AttachmentSpec = attachments[0]!; // the session's attachments take these as they are
    assert.equal(spec.kind, 'file');
  });

  it('asks for the full name when a short name is in several folders', () => {
    const resolved = resolveSlashCommand('/test', commands);
    assert.equal(resolved.kind, 'error');
    if (resolved.kind !== 'error') return;
    assert.match(said(resolved.message), /\/test is defined in several folders: \/backend:test \(\.claude\/commands\/backend\/test\.md\), \/frontend:test/);
    assert.deepEqual(resolved.suggestions, ['backend:test', 'frontend:test']);
    assert.equal(fileCommand('/backend:test').command.origin.file, '.claude/commands/backend/test.md');
  });

  it("fills Copilot's ${input:…} from name=value and attaches the files its Markdown links name", async () => {
    const expansion = expand('/create-react-form formName="Signup Form"');
    assert.match(expansion.prompt, /component named Signup Form\./);
    assert.equal(expansion.mode, 'agent');
    const { attachments } = await attach(expansion);
    assert.deepEqual(attachments, [{ kind: 'file', path: 'docs/design-system/Form.md' }], 'relative to the prompt file');
    const missing = expand('/create-react-form');
    assert.match(missing.prompt, /\$\{input:formName:Name of the form\}/);
    assert.match(said(missing.notices[0]!), /had no value.*name=value/);
  });

  it("fills Copilot's ${file} and ${selection} from the editor, and reports them when there is none (the CLI)", () => {
    const withEditor = expand('/security-review', { editor: { file: path.join(folders.workspace, 'src/api.ts'), selection: 'app.get("/users", handler)' } });
    assert.match(withEditor.prompt, /security review of .*src\/api\.ts and provide/);
    assert.match(withEditor.prompt, /app\.get\("\/users", handler\)/);
    assert.equal(withEditor.mode, 'plan');
    const without = expand('/security-review');
    assert.match(without.prompt, /review of \$\{file\}/);
    assert.match(said(without.notices[0]!), /"\$\{file\}" and "\$\{selection\}" had no value/);
  });

  it("fills Evergreen's own files with both kinds of placeholder, and appends arguments a prompt does not take", () => {
    const notes = expand('/release-notes 2.4.0 since=v2.3.0');
    assert.match(notes.prompt, /for version 2\.4\.0, covering the changes since v2\.3\.0\./);
    assert.equal(notes.mode, 'plan');
    const standup = expand('/standup focus on the API');
    assert.equal(standup.command.origin.scope, 'user');
    assert.match(standup.prompt, /--author="\$\(git config user\.email\)"/, 'shell-looking text is not touched');
    assert.match(standup.prompt, /\n\nARGUMENTS: focus on the API$/);
  });

  it("expands the user's own Evergreen commands too, with their arguments and references", async () => {
    folders.write(folders.home, '.evergreen/commands/explain.md', '---\ndescription: Explain a symbol\nargument-hint: <symbol>\n---\nExplain what $1 does, starting from @src/components/Button.jsx.');
    commands = (await loadFileCommands({ workspaceRoot: folders.workspace, workspaceTrusted: true, home: folders.home })).commands;
    const expansion = expand('/explain onClick');
    assert.equal(expansion.command.origin.file, '~/.evergreen/commands/explain.md');
    assert.equal(expansion.prompt, 'Explain what onClick does, starting from @src/components/Button.jsx.');
    assert.deepEqual((await attach(expansion)).attachments, [{ kind: 'file', path: 'src/components/Button.jsx' }], 'relative to the workspace, wherever the command lives');
  });

  it('attaches only what the workspace has: outside paths, missing paths and code are not attachments', async () => {
    folders.write(folders.workspace, '.claude/commands/refs.md', [
      'Compare @src/components/Button.jsx:1-2 with @docs/ and @../outside.txt and @/etc/hostname.',
      'Install @types/node, mail me@example.com, see `@src/components/Button.jsx` in code.',
      '```',
      '@docs/design-system/Form.md',
      '```',
    ].join('\n'));
    folders.write(folders.outside, 'outside.txt', 'outside');
    commands = (await loadFileCommands({ workspaceRoot: folders.workspace, workspaceTrusted: true, home: folders.home })).commands;
    const { attachments, notices } = await attach(expand('/refs'));
    assert.deepEqual(attachments, [
      { kind: 'file', path: 'src/components/Button.jsx', fromLine: 1, toLine: 2 },
      { kind: 'folder', path: 'docs' },
    ]);
    assert.equal(notices.length, 3, notices.join('\n'));
    assert.match(said(notices[0]!), /@\.\.\/outside\.txt was not attached: .*outside the workspace/);
    assert.match(said(notices[1]!), /@\/etc\/hostname was not attached/);
    assert.match(said(notices[2]!), /@types\/node names no file in the workspace; it was left as text/);
  });

  it('a workspace command that tries to pre-approve git push narrows the tools and grants nothing', async () => {
    const loaded = await loadFileCommands({ workspaceRoot: folders.workspace, workspaceTrusted: true, home: folders.home });
    const grant = loaded.notices.find((item) => item.kind === 'grant-ignored' && item.file === '.claude/commands/commit.md');
    assert.ok(grant, 'the grant is reported');
    assert.deepEqual(grant.entries, ['Bash(git add:*)', 'Bash(git status:*)', 'Bash(git commit:*)', 'Bash(git push:*)']);
    assert.match(said(grant.message), /never approve a call/);
    const expansion = expand('/commit');
    // The expansion carries nothing that could reach the approval policy: the front ends build it from the user's settings only.
    assert.deepEqual(Object.keys(expansion).sort(), ['command', 'notices', 'prompt', 'references', 'tools']);
    const offered = [{ name: 'read_file' }, { name: 'write_file' }, { name: 'run_shell' }, { name: 'recall' }];
    assert.deepEqual(restrictTools(offered, expansion.tools).map((tool) => tool.name), ['run_shell', 'recall'], 'only narrows');
    assert.deepEqual(restrictTools(offered.filter((tool) => tool.name !== 'run_shell'), expansion.tools).map((tool) => tool.name), ['recall'], 'never widens');
    const policy: ApprovalPolicy = { writes: 'ask', shell: 'ask', shellAllowList: [] };
    assert.equal(decide(policy, { kind: 'shell', command: 'git push origin main', isolation: 'sandbox' }), 'ask');
  });

  it('names the near commands for an unknown one, typos and swapped letters included', () => {
    const error = (prompt: string) => {
      const resolved = resolveSlashCommand(prompt, commands);
      assert.equal(resolved.kind, 'error', prompt);
      return resolved as Extract<SlashResolution, { kind: 'error' }>;
    };
    const typo = error('/reveiw-pr 12');
    assert.equal(typo.suggestions[0], 'review-pr');
    assert.match(said(typo.message), /^Unknown command \/reveiw-pr\. Did you mean \/review-pr/);
    assert.match(said(typo.message), /Type \/help/);
    assert.equal(error('/hepl').suggestions[0], 'help');
    assert.equal(error('/cmpact').suggestions[0], 'compact');
    assert.equal(error('/Compact').suggestions[0], 'compact', 'names are case-sensitive, the suggestion says how to write it');
    const none = error('/zzqx');
    assert.deepEqual(none.suggestions, []);
    assert.doesNotMatch(said(none.message), /Did you mean/);
  });

  it('parses the built-in commands into typed commands, and refuses arguments that do not fit', () => {
    const builtIn = (prompt: string) => resolveSlashCommand(prompt, commands);
    assert.deepEqual(builtIn('/compact  the API decisions '), { kind: 'built-in', command: { name: 'compact', focus: 'the API decisions' } });
    assert.deepEqual(builtIn('/thinking 8000'), { kind: 'built-in', command: { name: 'thinking', setting: 8000 } });
    assert.deepEqual(builtIn('/thinking off'), { kind: 'built-in', command: { name: 'thinking', setting: 'off' } });
    assert.deepEqual(builtIn('/mode Security Reviewer'), { kind: 'built-in', command: { name: 'mode', mode: 'Security Reviewer' } });
    assert.deepEqual(builtIn('/model claude-sonnet-4-5'), { kind: 'built-in', command: { name: 'model', model: 'claude-sonnet-4-5' } });
    for (const name of ['help', 'new', 'resume', 'context', 'memory', 'init', 'model', 'mode', 'thinking']) assert.deepEqual(builtIn(`/${name}`), { kind: 'built-in', command: { name } });
    assert.match(said((builtIn('/thinking lots') as { message: UserText }).message), /^\/thinking must be "off", "auto" or a budget/);
    assert.match(said((builtIn('/model a b') as { message: UserText }).message), /one model id/);
    assert.match(said((builtIn('/new chat please') as { message: UserText }).message), /\/new takes nothing after it/);
  });

  it('leaves text alone: paths, a lone slash, and // to send a leading slash', () => {
    assert.equal(parseSlashInput('/usr/bin/env is missing'), undefined);
    assert.deepEqual(resolveSlashCommand('/usr/bin/env is missing', commands), { kind: 'text', text: '/usr/bin/env is missing' });
    assert.deepEqual(resolveSlashCommand('//tmp is full', commands), { kind: 'text', text: '/tmp is full' });
    assert.deepEqual(resolveSlashCommand('please /compact', commands), { kind: 'text', text: 'please /compact' });
    assert.deepEqual(parseSlashInput('  /review-pr\n12 high'), { name: 'review-pr', args: '12 high' });
  });
});

describe('commands: arguments', () => {
  it('splits at whitespace; a quote groups only where a word starts (or after =), so apostrophes stay', () => {
    assert.deepEqual(splitArguments(`fix "the login bug" don't 'break it' name="A B" x='y`), ['fix', 'the login bug', "don't", 'break it', 'name=A B', "x='y"]);
    assert.deepEqual(splitArguments('  '), []);
    assert.deepEqual(splitArguments('"unclosed quote here'), ['"unclosed', 'quote', 'here']);
    assert.deepEqual(splitArguments('"it"s"'), ['it"s'], 'the closing quote is the one that ends a word');
  });

  it('substitutes by format: Claude placeholders in Claude files, Copilot variables in Copilot files, both in Evergreen files', () => {
    const body = 'A=$1 all=$ARGUMENTS first=$ARGUMENTS[0] esc=\\$1 keep=\\\\$1 ten=$10 in=${input:who} ws=${workspaceFolderBasename}';
    const context = { workspaceFolder: '/work/shop' };
    assert.equal(substituteArguments(body, 'x who=y', 'claude', context).text, 'A=x all=x who=y first=x esc=$1 keep=\\\\x ten=$10 in=${input:who} ws=${workspaceFolderBasename}');
    assert.equal(substituteArguments(body, 'x who=y', 'copilot', context).text, 'A=$1 all=$ARGUMENTS first=$ARGUMENTS[0] esc=\\$1 keep=\\\\$1 ten=$10 in=y ws=shop');
    assert.equal(substituteArguments(body, 'x who=y', 'evergreen', context).text, 'A=x all=x who=y first=x esc=$1 keep=\\\\x ten=$10 in=y ws=shop');
    assert.equal(substituteArguments('Costs $5 and $0.', 'ten', 'claude').text, 'Costs $5 and $0.', '$0 is not an argument; a missing $5 stays');
  });

  it("appends ARGUMENTS only when the prompt takes none (Claude Code's rule), and never to an empty argument list", () => {
    assert.equal(substituteArguments('Review the diff.', ' carefully ', 'claude').text, 'Review the diff.\n\nARGUMENTS: carefully');
    assert.equal(substituteArguments('Review the diff.', '', 'claude').text, 'Review the diff.');
    assert.equal(substituteArguments('Review $1.', 'a b', 'claude').text, 'Review a.');
    assert.equal(substituteArguments('Escaped \\$1 only.', 'a', 'claude').text, 'Escaped $1 only.\n\nARGUMENTS: a');
  });

  it("derives Copilot's file variables from the editor's file, and leaves variables it does not know as written", () => {
    const filled = substituteArguments('${file} ${fileBasename} ${fileDirname} ${fileBasenameNoExtension} ${unknownVar}', '', 'copilot', { editor: { file: '/w/src/app.test.ts' } });
    assert.equal(filled.text, '/w/src/app.test.ts app.test.ts /w/src app.test ${unknownVar}');
    assert.deepEqual(filled.unfilled, [], 'an unknown variable is not ours to report');
  });
});
