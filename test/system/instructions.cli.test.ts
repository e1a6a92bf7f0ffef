/**
 * The headless CLI reads the same instruction files as the extension (its home folder from its own
 * environment), says what it read and what it could not, and `--no-instructions` turns them off.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EXIT } from '../../src/cli/run';
import { INSTRUCTIONS_MARK } from '../../src/core/instructions/instructionFiles';
import { BACKENDS, say, type FakeBackend } from '../support/backends';
import { useCliFixture } from '../support/cliFixture';
import { writeTree } from '../support/tempDirs';

for (const backend of BACKENDS) describe(`headless CLI: project instructions [${backend.name}]`, function () {
  this.timeout(30_000);
  const fixture = useCliFixture(backend, { home: true, files: { 'AGENTS.md': 'PROJECT RULE @docs/more.md', 'docs/more.md': 'IMPORTED RULE' } });
  let fake: FakeBackend;
  let workspace: string;
  let home: string;
  beforeEach(() => {
    ({ fake, workspace, home } = fixture());
    writeTree(home, { '.evergreen/AGENTS.md': 'USER RULE FROM HOME' });
  });

  const cli = (args: string[]) =>
    fixture().run(args);

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
