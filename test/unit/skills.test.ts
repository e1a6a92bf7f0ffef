/**
 * Skills (src/core/skills/, src/core/tools/skill.ts): loaded from every location, listed in the
 * system prompt by name and description only, their body and files only through the `skill` tool
 * (and the files then through read_file), and every kind of bad skill a notice while the rest load.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadSkills, SKILL_LIMITS, skillNameProblem, skillReadRoots, type SkillDefinition } from '../../src/core/skills/skills';
import { SKILLS_MARK, skillsListing } from '../../src/core/skills/present';
import type { DefinitionNotice } from '../../src/core/definitions/types';
import { createToolRegistry, type ToolRegistry } from '../../src/core/tools/registry';
import { createSkillTool } from '../../src/core/tools/skill';
import type { ToolContext, ToolDefinition } from '../../src/core/tools/types';
import { NodeWorkspace } from '../../src/core/workspace/workspace';
import { customizationFolders, type CustomizationFolders } from '../support/customization';
import { said } from '../support/said';

describe('skills', function () {
  this.timeout(30_000);
  let folders: CustomizationFolders;
  beforeEach(() => {
    folders = customizationFolders();
  });
  afterEach(() => folders.cleanup());

  const load = (trusted = true) => loadSkills({ workspaceRoot: folders.workspace, workspaceTrusted: trusted, home: folders.home });
  const about = (notices: readonly DefinitionNotice[], file: string) => notices.filter((item) => item.file === file);
  function session(skills: readonly SkillDefinition[]): { registry: ToolRegistry; ctx: ToolContext } {
    const registry = createToolRegistry({ trusted: true, externalTools: [createSkillTool(skills) as ToolDefinition<unknown>] });
    const workspace = new NodeWorkspace(folders.workspace, skillReadRoots(skills));
    return { registry, ctx: { workspace, signal: new AbortController().signal, onProgress: () => undefined, approve: async () => ({ approved: false }) } };
  }

  it('loads the skills of every location, the user\'s own first', async () => {
    const { skills, notices } = await load();
    assert.deepEqual(notices, []);
    assert.deepEqual(skills.map((skill) => [skill.name, skill.origin.file, skill.folderShown]), [
      ['git-hygiene', '~/.evergreen/skills/git-hygiene/SKILL.md', path.join(folders.home, '.evergreen/skills/git-hygiene')],
      ['pdf-processing', '.claude/skills/pdf-processing/SKILL.md', '.claude/skills/pdf-processing'],
      ['changelog', '.github/skills/changelog/SKILL.md', '.github/skills/changelog'],
    ]);
  });

  it('lists names and descriptions only, sorted, the same whatever the order they came in', async () => {
    const { skills } = await load();
    const listing = skillsListing(skills)!;
    assert.ok(listing.startsWith(SKILLS_MARK));
    assert.match(listing, /\n- changelog: Keep CHANGELOG\.md in the Keep a Changelog format\. Use when .*\n- git-hygiene: .*\n- pdf-processing: Extract text and tables from PDF files/);
    assert.doesNotMatch(listing, /scripts\/extract\.py|git add -p|Unreleased/, 'no body reaches the system prompt');
    assert.equal(skillsListing([...skills].reverse()), listing);
    assert.equal(skillsListing([]), undefined);
  });

  it("returns a skill's body and files through the tool, and read_file reads those files (the user's own too)", async () => {
    const { skills } = await load();
    const { registry, ctx } = session(skills);
    const result = await registry.executeToolCall('skill', { name: 'pdf-processing' }, ctx);
    assert.equal(result.isError, undefined, result.content);
    assert.match(result.content, /^Skill "pdf-processing" \(\.claude\/skills\/pdf-processing\/SKILL\.md\):\n\n# PDF processing\n/);
    assert.doesNotMatch(result.content, /license: Apache/, 'the frontmatter is not repeated');
    assert.match(result.content, /\n- \.claude\/skills\/pdf-processing\/reference\.md \(\d+ bytes\)\n- \.claude\/skills\/pdf-processing\/scripts\/extract\.py \(\d+ bytes\)$/);
    const reference = await registry.executeToolCall('read_file', { path: '.claude/skills/pdf-processing/reference.md' }, ctx);
    assert.match(reference.content, /pdfplumber/);

    folders.write(folders.home, '.evergreen/skills/git-hygiene/checklist.md', '- one concern per commit\n');
    const own = await registry.executeToolCall('skill', { name: 'git-hygiene' }, ctx);
    const listed = path.join(folders.home, '.evergreen/skills/git-hygiene/checklist.md');
    assert.ok(own.content.includes(`- ${listed} (`), own.content);
    const read = await registry.executeToolCall('read_file', { path: listed }, ctx);
    assert.equal(read.isError, undefined, read.content);
    assert.match(read.content, /one concern per commit/);
  });

  it('reads the body fresh when called, and answers an unknown name with the near ones', async () => {
    const { skills } = await load();
    const { registry, ctx } = session(skills);
    folders.write(folders.workspace, '.github/skills/changelog/SKILL.md', '---\nname: changelog\ndescription: Edited.\n---\nEDITED BODY');
    assert.match((await registry.executeToolCall('skill', { name: 'changelog' }, ctx)).content, /EDITED BODY\n\nThe skill has no other files\.$/);
    const unknown = await registry.executeToolCall('skill', { name: 'pdf-procesing' }, ctx);
    assert.equal(unknown.isError, true);
    assert.match(unknown.content, /There is no skill named "pdf-procesing"\. Did you mean "pdf-processing"\?/);
  });

  it('turns every bad skill into a notice and loads the rest', async () => {
    const { workspace, outside, write } = folders;
    const skill = (folder: string, text: string) => write(workspace, `.evergreen/skills/${folder}/SKILL.md`, text);
    fs.mkdirSync(path.join(workspace, '.evergreen/skills/no-skill-file'), { recursive: true });
    skill('no-frontmatter', '# Just a heading\nDo things.');
    skill('bad-yaml', '---\nname: bad-yaml\ndescription: [unclosed\n---\nBody');
    skill('no-description', '---\nname: no-description\n---\nBody');
    skill('shouting', '---\nname: Shouting\ndescription: Upper-case name.\n---\nBody');
    skill('Bad_Folder', '---\nname: good-name\ndescription: A bad folder name, a good name.\n---\nBody');
    skill('Both_Bad', '---\nname: Both Bad\ndescription: Nothing valid.\n---\nBody');
    skill('mismatch', '---\nname: other-name\ndescription: Name and folder differ.\n---\nBody');
    skill('grants', '---\nname: grants\ndescription: Tries to pre-approve.\nallowed-tools: Bash(rm:*) Read\n---\nBody');
    skill('binary', '---\nname: binary\ndescription: x\n---\n\u0000');
    write(outside, 'evil/SKILL.md', '---\nname: evil\ndescription: From outside.\n---\nEVIL BODY');
    fs.symlinkSync(path.join(outside, 'evil'), path.join(workspace, '.evergreen/skills/evil'));
    const { skills, notices } = await load();
    const names = skills.map((item) => item.name);
    assert.deepEqual(names, ['git-hygiene', 'good-name', 'grants', 'mismatch', 'shouting', 'pdf-processing', 'changelog']);
    const first = (folder: string, file = `.evergreen/skills/${folder}/SKILL.md`) => about(notices, file)[0]!;
    assert.match(said(about(notices, '.evergreen/skills/no-skill-file')[0]!.message), /has no SKILL\.md/);
    assert.equal(first('no-frontmatter').kind, 'invalid-frontmatter');
    assert.match(said(first('no-frontmatter').message), /no frontmatter/);
    assert.equal(first('bad-yaml').kind, 'invalid-frontmatter');
    assert.match(said(first('no-description').message), /needs a "description"/);
    assert.match(said(first('shouting').message), /"Shouting" breaks the Agent Skills rules \(it has capital letters.*The folder's name "shouting" is used/);
    assert.match(said(first('Bad_Folder').message), /should match its folder's name "Bad_Folder".*listed as "good-name"/);
    assert.equal(said(about(notices, '.evergreen/skills/Both_Bad/SKILL.md').at(-1)!.message).includes('is not loaded'), true);
    assert.match(said(first('mismatch').message), /"other-name" should match its folder's name "mismatch".*listed as "mismatch"/);
    assert.equal(first('grants').kind, 'grant-ignored');
    assert.match(said(first('binary').message), /binary/);
    assert.match(said(about(notices, '.evergreen/skills/evil')[0]!.message), /outside the workspace root/);
    assert.ok(!JSON.stringify(skills.map((item) => item.description)).includes('From outside'));
  });

  it('keeps the spec\'s name rules', () => {
    for (const good of ['pdf', 'data-analysis', 'a1', 'résumé', 'x'.repeat(64)]) assert.equal(skillNameProblem(good), undefined, good);
    for (const bad of ['', 'PDF', '-pdf', 'pdf-', 'pdf--tools', 'pdf_tools', 'pdf tools', 'x'.repeat(65)]) assert.ok(skillNameProblem(bad), bad);
  });

  it("takes the user's skill over the workspace's, and reports the one hidden", async () => {
    folders.write(folders.workspace, '.claude/skills/git-hygiene/SKILL.md', '---\nname: git-hygiene\ndescription: The repository\'s version.\n---\nREPO BODY');
    const { skills, notices } = await load();
    assert.equal(skills.find((skill) => skill.name === 'git-hygiene')!.origin.scope, 'user');
    const shadowed = notices.find((item) => item.kind === 'shadowed')!;
    assert.equal(shadowed.file, '.claude/skills/git-hygiene/SKILL.md');
    assert.equal(shadowed.winner, '~/.evergreen/skills/git-hygiene/SKILL.md');
  });

  it('cuts a huge body and says where the rest is; cuts a long description in the list', async () => {
    const lines = Array.from({ length: 4000 }, (_, index) => `Line ${index + 1}: ${'detail '.repeat(3)}`);
    folders.write(folders.workspace, '.evergreen/skills/huge/SKILL.md', `---\nname: huge\ndescription: ${'Long description. '.repeat(80)}\n---\n${lines.join('\n')}\n`);
    const { skills, notices } = await load();
    assert.ok(about(notices, '.evergreen/skills/huge/SKILL.md').some((item) => item.kind === 'cut' && /body|long/.test(said(item.message))));
    assert.ok(about(notices, '.evergreen/skills/huge/SKILL.md').some((item) => item.kind === 'cut' && /description is [\d,]+ characters/.test(said(item.message))));
    const { registry, ctx } = session(skills);
    const result = await registry.executeToolCall('skill', { name: 'huge' }, ctx);
    assert.ok(result.content.length < SKILL_LIMITS.bodyChars + 1_000, `${result.content.length}`);
    const pointer = /read the rest with read_file \(path "\.evergreen\/skills\/huge\/SKILL\.md", offset (\d+)\)/.exec(result.content);
    assert.ok(pointer, result.content.slice(-400));
    const lastShown = /Line (\d+):[^\n]*\n\n\[SKILL\.md goes on/.exec(result.content)!;
    const rest = await registry.executeToolCall('read_file', { path: '.evergreen/skills/huge/SKILL.md', offset: Number(pointer[1]), limit: 1 }, ctx);
    assert.match(rest.content, new RegExp(`Line ${Number(lastShown[1]) + 1}:`), 'the offset is the first line not shown');
    const listing = skillsListing(skills)!;
    const line = listing.split('\n').find((candidate) => candidate.startsWith('- huge: '))!;
    assert.equal(line.length, '- huge: '.length + SKILL_LIMITS.descriptionChars);
  });

  it('keeps the list within its cap, naming the skills past it', async () => {
    const { write, workspace } = folders;
    for (let index = 0; index < 60; index++) write(workspace, `.evergreen/skills/skill-${String(index).padStart(2, '0')}/SKILL.md`, `---\nname: skill-${String(index).padStart(2, '0')}\ndescription: ${'Does a particular thing well. '.repeat(8)}\n---\nBody`);
    const { skills } = await load();
    const listing = skillsListing(skills)!;
    assert.ok(listing.length <= SKILL_LIMITS.listingChars, `${listing.length}`);
    assert.match(listing, /\n- More skills \(call skill to read what one is for\): skill-\d\d, /);
    const small = skillsListing(skills, 1_200)!;
    assert.ok(small.length <= 1_200);
    assert.match(small, /, and \d+ more$/);
  });

  it("loads only the user's own skills in an untrusted workspace", async () => {
    const { skills, notices } = await load(false);
    assert.deepEqual(skills.map((skill) => skill.name), ['git-hygiene']);
    assert.match(said(notices[0]!.message), /not trusted, so its skills \(\.claude\/skills, \.github\/skills\)/);
  });
});
