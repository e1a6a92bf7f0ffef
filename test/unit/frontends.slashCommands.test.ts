/**
 * What both front ends make of `/` (src/frontends/slashCommands.ts), on files shaped like the ones
 * Claude Code, Copilot and Agent Skills users keep: the picker's rows (built-ins, command files,
 * skills), what a skill sends, /help, and a workspace command whose tool list names an approval it
 * cannot give itself.
 */
import assert from 'node:assert/strict';
import { commandOptions, loadCommandCatalog, planSlash, prepareCommandTurn, slashHelp, type CommandCatalog, type CommandTarget } from '../../src/frontends/slashCommands';
import { SKILL_TOOL } from '../../src/core/skills/present';
import { NodeWorkspace } from '../../src/core/workspace/workspace';
import { customizationFolders, type CustomizationFolders } from '../support/customization';

/** A session's tools as a command's turn sees them. */
function target(names: readonly string[]): CommandTarget {
  const tools = names.map((name) => ({ name }));
  return { tools: { list: () => tools, get: (name) => tools.find((tool) => tool.name === name) }, model: 'claude-sonnet-4-5' };
}

describe('front ends: slash commands and skills', function () {
  this.timeout(30_000);
  let folders: CustomizationFolders;
  beforeEach(() => {
    folders = customizationFolders();
  });
  afterEach(() => folders.cleanup());

  const load = (trusted = true): Promise<CommandCatalog> => loadCommandCatalog({ workspaceRoot: folders.workspace, workspaceTrusted: trusted, home: folders.home });

  it("offers the built-ins, the workspace's and user's command files, and the skills, each row saying where it comes from", async () => {
    const options = commandOptions('', await load());
    const byName = new Map(options.map((option) => [option.name, option]));
    assert.equal(byName.get('compact')?.source, 'built-in');
    assert.equal(byName.get('review-pr')?.source, '.claude/commands/review-pr.md');
    assert.equal(byName.get('review-pr')?.argumentHint, '[pr-number] [priority] [assignee]');
    assert.equal(byName.get('security-review')?.source, '.github/prompts/security-review.prompt.md');
    assert.equal(byName.get('standup')?.source, '~/.claude/commands/standup.md');
    const skill = byName.get('pdf-processing');
    assert.ok(skill, `no skill row in ${options.map((option) => option.name).join(', ')}`);
    assert.equal(skill.skill, true);
    assert.equal(skill.source, '.claude/skills/pdf-processing/SKILL.md');
    assert.equal(byName.get('git-hygiene')?.skill, true, "the user's own skill is offered");
    assert.equal(byName.get('review-pr')?.skill, undefined, 'a command file is no skill');
    // Built-ins first, then command files, then skills.
    const kinds = options.map((option) => (option.source === 'built-in' ? 0 : option.skill ? 2 : 1));
    assert.deepEqual(kinds, [...kinds].sort());
  });

  it('narrows to names that start with the query, then names that contain it; a namespaced command by its short name too', async () => {
    const catalog = await load();
    assert.deepEqual(commandOptions('pdf', catalog).map((option) => option.name), ['pdf-processing']);
    assert.deepEqual(commandOptions('comp', catalog).map((option) => option.name), ['compact', 'frontend:component']);
    assert.deepEqual(commandOptions('review', catalog).map((option) => option.name), ['review-pr', 'security-review']);
    assert.deepEqual(commandOptions('zzz', catalog), []);
  });

  it("offers only the user's own commands and skills in an untrusted workspace", async () => {
    const names = commandOptions('', await load(false)).filter((option) => option.source !== 'built-in').map((option) => option.name);
    assert.deepEqual(names.sort(), ['git-hygiene', 'standup']);
  });

  it('sends a skill as a request to load it with the skill tool (its body only arrives as the tool result), its arguments after it', async () => {
    const catalog = await load();
    const plan = planSlash('/pdf-processing fill in form.pdf', catalog);
    assert.equal(plan.kind, 'skill');
    if (plan.kind !== 'skill') return;
    assert.deepEqual([plan.name, plan.args], ['pdf-processing', 'fill in form.pdf']);
    const turn = await prepareCommandTurn(plan, { catalog, workspace: new NodeWorkspace(folders.workspace), target: target(['read_file', SKILL_TOOL]) });
    assert.match(turn.text, /^Use the skill "pdf-processing": load it with the skill tool/);
    assert.match(turn.text, /\n\nfill in form\.pdf$/);
    assert.doesNotMatch(turn.text, /Extract text and tables/, 'the body is not pasted into the message');
    assert.deepEqual(turn.attachments, []);
    assert.equal(turn.gate, undefined);
  });

  it('refuses a skill in a chat that has no skill tool, saying to start a new chat', async () => {
    const catalog = await load();
    const plan = planSlash('/git-hygiene', catalog);
    assert.equal(plan.kind, 'skill');
    if (plan.kind !== 'skill') return;
    await assert.rejects(prepareCommandTurn(plan, { catalog, workspace: new NodeWorkspace(folders.workspace), target: target(['read_file']) }), /no skills to load.*Start a new chat/);
  });

  it('lets a command file win a name a skill has too, and names skills among the near matches of an unknown command', async () => {
    folders.write(folders.workspace, '.evergreen/commands/pdf-processing.md', '---\ndescription: My own PDF steps\n---\nDo the PDF steps.');
    const catalog = await load();
    const plan = planSlash('/pdf-processing', catalog);
    assert.equal(plan.kind, 'command');
    assert.deepEqual(commandOptions('pdf', catalog).map((option) => [option.name, option.skill]), [['pdf-processing', undefined]]);
    const unknown = planSlash('/git-hygeine', catalog);
    assert.equal(unknown.kind, 'error');
    if (unknown.kind === 'error') assert.match(unknown.message, /Did you mean \/git-hygiene/);
  });

  it('/help lists the skills apart from the command files', async () => {
    const help = slashHelp(undefined, await load(), 'extension');
    const skillsAt = help.indexOf('Skills (');
    assert.ok(skillsAt > help.indexOf('From your command files:'), help);
    assert.match(help.slice(skillsAt), /\/pdf-processing: Extract text/);
    assert.doesNotMatch(help.slice(0, skillsAt), /\/pdf-processing/);
  });

  it('a workspace command that lists Bash(git push:*) narrows the turn to the shell and grants it nothing', async () => {
    const catalog = await load();
    const plan = planSlash('/commit', catalog);
    assert.equal(plan.kind, 'command');
    if (plan.kind !== 'command') return;
    const turn = await prepareCommandTurn(plan, { catalog, workspace: new NodeWorkspace(folders.workspace), target: target(['read_file', 'write_file', 'run_shell']) });
    assert.ok(turn.gate, 'the tool list is enforced per call');
    assert.match(turn.gate('write_file') ?? '', /commit/, 'a tool the command does not list is refused');
    // The gate only refuses: run_shell passes it and still meets the normal approval (the turn carries no approval at all).
    assert.equal(turn.gate('run_shell'), undefined);
    assert.deepEqual(Object.keys(turn).sort(), ['attachments', 'gate', 'notices', 'text']);
  });
});
