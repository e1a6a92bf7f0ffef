// Issue 27 item 6: what the core says about the files users bring (commands, modes, skills) and
// memory is a kind with data; these read the English the CLI (and the extension, in English) shows.
import assert from 'node:assert/strict';
import { expandCommand, resolveSlashCommand } from '../../src/core/commands/slash';
import type { CommandDefinition } from '../../src/core/commands/fileCommands';
import { listField, modelField, parseFrontmatter, textField } from '../../src/core/definitions/frontmatter';
import { pickByName, type Named } from '../../src/core/definitions/precedence';
import { parseToolList } from '../../src/core/definitions/toolNames';
import type { DefinitionOrigin } from '../../src/core/definitions/types';
import { skillNameProblem } from '../../src/core/skills/skills';
import type { CustomizationTexts } from '../../src/core/texts/customization';
import { userText } from '../../src/core/texts/userText';
import { configureWords } from '../../src/frontends/words';
import { said } from '../support/said';

const origin = (file: string, scope: DefinitionOrigin['scope'], source: string): DefinitionOrigin => ({ scope, format: 'evergreen', source, file, real: `/real/${file}` });
const named = (name: string, file: string, scope: DefinitionOrigin['scope'], source: string): Named => ({ name, origin: origin(file, scope, source) });

/** Kinds said where a test would need a file system the unit tier does not touch: each with its data and the sentence a user reads. */
const SENTENCES: { [K in keyof CustomizationTexts]?: [CustomizationTexts[K], string] } = {
  'customization.notAFolder': [{ folder: '.claude/commands' }, '.claude/commands is not a folder; nothing was loaded from it.'],
  'customization.notRead': [{ path: '.claude/commands/x.md', error: 'outside the workspace root' }, '.claude/commands/x.md was not read: outside the workspace root'],
  'customization.folderNotListed': [{ folder: '.claude/commands/a', error: 'EACCES' }, '.claude/commands/a could not be listed (EACCES); its files were not loaded.'],
  'customization.tooDeep': [{ folder: '.claude/commands', depth: 4 }, '.claude/commands has folders more than 4 levels deep; those were not read.'],
  'customization.notOpened': [{ file: 'a.md', error: 'ELOOP' }, 'a.md could not be opened (ELOOP); it was not loaded.'],
  'customization.folderNotFile': [{ file: 'a.md' }, 'a.md is not a regular file (a folder); it was not loaded.'],
  'customization.specialFile': [{ file: 'a.md' }, 'a.md is not a regular file (a special file); it was not loaded.'],
  'customization.notUtf8': [{ file: 'a.md' }, 'a.md is not valid UTF-8; it was read as Windows-1252 (Latin-1). Save it as UTF-8 if some characters look wrong.'],
  'customization.unreadable': [{ file: 'a.md', error: 'EIO' }, 'a.md could not be read (EIO); it was not loaded.'],
  'customization.untrustedCommands': [{ folders: '.claude/commands, .github/prompts' }, 'The workspace is not trusted, so its commands (.claude/commands, .github/prompts) were not loaded. Trust the workspace to use them.'],
  'customization.untrustedModes': [{ folders: '.github/agents' }, 'The workspace is not trusted, so its modes (.github/agents) were not loaded. Trust the workspace to use them.'],
  'customization.modeTooLarge': [{ file: '.evergreen/modes/big.md', kilobytes: 256 }, '.evergreen/modes/big.md is larger than 256 KB, the most a mode file may be; it was not loaded. Move long material into files the mode refers to.'],
  'customization.skillFolderNotLoaded': [{ folder: '~/.claude/skills/x', error: 'ENOENT' }, '~/.claude/skills/x was not loaded as a skill: ENOENT'],
  'customization.skillsNotListed': [{ folder: '.claude/skills', error: 'EACCES' }, '.claude/skills could not be listed (EACCES); no skill was loaded from it.'],
  'customization.skillBodyLong': [{ file: 'huge/SKILL.md', limit: 30_000 }, 'huge/SKILL.md is long: the skill tool returns its first 30,000 characters and tells the model where to read the rest.'],
  'customization.skillGrantIgnored': [{ file: 'g/SKILL.md' }, 'g/SKILL.md: "allowed-tools" pre-approves tools elsewhere; in Evergreen a skill grants nothing, and its scripts run through run_shell under your approval settings.'],
  'customization.commandFieldsUnsupported': [{ file: 'r.md', fields: '"hooks", "context"' }, 'r.md: Evergreen does not act on "hooks", "context"; the command runs in the conversation with the rest of its frontmatter.'],
  'customization.modeNameInvalid': [{ file: 'm.md', name: 'a/b' }, 'm.md: the mode name "a/b" may not contain "/" or control characters; the file is not used.'],
  'customization.modeFieldsUnsupported': [{ file: 'm.agent.md', fields: '"handoffs"' }, 'm.agent.md: Evergreen does not act on "handoffs"; the rest of the mode is used.'],
  'customization.modeGone': [{ mode: 'reviewer' }, 'This session was in the "reviewer" mode, which no longer exists (its file was removed, renamed or is not loaded here); it goes on in the agent mode.'],
  'customization.modeModelFailed': [
    { mode: 'fast', model: 'claude-haiku-4-5', error: 'model not found', running: 'claude-sonnet-4-5' },
    'The fast mode asks for the model claude-haiku-4-5, which could not be used here (model not found); the session runs on claude-sonnet-4-5.',
  ],
  'customization.modeModelNotServed': [
    { mode: 'fast', models: 'GPT-4o or o3', provider: 'anthropic', running: 'claude-sonnet-4-5' },
    'The fast mode asks for GPT-4o or o3, which anthropic does not serve here; the session runs on claude-sonnet-4-5.',
  ],
  'customization.referenceFolderRange': [{ reference: '@src:1-3' }, '@src:1-3 is a folder, so its line range was ignored.'],
};

