/**
 * The headless CLI reads the same instruction files as the extension (its home folder from its own
 * environment), says what it read and what it could not, and `--no-instructions` turns them off.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EXIT } from '../../src/cli/run';
import { INSTRUCTIONS_MARK } from '../../src/core/instructions/instructionFiles';
import { runCliCaptured } from '../support/cliCapture';
import { BACKENDS, say, type FakeBackend } from '../support/backends';

for (const backend of BACKENDS) describe(`headless CLI: project instructions [${backend.name}]`, function () {
  this.timeout(30_000);
  let fake: FakeBackend;
  let workspace: string;
  let home: string;
  let storage: string;

  beforeEach(async () => {
    fake = await backend.start();
    workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'evergreen-cli-instr-ws-'));
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'evergreen-cli-instr-home-'));
    storage = fs.mkdtempSync(path.join(os.tmpdir(), 'evergreen-cli-instr-store-'));
    fs.mkdirSync(path.join(home, '.evergreen'));
    fs.writeFileSync(path.join(home, '.evergreen', 'AGENTS.md'), 'USER RULE FROM HOME');
    fs.writeFileSync(path.join(workspace, 'AGENTS.md'), 'PROJECT RULE @docs/more.md');
    fs.mkdirSync(path.join(workspace, 'docs'));
    fs.writeFileSync(path.join(workspace, 'docs', 'more.md'), 'IMPORTED RULE');
  });
  afterEach(async () => {
    await fake.close();
    for (const dir of [workspace, home, storage]) fs.rmSync(dir, { recursive: true, force: true });
  });

  const cli = (args: string[]) =>
    runCliCaptured(['--workspace', workspace, '--storage-dir', storage, ...fake.cliArgs(), '--model', fake.model, ...args], { ...fake.cliEnv(), PATH: process.env.PATH, HOME: home }, workspace);

  it("sends the user's and the workspace's files with their imports, and says which it read", async () => {
    fake.enqueue(say.text('Understood.'));
    const run = await cli(['-p', 'Hello']);
    assert.equal(run.code, EXIT.ok, run.stderr);
    const system = fake.requests()[0]!.system;
    assert.ok(system.includes(INSTRUCTIONS_MARK), system);
    for (const rule of ['USER RULE FROM HOME', 'PROJECT RULE', 'IMPORTED RULE']) assert.ok(system.includes(rule), rule);
    assert.match(run.stderr, /note: Project instructions read: ~\/\.evergreen\/AGENTS\.md, AGENTS\.md, docs\/more\.md\./);
  });

  it('reads none with --no-instructions', async () => {
    fake.enqueue(say.text('Plain.'));
    const run = await cli(['--no-instructions', '-p', 'Hello']);
    assert.equal(run.code, EXIT.ok, run.stderr);
    const system = fake.requests()[0]!.system;
    assert.ok(!system.includes(INSTRUCTIONS_MARK) && !system.includes('PROJECT RULE'), system);
    assert.doesNotMatch(run.stderr, /Project instructions/);
  });

  it('warns about a file it cannot use and still answers', async () => {
    fs.writeFileSync(path.join(workspace, 'AGENTS.md'), 'PROJECT RULE @AGENTS.md');
    fake.enqueue(say.text('Answered anyway.'));
    const run = await cli(['-p', 'Hello']);
    assert.equal(run.code, EXIT.ok, run.stderr);
    assert.match(run.stderr, /warning: AGENTS\.md imports itself \(an import cycle\); the cycle was not followed\./);
    assert.match(run.stdout, /Answered anyway\./);
    assert.equal(fake.requests()[0]!.system.split('PROJECT RULE').length - 1, 1);
  });
});
