// A chat's Git worktree (issue 31) in the OS sandbox with real bubblewrap: Git in the worktree can
// add, commit and show its status, which writes objects, the chat's branch and the worktree's own
// folder in the main repository's Git directory; nothing that configures Git (config, hooks,
// objects/info, the worktree's commondir), no other branch or tag, none of the user's files and
// none of the rest of Evergreen's storage can be written, and other sessions cannot be read.
// Linux only, never skipped there (npm test installs bubblewrap and socat).
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it, before, after } from 'mocha';
import { silentLogger } from '../../src/core/logger';
import type { CommandSandbox } from '../../src/core/shell/commandSandbox';
import { createOsSandbox } from '../../src/core/sandbox/srt';
import { createRunShellTool } from '../../src/core/tools/runShell';
import type { ToolResult } from '../../src/core/tools/types';
import { NodeWorkspace } from '../../src/core/workspace/workspace';
import { gitAccessOf, WorktreeManager, type WorktreeRecord } from '../../src/core/worktrees/manager';
import { makeContext } from '../support/toolFixtures';

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=T', ...args], { cwd, encoding: 'utf8' });
const ID = '-c user.email=t@e -c user.name=T';

/** The user's files and what of the main Git directory configures Git or names their branch, hashed. */
function userSide(checkout: string): Record<string, string> {
  const hash = (file: string) => (existsSync(file) ? createHash('sha256').update(readFileSync(file)).digest('hex') : 'missing');
  const gitDir = path.join(checkout, '.git');
  const out: Record<string, string> = {};
  for (const name of readdirSync(checkout).filter((entry) => entry !== '.git')) out[name] = hash(path.join(checkout, name));
  for (const name of ['HEAD', 'index', 'config', 'refs/heads/main', 'refs/heads/evergreen/other', 'objects/info/alternates', 'hooks/pre-commit', 'packed-refs']) out[`.git/${name}`] = hash(path.join(gitDir, name));
  out['hooks'] = readdirSync(path.join(gitDir, 'hooks')).sort().join(',');
  return out;
}