describe('customization texts: files users bring and memory, worded', () => {
  afterEach(() => configureWords({ locale: 'en', voice: 'cli' }));

  it('words each kind a test cannot reach without the disk as the sentence the user read before', () => {
    for (const [kind, entry] of Object.entries(SENTENCES)) {
      const [data, english] = entry as [never, string];
      assert.equal(said(userText(kind as keyof CustomizationTexts, data)), english, kind);
    }
  });

  it('tells what is wrong with a frontmatter, the YAML parser’s own words kept inside our sentence', () => {
    const problem = (raw: string) => {
      const parsed = parseFrontmatter(raw);
      assert.equal(parsed.kind, 'invalid');
      return said(parsed.kind === 'invalid' ? parsed.problem : undefined) ?? '';
    };
    assert.equal(problem('---\ndescription: x\n'), 'the frontmatter opened by "---" on line 1 is never closed by a "---" line');
    assert.equal(problem('---\n- a\n- b\n---\n'), 'the frontmatter must be a mapping of fields ("description: …"), not a list');
    assert.equal(problem('---\njust text\n---\n'), 'the frontmatter must be a mapping of fields ("description: …"), not a single value');
    assert.match(problem('---\na: 1\na: 2\n---\n'), /^the frontmatter is not valid YAML: .*unique/);
    const file = userText('customization.fileNotLoaded', { file: '.claude/commands/x.md', problem: userText('customization.frontmatterAliases', { limit: 16 }) });
    assert.equal(said(file), '.claude/commands/x.md was not loaded: the frontmatter uses more than 16 YAML aliases.');
  });

  it('names what a field held instead of what it should', () => {
    assert.equal(said(textField({ description: { a: 1 } }, 'description').problem), '"description" must be text, got a mapping');
    assert.equal(said(textField({ description: [1] }, 'description').problem), '"description" must be text, got a list');
    assert.equal(said(listField({ tools: [null] }, 'tools').problem), '"tools" must list names (text), but holds null');
    assert.equal(said(listField({ tools: [true] }, 'tools').problem), '"tools" must list names (text), but holds a boolean');
    assert.equal(said(listField({ tools: 3 }, 'tools').problem), '"tools" must be a list of names or one line of them, got a number');
    assert.equal(said(modelField({ model: [1] }, 'model').problem), '"model" must be a model name or a list of them');
    const ignored = userText('customization.fieldIgnored', { file: 'm.md', problem: userText('customization.modeBaseInvalid', { got: '"build"' }) });
    assert.equal(said(ignored), 'm.md: "base" must be "agent" or "plan", got "build"; the field is ignored.');
  });

  it('says which definition of a name is used and why the others are not', () => {
    const picked = pickByName(
      [
        named('review', '~/.evergreen/commands/review.md', 'user', '~/.evergreen/commands'),
        named('review', '.claude/commands/review.md', 'workspace', '.claude/commands'),
        named('lint', '.evergreen/commands/a/lint.md', 'workspace', '.evergreen/commands'),
        named('lint', '.evergreen/commands/b/lint.md', 'workspace', '.evergreen/commands'),
        named('fix', '.evergreen/commands/fix.md', 'workspace', '.evergreen/commands'),
        named('fix', '.claude/commands/fix.md', 'workspace', '.claude/commands'),
        named('compact', '.claude/commands/compact.md', 'workspace', '.claude/commands'),
      ],
      'command',
      new Map([['compact', "Evergreen's built-in /compact"]]),
    );
    assert.deepEqual(picked.notices.map((notice) => said(notice.message)), [
      ".claude/commands/review.md defines the command \"review\", but your own ~/.evergreen/commands/review.md takes precedence over the workspace's; this one is not used.",
      '.evergreen/commands/b/lint.md defines the command "lint", but .evergreen/commands/a/lint.md defines it too and comes first (by name); this one is not used.',
      '.claude/commands/fix.md defines the command "fix", but .evergreen/commands/fix.md takes precedence (.evergreen/commands is read before .claude/commands); this one is not used.',
      ".claude/commands/compact.md defines the command \"compact\", which is Evergreen's built-in /compact; the file is not used. Rename it to use it.",
    ]);
    const modes = pickByName([named('plan', '.evergreen/modes/plan.md', 'workspace', '.evergreen/modes')], 'mode', new Map([['plan', "Evergreen's built-in plan mode"]]));
    assert.equal(said(modes.notices[0]!.message), ".evergreen/modes/plan.md defines the mode \"plan\", which is Evergreen's built-in plan mode; the file is not used. Rename it to use it.");
    const skills = pickByName([named('changelog', '~/.claude/skills/changelog/SKILL.md', 'user', '~/.claude/skills'), named('changelog', '.claude/skills/changelog/SKILL.md', 'workspace', '.claude/skills')], 'skill');
    assert.match(said(skills.notices[0]!.message), /^\.claude\/skills\/changelog\/SKILL\.md defines the skill "changelog", but your own/);
  });

  it('says which tool entries are left out (one or several) and that an approval entry grants nothing', () => {
    const one = parseToolList(['Read', 'Teleport'], { file: 'r.md', field: 'allowed-tools' });
    assert.match(said(one.notices[0]!.message), /^r\.md: "allowed-tools" names "Teleport", which Evergreen does not have; it is left out\. Evergreen's tools: .*read_file.*, and MCP tools as mcp__server__tool\.$/);
    const several = parseToolList(['Teleport', 'Fly', 'Bash(git push:*)'], { file: 'r.md', field: 'allowed-tools' });
    assert.match(said(several.notices[0]!.message), /names "Teleport", "Fly", which Evergreen does not have; they are left out\./);
    assert.equal(
      said(several.notices[1]!.message),
      'r.md: "allowed-tools" lists "Bash(git push:*)". In Evergreen a file can only narrow the tools offered, never approve a call: the tool is offered, and every call of it still asks as your approval settings say.',
    );
  });

  it('says why a skill name breaks the Agent Skills rules', () => {
    const why = (name: string) => said(skillNameProblem(name));
    assert.equal(why(''), 'it is empty');
    assert.equal(why('a'.repeat(65)), 'it is 65 characters long, over 64');
    assert.equal(why('Big'), 'it has capital letters (names are lowercase)');
    assert.equal(why('a_b'), 'it has characters other than letters, digits and hyphens');
    assert.equal(why('-a'), 'it starts or ends with a hyphen');
    assert.equal(why('a--b'), 'it has two hyphens in a row');
    assert.equal(skillNameProblem('good-name'), undefined);
  });

  it('says which placeholders of a command had no value, with what it takes and how to give an input', () => {
    const command = (body: string, format: DefinitionOrigin['format'], argumentHint?: string): CommandDefinition => ({
      name: 'fix',
      shortName: 'fix',
      description: 'd',
      body,
      ...(argumentHint ? { argumentHint } : {}),
      origin: { ...origin('fix.md', 'workspace', '.evergreen/commands'), format },
    });
    assert.equal(said(expandCommand(command('Fix $1.', 'claude'), '').notices[0]!), '/fix: "$1" had no value and was left as written.');
    assert.equal(said(expandCommand(command('Fix $1 $2.', 'claude', '[a] [b]'), '').notices[0]!), '/fix: "$1" and "$2" had no value and were left as written (it takes: [a] [b]).');
    assert.equal(said(expandCommand(command('Fix ${input:issue}.', 'copilot'), '').notices[0]!), '/fix: "${input:issue}" had no value and was left as written; give an input as name=value after the command.');
    assert.equal(
      said(expandCommand(command('Fix ${input:issue} ${input:pr}.', 'copilot', 'issue=N'), '').notices[0]!),
      '/fix: "${input:issue}" and "${input:pr}" had no value and were left as written (it takes: issue=N); give an input as name=value after the command.',
    );
  });

  it('names an unknown command alone when nothing is near', () => {
    const resolved = resolveSlashCommand('/zzzzqqq', []);
    assert.equal(resolved.kind, 'error');
    assert.equal(said(resolved.kind === 'error' ? resolved.message : undefined), 'Unknown command /zzzzqqq. Type /help for the list of commands (start with // to send text that begins with /).');
  });

  it('points to where memory is checked: the command in VS Code, /memory in the terminal', () => {
    const text = userText('customization.memoryNotListed', { error: 'EACCES: permission denied' });
    assert.equal(said(text), 'Memory could not be listed for this chat (EACCES: permission denied); the memory tool says what is wrong when the model uses it. Check the folder with /memory.');
    configureWords({ locale: 'en', voice: 'extension' });
    assert.equal(said(text), 'Memory could not be listed for this chat (EACCES: permission denied); the memory tool says what is wrong when the model uses it. Check the folder with "Evergreen: Open Memory" (/memory).');
  });
});
