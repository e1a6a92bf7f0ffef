/**
 * Slash commands, skills and memory through the headless CLI (issue 28), against each back end:
 * `-p "/name args"` expanded as the chat expands it, from every folder commands come from, with
 * their arguments and `@` references attached; an unknown command stops the run before anything is
 * sent and names the near ones; a workspace command that lists `Bash(git push:*)` gets run_shell
 * offered and every call still asked (and refused without a terminal); `/init` writes AGENTS.md only
 * through the normal write approval; built-ins that print; memory seen by the next run; --no-memory.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EXIT } from '../../src/cli/run';
import { INIT_PROMPT } from '../../src/core/commands/init';
import { memoryFolderFor } from '../../src/core/memory/location';
import { MEMORY_MARK } from '../../src/core/memory/view';
import type { MessageParam } from '../../src/core/model/messages';
import { runCliCaptured } from '../support/cliCapture';
import { BACKENDS, say, textOfMessage, type FakeBackend } from '../support/backends';
import { customizationFolders, type CustomizationFolders } from '../support/customization';
import { MODE_SWITCH_MARK } from '../../src/core/modes/modes';

/** Everything the first user message carried, attachments included, as text. */
function firstUserText(messages: readonly MessageParam[]): string {
  const first = messages.find((message) => message.role === 'user');
  if (!first) return '';
  if (typeof first.content === 'string') return first.content;
  return first.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');
}

