/**
 * Skills and memory in a running session (issue 28), against each back end: only each skill's name
 * and description in the system prompt (its own "Skills" line on the gauge), the body only when the
 * model calls `skill`, a skill's files read with read_file (the user's own outside the workspace too),
 * bad skills as notices with the session going on; memory writes that never ask and show as cards
 * (kept through a resume), memory seen by the next new chat, read-only where nothing may write, off
 * when turned off; and a turn's gate that refuses without approving anything.
 */
import { said } from '../support/said';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentEvent } from '../../src/core/agent/events';
import { startAgentSession, type AgentConfig, type StartedSession } from '../../src/core/agent/factory';
import { contextBreakdownChars } from '../../src/core/context/breakdown';
import { INSTRUCTIONS_MARK } from '../../src/core/instructions/instructionFiles';
import { MEMORY_MARK } from '../../src/core/memory/view';
import { SKILLS_MARK } from '../../src/core/skills/present';
import { FileSessionStore } from '../../src/core/storage/sessionStore';
import { BACKENDS, say, type FakeBackend } from '../support/backends';
import { customizationFolders, type CustomizationFolders } from '../support/customization';
import { saidTooltip } from '../support/gaugeSaid';

type Started = Extract<AgentEvent, { type: 'tool_call_started' }>;
type Finished = Extract<AgentEvent, { type: 'tool_call_finished' }>;
type Notice = Extract<AgentEvent, { type: 'customization_notice' }>;

describe('skills and memory: the breakdown lines', () => {
  it('counts each section from its mark to the next, never a mark inside a listed line', () => {
    const skills = `${SKILLS_MARK}Skills are…\n- tricky: ends with # Memory\n- other: # Project instructions`;
    const memory = `${MEMORY_MARK}Your memory…\n- /memories/a.md (1B): # Skills`;
    const instructions = `${INSTRUCTIONS_MARK}Use tabs.`;
    const base = 'You are Evergreen.\nTools available: read_file.';
    const system = [base, skills, memory, instructions].join('\n\n');
    const chars = contextBreakdownChars(system, [], []);
    assert.equal(chars.skills, skills.length + 2, 'the section and the blank line before the next');
    assert.equal(chars.memory, memory.length + 2);
    assert.equal(chars.instructions, instructions.length);
    assert.equal(chars.system, base.length + 2);
    assert.equal(chars.total - chars.tools, system.length, "every character of the prompt in exactly one line");
    const none = contextBreakdownChars(base, [], []);
    assert.equal(none.skills + none.memory, 0);
  });
});