for (const mechanism of ['overlay', 'placeholders'] as const)
  describe(`OS sandbox in a chat's worktree (${mechanism})`, function () {
    this.timeout(60_000);
    let base: string;
    let checkout: string;
    let storageRoot: string;
    let otherSession: string;
    let record: WorktreeRecord;
    let sandbox: CommandSandbox;

    const run = async (command: string): Promise<ToolResult> => {
      const tool = createRunShellTool({ sandbox });
      // Held changes (the overlay's check after a command) are declined: nothing here should need one.
      const ctx = makeContext(new NodeWorkspace(record.folder, [], { worktree: true }), { decide: (request) => ({ approved: request.kind !== 'sandbox_changes' }) });
      return tool.run(tool.parse({ command }), ctx);
    };

    before(async function () {
      if (process.platform !== 'linux') this.skip(); // the binds below are bubblewrap's
      base = execFileSync('realpath', [execFileSync('mktemp', ['-d', path.join(os.tmpdir(), 'evergreen-sandbox-worktree-XXXXXX')], { encoding: 'utf8' }).trim()], { encoding: 'utf8' }).trim();
      checkout = path.join(base, 'app');
      storageRoot = path.join(base, 'storage');
      mkdirSync(checkout);
      git(checkout, 'init', '-q', '-b', 'main');
      writeFileSync(path.join(checkout, 'a.txt'), 'one\n');
      git(checkout, 'add', '.');
      git(checkout, 'commit', '-qm', 'first');
      git(checkout, 'branch', 'evergreen/other');
      record = await new WorktreeManager({ storageRoot }).create({ checkout, name: 'task' });
      const sessionDir = path.join(storageRoot, 'sessions', 'this');
      otherSession = path.join(storageRoot, 'sessions', 'other');
      mkdirSync(sessionDir, { recursive: true });
      mkdirSync(otherSession, { recursive: true });
      writeFileSync(path.join(otherSession, 'transcript.jsonl'), 'another chat\n');
      sandbox = await createOsSandbox({ workspaceRoot: record.folder, storageRoot, sessionDir, allowedDomains: [], logger: silentLogger, home: path.join(base, 'home'), mechanism, worktree: gitAccessOf(record) });
      assert.equal(sandbox.state.kind, 'on', JSON.stringify(sandbox.state));
    });
    after(() => {
      sandbox?.dispose?.();
      if (base) rmSync(base, { recursive: true, force: true });
    });

    it('lets Git add, commit and show its status in the worktree, onto the chat’s branch, and leaves the user’s checkout byte for byte as it was', async () => {
      const before = userSide(checkout);
      // With placeholders (the fallback where no overlay mounts), `git add -A` trips on them, as in any workspace.
      const add = mechanism === 'overlay' ? '-A' : 'a.txt b.txt';
      const result = await run(`echo two >> a.txt && echo new > b.txt && git ${ID} add ${add} && git ${ID} commit -qm work && git status --porcelain && echo status-ok && git log --oneline | wc -l`);
      assert.equal(result.isError, false, result.content);
      assert.match(result.content, /status-ok\n2$/);
      assert.equal(git(checkout, 'log', '--format=%s', '-1', 'evergreen/task').trim(), 'work', 'the commit is on the branch in the main repository');
      assert.equal(git(record.folder, 'status', '--porcelain'), '');
      assert.deepEqual(userSide(checkout), before);
    });

    it("refuses every write that would configure Git, move another branch or touch the user's files, and hides other sessions", async () => {
      // A commit of its own, so that moving another branch to HEAD would change it.
      writeFileSync(path.join(record.folder, 'c.txt'), 'c\n');
      git(record.folder, 'add', 'c.txt');
      git(record.folder, 'commit', '-qm', 'c');
      const before = userSide(checkout);
      const common = record.commonDir;
      const attempts = [
        `git config core.fsmonitor "touch ${base}/pwned"`,
        `echo 'touch ${base}/pwned' > ${common}/hooks/pre-commit`,
        `echo ${base} > ${common}/objects/info/alternates`,
        `echo ${base}/elsewhere > ${record.adminDir}/commondir`,
        `git ${ID} update-ref refs/heads/main HEAD`,
        `git ${ID} branch -f evergreen/other HEAD`,
        `git ${ID} tag t`,
        `echo mine > ${checkout}/a.txt`,
        `echo 'gitdir: ${base}' > .git`,
        `rm .git`,
        `cat ${otherSession}/transcript.jsonl`,
      ];
      for (const attempt of attempts) {
        const result = await run(`${attempt} && echo DONE`);
        assert.doesNotMatch(result.content, /DONE/, `${attempt} must fail:\n${result.content}`);
      }
      assert.deepEqual(userSide(checkout), before);
      assert.equal(existsSync(path.join(base, 'pwned')), false);
      assert.equal(readFileSync(path.join(record.adminDir, 'commondir'), 'utf8').trim(), '../..');
      assert.equal(readFileSync(path.join(record.folder, '.git'), 'utf8').trim(), `gitdir: ${record.adminDir}`, "the worktree's .git file still names its own folder");
      assert.equal(git(checkout, 'tag', '--list'), '');
      assert.equal(git(checkout, 'rev-parse', 'evergreen/other'), git(checkout, 'rev-parse', 'main'));
      // The storage around the worktree is hidden (an empty tmpfs stands in for it): a write there lands nowhere.
      const recordFile = path.join(path.dirname(record.folder), 'task.json');
      const recordBefore = readFileSync(recordFile, 'utf8');
      const inside = await run(`cat ${recordFile}; echo x > ${recordFile}`);
      assert.doesNotMatch(inside.content, /"branch"/, 'the record cannot be read from inside');
      assert.equal(readFileSync(recordFile, 'utf8'), recordBefore);
    });

    it('tells a command refused by a read-only file what Git may write in a worktree', async () => {
      const result = await run(`echo x > ${record.commonDir}/hooks/post-checkout`);
      assert.equal(result.isError, true);
      assert.match(result.content, /this chat's branch evergreen\/task/);
    });
  });