for (const backend of BACKENDS) describe(`headless CLI: slash commands, skills and memory [${backend.name}]`, function () {
  this.timeout(60_000);
  let fake: FakeBackend;
  let folders: CustomizationFolders;
  let storage: string;

  beforeEach(async () => {
    fake = await backend.start();
    folders = customizationFolders();
    storage = path.join(folders.outside, 'storage');
    fs.mkdirSync(storage);
  });
  afterEach(async () => {
    await fake.close();
    folders.cleanup();
  });

  const cli = (args: string[]) =>
    runCliCaptured(['--workspace', folders.workspace, '--storage-dir', storage, '--no-sandbox', ...fake.cliArgs(), '--model', fake.model, ...args], { ...fake.cliEnv(), PATH: process.env.PATH, HOME: folders.home }, folders.workspace);
  const sent = () => firstUserText(fake.requests()[0]!.messages);

  it("expands a command from each folder with its arguments and attaches what it references", async () => {
    folders.write(folders.home, '.evergreen/commands/explain.md', '---\ndescription: Explain a symbol\n---\nExplain what $1 does, starting from @src/components/Button.jsx.');
    const cases: { prompt: string; expect: RegExp[] }[] = [
      // .claude/commands, in a namespace, by its short name; its @file attached.
      { prompt: '/component PriceTag', expect: [/named PriceTag in src\/components/, /export function Button\(props/] },
      // .github/prompts: ${input:…} from name=value; its Markdown link attached, relative to the prompt file.
      { prompt: '/create-react-form formName="Signup Form"', expect: [/component named Signup Form\./, /Use `<Form>` with `<Field>` children/] },
      // .evergreen/commands: $1 and ${input:since}.
      { prompt: '/release-notes 2.4.0 since=v2.3.0', expect: [/for version 2\.4\.0, covering the changes since v2\.3\.0\./] },
      // ~/.claude/commands: arguments appended when the prompt has no placeholder.
      { prompt: '/standup focus on the API', expect: [/Summarize my commits since yesterday/, /ARGUMENTS: focus on the API/] },
      // ~/.evergreen/commands.
      { prompt: '/explain onClick', expect: [/Explain what onClick does/, /export function Button\(props/] },
    ];
    for (const { prompt, expect } of cases) {
      const before = fake.requests().length;
      fake.enqueue(say.text('Done.'));
      const run = await cli(['-p', prompt]);
      assert.equal(run.code, EXIT.ok, `${prompt}: ${run.stderr}`);
      const text = firstUserText(fake.requests()[before]!.messages);
      for (const pattern of expect) assert.match(text, pattern, prompt);
      assert.doesNotMatch(text, new RegExp(`^${prompt.split(' ')[0]}`), 'the command is expanded, not sent as typed');
    }
  });

  it('says what a command asks for that is not applied, and its tool list narrows the turn', async () => {
    fake.enqueue(say.toolUse('write_file', { path: 'notes.md', content: 'x' }), say.text('Drafted.'));
    const run = await cli(['-p', '/release-notes 2.4.0 since=v2.3.0']);
    assert.equal(run.code, EXIT.ok, run.stderr);
    assert.match(run.stderr, /note: \/release-notes asks for the "plan" mode; modes are not available yet/);
    assert.match(sent(), /\[\/release-notes allows only these tools in this turn: [^\]]*read_file[^\]]*\]/);
    const result = JSON.stringify(fake.requests()[1]!.messages.at(-1));
    assert.match(result, /Not run: \/release-notes allows only some tools for this turn/);
    assert.equal(fs.existsSync(path.join(folders.workspace, 'notes.md')), false);
  });

  it('invokes a skill by its name: the message asks for it, and its body arrives only as the skill tool\'s result', async () => {
    fake.enqueue(say.toolUse('skill', { name: 'pdf-processing' }), say.text('Filled.'));
    const run = await cli(['-p', '/pdf-processing fill in form.pdf']);
    assert.equal(run.code, EXIT.ok, run.stderr);
    assert.match(sent(), /^Use the skill "pdf-processing": load it with the skill tool, then follow its instructions\.\n\nfill in form\.pdf$/);
    const result = JSON.stringify(fake.requests()[1]!.messages.at(-1));
    assert.match(result, /Skill \\"pdf-processing\\" \(\.claude\/skills\/pdf-processing\/SKILL\.md\)/);
  });

  it('stops at an unknown command, naming the near ones, and sends nothing', async () => {
    const run = await cli(['-p', '/reveiw-pr 12']);
    assert.equal(run.code, EXIT.usage);
    assert.match(run.stderr, /evergreen: Unknown command \/reveiw-pr\. Did you mean \/review-pr.*Nothing was sent\./);
    assert.equal(fake.requests().length, 0);
  });

  it('a workspace command that lists Bash(git push:*) grants nothing: every call still asks, and without a terminal it is declined', async () => {
    fake.enqueue(say.toolUse('run_shell', { command: 'touch pushed.txt' }), say.toolUse('write_file', { path: 'x.txt', content: 'x' }), say.text('Could not push.'));
    const run = await cli(['-p', '/commit']);
    assert.equal(run.code, EXIT.ok, run.stderr);
    assert.match(run.stderr, /note: \.claude\/commands\/commit\.md: "allowed-tools" lists "Bash\(git add:\*\)".*never approve a call/);
    assert.match(run.stderr, /evergreen: declined running `touch pushed\.txt`/);
    assert.equal(fs.existsSync(path.join(folders.workspace, 'pushed.txt')), false, 'the command never ran');
    const answers = JSON.stringify(fake.requests().slice(1).map((request) => request.messages.at(-1)));
    assert.match(answers, /Not approved: the CLI runs without a terminal and without --yes/);
    assert.match(answers, /Not run: \/commit allows only some tools for this turn/, 'write_file is not in its list');
    assert.equal(fs.existsSync(path.join(folders.workspace, 'x.txt')), false);
  });

  it('/init proposes AGENTS.md through the normal write approval', async () => {
    const write = say.toolUse('write_file', { path: 'AGENTS.md', content: '# Agents\n\nRun make test.\n' });
    fake.enqueue(write, say.text('Proposed.'));
    const declined = await cli(['-p', '/init']);
    assert.equal(declined.code, EXIT.ok, declined.stderr);
    assert.equal(sent(), INIT_PROMPT);
    assert.match(declined.stderr, /evergreen: declined creating AGENTS\.md/);
    assert.equal(fs.existsSync(path.join(folders.workspace, 'AGENTS.md')), false);
    fake.enqueue(write, say.text('Written.'));
    const approved = await cli(['--yes', '-p', '/init']);
    assert.equal(approved.code, EXIT.ok, approved.stderr);
    assert.equal(fs.readFileSync(path.join(folders.workspace, 'AGENTS.md'), 'utf8'), '# Agents\n\nRun make test.\n');
  });

  it('prints /help, /memory, /model, /thinking and /context without a request; /new says what to do instead', async () => {
    const help = await cli(['-p', '/help']);
    assert.equal(help.code, EXIT.ok, help.stderr);
    assert.match(help.stdout, /^\/compact \[focus\]: /m);
    assert.match(help.stdout, /^\/review-pr \[pr-number\] \[priority\] \[assignee\]: Review a pull request and leave a verdict \(\.claude\/commands\/review-pr\.md\)$/m);
    assert.match(help.stdout, /Problems with command files:/);
    const one = await cli(['-p', '/help commit']);
    assert.match(one.stdout, /Tools for its turn: Bash\(git add:\*\)/);
    const shown = await cli(['-p', '/memory', '-p', '/model', '-p', '/thinking']);
    assert.equal(shown.code, EXIT.ok, shown.stderr);
    assert.ok(shown.stdout.includes(`Memory folder: ${memoryFolderFor(storage, folders.workspace)}`), shown.stdout);
    assert.match(shown.stdout, /\(Memory is empty\.\)/);
    assert.match(shown.stdout, new RegExp(`^Model: ${fake.model}$`, 'm'));
    assert.match(shown.stdout, /^Thinking: off$/m);
    // The context breakdown names the terminal's ways to refresh it and to compact, not VS Code's.
    const context = await cli(['-p', '/context']);
    assert.equal(context.code, EXIT.ok, context.stderr);
    assert.match(context.stdout, /^# Evergreen — context breakdown$/m);
    assert.match(context.stdout, /run `\/context` again to refresh it\./);
    assert.match(context.stdout, /^\| Clear old tool results \| nothing to do \| (yes|no) \| when the prompt cache is cold, or above \d+% of the usable window; keeps the \d+ newest \|$/m);
    assert.match(context.stdout, /^\| Summarize the conversation: not possible now, nothing to summarize yet \| — \| no \| past the auto-compact threshold, or `\/compact \[focus\]` \|$/m);
    for (const vscodeOnly of [/Show Context Breakdown/, /Compact Conversation/]) assert.doesNotMatch(context.stdout, vscodeOnly);
    const fresh = await cli(['-p', '/new']);
    assert.equal(fresh.code, EXIT.usage);
    assert.match(fresh.stderr, /run without --resume for a new session/);
    assert.equal(fake.requests().length, 0);
  });

  it('/mode names the modes, switches the next prompt to one, and stops on an unknown name', async () => {
    const shown = await cli(['-p', '/mode']);
    assert.equal(shown.code, EXIT.ok, shown.stderr);
    assert.match(shown.stdout, /^Mode: agent\. The modes: .*\bplan\b/m);
    fake.enqueue(say.text('Planned.'));
    const switched = await cli(['-p', '/mode plan', '-p', 'Look around']);
    assert.equal(switched.code, EXIT.ok, switched.stderr);
    assert.match(switched.stdout, /^Mode: plan \(from the next prompt\)\.$/m);
    assert.equal(fake.requests().length, 1);
    assert.ok(JSON.stringify(fake.requests()[0]!.messages).includes(`${MODE_SWITCH_MARK}plan mode`), 'the prompt after /mode plan tells the model of the switch');
    const unknown = await cli(['-p', '/mode nope', '-p', 'Look around']);
    assert.equal(unknown.code, EXIT.usage);
    assert.match(unknown.stderr, /There is no mode "nope"\. The modes are: .*plan/);
    assert.equal(fake.requests().length, 1, 'nothing sent after an unknown mode');
  });

  it('keeps memory for the workspace across runs, lists it in the next one, and --no-memory turns it off', async () => {
    fake.enqueue(say.toolUse('memory', { command: 'create', path: '/memories/build.md', file_text: 'Build with make.\n' }), say.text('Noted.'));
    const first = await cli(['-p', 'Remember: build with make']);
    assert.equal(first.code, EXIT.ok, first.stderr);
    const folder = memoryFolderFor(storage, folders.workspace);
    assert.ok(folder.startsWith(path.join(storage, 'memory')) && !folder.startsWith(folders.workspace), 'outside the repository');
    assert.equal(fs.readFileSync(path.join(folder, 'build.md'), 'utf8'), 'Build with make.\n');
    fake.enqueue(say.text('With make.'));
    const second = await cli(['-p', 'How do I build?']);
    assert.equal(second.code, EXIT.ok, second.stderr);
    assert.match(fake.requests().at(-1)!.system, /^- \/memories\/build\.md \(\d+B\): Build with make\.$/m);
    fake.enqueue(say.text('No memory.'));
    const off = await cli(['--no-memory', '-p', 'How do I build?']);
    assert.equal(off.code, EXIT.ok, off.stderr);
    const system = fake.requests().at(-1)!.system;
    assert.ok(!system.includes(MEMORY_MARK), system);
    assert.match(textOfMessage(fake.requests().at(-1)!.messages[0]), /How do I build\?/);
  });
});