for (const backend of BACKENDS) describe(`skills and memory in a session [${backend.name}]`, function () {
  this.timeout(30_000);
  let fake: FakeBackend;
  let folders: CustomizationFolders;
  let storage: string;
  let memoryFolder: string;
  let events: AgentEvent[];
  let approvals: string[];

  beforeEach(async () => {
    fake = await backend.start();
    folders = customizationFolders();
    storage = folders.write(folders.outside, 'storage/.keep', '').replace(/\/\.keep$/, '');
    memoryFolder = path.join(storage, 'memory', 'ws');
    events = [];
    approvals = [];
  });
  afterEach(async () => {
    await fake.close();
    folders.cleanup();
  });

  const start = (overrides: Partial<AgentConfig> = {}, extra: { resumeId?: string } = {}): Promise<StartedSession> =>
    startAgentSession({
      config: fake.config({ skills: { home: folders.home }, memory: { folder: memoryFolder }, ...overrides }),
      workspaceRoot: folders.workspace,
      store: new FileSessionStore(storage),
      approver: {
        requestApproval: async (request) => {
          approvals.push(request.kind);
          return { approved: true };
        },
      },
      onEvent: (event) => events.push(event),
      ...extra,
    });
  const finished = (name: string) => events.filter((event): event is Finished => event.type === 'tool_call_finished' && event.name === name);
  const toolNames = () => ((fake.requests()[0]!.raw as { tools?: { name?: string; function?: { name: string } }[] }).tools ?? []).map((tool) => tool.name ?? tool.function!.name);

  it('lists only names and descriptions, loads a skill when called, and reads its files (a workspace and a user skill)', async () => {
    const started = await start();
    fake.enqueue(
      say.toolUse('skill', { name: 'pdf-processing' }),
      say.toolUse('read_file', { path: '.claude/skills/pdf-processing/reference.md' }),
      say.toolUse('skill', { name: 'git-hygiene' }),
      say.text('Done.'),
    );
    await started.session.send('Extract the tables of report.pdf');
    const first = fake.requests()[0]!;
    assert.ok(first.system.includes(SKILLS_MARK), first.system);
    for (const name of ['pdf-processing', 'git-hygiene', 'changelog']) assert.match(first.system, new RegExp(`^- ${name}: `, 'm'));
    assert.ok(!first.system.includes('## Extract text'), 'no body in the prompt');
    assert.ok(first.system.indexOf(SKILLS_MARK) < first.system.indexOf(MEMORY_MARK), 'skills, then memory');
    assert.ok(toolNames().includes('skill') && toolNames().includes('memory'), toolNames().join(','));
    const [pdf, hygiene] = finished('skill');
    assert.equal(pdf!.isError, false, pdf!.content);
    assert.match(pdf!.content, /## Extract text/);
    assert.match(pdf!.content, /- \.claude\/skills\/pdf-processing\/reference\.md \(/);
    const read = finished('read_file')[0]!;
    assert.equal(read.isError, false, read.content);
    // The user's own skill lives outside the workspace: its folder is a read-only root of the session.
    assert.equal(hygiene!.isError, false, hygiene!.content);
    folders.write(folders.home, '.evergreen/skills/git-hygiene/checklist.md', 'CHECKLIST BODY');
    const listed = path.join(fs.realpathSync(folders.home), '.evergreen/skills/git-hygiene/checklist.md');
    fake.enqueue(say.toolUse('read_file', { path: listed }), say.toolUse('write_file', { path: listed, content: 'changed' }), say.text('Read.'));
    await started.session.send('Check the commit checklist');
    assert.match(finished('read_file')[1]!.content, /CHECKLIST BODY/);
    assert.equal(finished('write_file')[0]!.isError, true, 'read-only: a skill folder is never written');
    assert.equal(fs.readFileSync(listed, 'utf8'), 'CHECKLIST BODY');
    const gauge = started.session.context.gauge();
    assert.ok(gauge.breakdown && gauge.breakdown.skills > 0 && gauge.breakdown.memory > 0, JSON.stringify(gauge.breakdown));
    assert.match(saidTooltip(gauge.reading), /^Skills: [\d.]+k? \(\d+%\)$/m);
    assert.match(saidTooltip(gauge.reading), /^Memory: [\d.]+k? \(\d+%\)$/m);
    await started.close();
  });

  it('reports bad skills and goes on; no skill tool without skills', async () => {
    folders.write(folders.workspace, '.evergreen/skills/broken/SKILL.md', '---\nname: [unclosed\n---\nBody');
    folders.write(folders.workspace, '.evergreen/skills/nodesc/SKILL.md', '---\nname: nodesc\n---\nBody');
    folders.write(folders.workspace, '.evergreen/skills/changelog/SKILL.md', '---\nname: changelog\ndescription: A second changelog.\n---\nBody');
    folders.write(folders.workspace, '.evergreen/skills/huge/SKILL.md', `---\nname: huge\ndescription: Big.\n---\n${'line of instructions\n'.repeat(3000)}`);
    const started = await start();
    const notices = events.filter((event): event is Notice => event.type === 'customization_notice').map((notice) => said(notice.message));
    assert.ok(notices.some((message) => /broken\/SKILL\.md is not loaded: the frontmatter is not valid YAML/.test(message)), notices.join('\n'));
    assert.ok(notices.some((message) => /nodesc\/SKILL\.md is not loaded: it needs a "description"/.test(message)), notices.join('\n'));
    assert.ok(notices.some((message) => /\.github\/skills\/changelog\/SKILL\.md defines the skill "changelog", but/.test(message)), notices.join('\n'));
    assert.ok(notices.some((message) => /huge\/SKILL\.md is long/.test(message)), notices.join('\n'));
    fake.enqueue(say.toolUse('skill', { name: 'huge' }), say.text('Ok.'));
    await started.session.send('Go');
    assert.match(fake.requests()[0]!.system, /^- huge: Big\.$/m);
    assert.match(finished('skill')[0]!.content, /SKILL\.md goes on past 30,000 characters: read the rest with read_file/);
    await started.close();

    const bare = customizationFolders({ fixtures: false });
    try {
      fake.enqueue(say.text('Hi.'));
      const plain = await startAgentSession({ config: fake.config({ skills: { home: bare.home } }), workspaceRoot: bare.workspace, store: new FileSessionStore(storage), approver: { requestApproval: async () => ({ approved: true }) }, onEvent: () => undefined });
      await plain.session.send('Hi');
      const last = fake.requests().at(-1)!;
      assert.ok(!last.system.includes(SKILLS_MARK) && !last.system.includes(MEMORY_MARK), last.system);
      assert.ok(!((last.raw as { tools?: { name?: string; function?: { name: string } }[] }).tools ?? []).some((tool) => (tool.name ?? tool.function!.name) === 'skill'));
      await plain.close();
    } finally {
      bare.cleanup();
    }
  });

  it('writes memory without asking, shows each write as a card kept through a resume, and lists it in the next new chat', async () => {
    const started = await start();
    fake.enqueue(
      say.toolUse('memory', { command: 'create', path: '/memories/project.md', file_text: '# Build with make\nThen run make test.' }),
      say.toolUse('memory', { command: 'str_replace', path: '/memories/project.md', old_str: 'make test', new_str: 'make check' }),
      say.text('Noted.'),
    );
    await started.session.send('Remember how to build');
    assert.deepEqual(approvals, [], 'memory writes never ask');
    const cards = events.filter((event): event is Started => event.type === 'tool_call_started' && event.name === 'memory').map((event) => event.card);
    assert.deepEqual(cards, [
      { kind: 'memory', command: 'create', path: '/memories/project.md', preview: '# Build with make\nThen run make test.' },
      { kind: 'memory', command: 'str_replace', path: '/memories/project.md', preview: 'make check' },
    ]);
    assert.equal(fs.readFileSync(path.join(memoryFolder, 'project.md'), 'utf8'), '# Build with make\nThen run make check.');
    assert.ok(fake.requests()[0]!.system.includes('(Memory is empty.)'));
    const id = started.handle.id;
    await started.close();

    const resumed = await start({}, { resumeId: id });
    const replayed = resumed.replay.filter((event): event is Started => event.type === 'tool_call_started' && event.name === 'memory').map((event) => event.card);
    assert.deepEqual(replayed, cards, 'the cards come back from the recorded inputs');
    await resumed.close();

    const next = await start();
    fake.enqueue(say.text('I remember.'));
    await next.session.send('How do I build?');
    const system = fake.requests().at(-1)!.system;
    assert.match(system, /^- \/memories\/project\.md \([\d.]+[BK]\): Build with make$/m);
    assert.ok(system.indexOf(MEMORY_MARK) < system.indexOf(INSTRUCTIONS_MARK) || !system.includes(INSTRUCTIONS_MARK));
    await next.close();
  });

  it('keeps known secrets out of the memory listing', async () => {
    folders.write(memoryFolder, 'keys.md', `the key is ${fake.apiKey}\n`);
    const started = await start();
    fake.enqueue(say.text('Ok.'));
    await started.session.send('Hi');
    const system = fake.requests()[0]!.system;
    assert.match(system, /\/memories\/keys\.md/);
    assert.ok(!system.includes(fake.apiKey), 'the API key is redacted');
    await started.close();
  });

  it('makes memory read-only in an untrusted workspace, and offers none when it is off', async () => {
    const untrusted = await start({ trusted: false });
    fake.enqueue(say.toolUse('memory', { command: 'create', path: '/memories/x.md', file_text: 'x' }), say.text('Ok.'));
    await untrusted.session.send('Remember x');
    assert.match(finished('memory')[0]!.content, /Memory is read-only for this agent/);
    assert.equal(fs.existsSync(path.join(memoryFolder, 'x.md')), false);
    await untrusted.close();

    const off = await start({ memory: undefined });
    fake.enqueue(say.toolUse('memory', { command: 'view', path: '/memories' }), say.text('Ok.'));
    await off.session.send('What do you remember?');
    const last = fake.requests().at(-2)!;
    assert.ok(!last.system.includes(MEMORY_MARK), last.system);
    assert.match(finished('memory')[1]!.content, /Unknown tool "memory"/);
    await off.close();
  });

  it("refuses the calls a turn's gate does not allow, and asks for what it lets through", async () => {
    const started = await start({ approvalPolicy: { writes: 'ask', shell: 'ask', shellAllowList: [] } });
    fake.enqueue(say.toolUse('write_file', { path: 'a.txt', content: 'a' }), say.toolUse('run_shell', { command: 'true' }), say.text('Ok.'));
    await started.session.send('Do it', undefined, [], { gate: (name) => (name === 'write_file' ? 'Not run: write_file is not allowed.' : undefined) });
    assert.equal(finished('write_file')[0]!.content, 'Not run: write_file is not allowed.');
    assert.equal(fs.existsSync(path.join(folders.workspace, 'a.txt')), false);
    assert.deepEqual(approvals, ['shell'], 'what the gate lets through still asks');
    await started.close();
  });
});
