// The workspace overlay (issue 26) with real bubblewrap: Git works in the sandbox as outside it,
// nothing a command writes reaches the workspace before what would arm Git or the editor is
// checked, a SIGKILL leaves neither files nor processes behind, and nothing outside the workspace
// and the command's temp folder is writable. Linux only, never skipped there (npm test installs
// bubblewrap and socat).
import * as assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it, before, after, beforeEach } from 'mocha';
import { silentLogger } from '../../src/core/logger';
import { isProcessAlive } from '../../src/core/shell/processGroup';
import type { ApprovalRequest } from '../../src/core/approvals/approval';
import { sandboxNotice, type CommandSandbox } from '../../src/core/shell/commandSandbox';
import { said } from '../support/said';
import { createOsSandbox } from '../../src/core/sandbox/srt';
import { createRunShellTool } from '../../src/core/tools/runShell';
import type { ToolResult } from '../../src/core/tools/types';
import { NodeWorkspace } from '../../src/core/workspace/workspace';
import { reply, startFakeAnthropic } from '../fake-anthropic/server';
import { processesWhoseCommandLineIncludes, waitForMarked } from '../support/processMarkers';
import { makeContext } from '../support/toolFixtures';
import { pollUntil } from '../support/waitFor';

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=T', ...args], { cwd, encoding: 'utf8' });
type Held = Extract<ApprovalRequest, { kind: 'sandbox_changes' }>;

describe('OS sandbox: the workspace overlay', function () {
  this.timeout(60_000);
  let base: string;
  let root: string;
  let outside: string;
  let storageRoot: string;
  let sessionDir: string;
  let sandbox: CommandSandbox;
  let held: Held[];
  let approveHeld: boolean;

  const run = async (command: string, extra: Record<string, unknown> = {}, controller?: AbortController): Promise<ToolResult> => {
    const tool = createRunShellTool({ sandbox });
    const ctx = makeContext(new NodeWorkspace(root, []), {
      decide: (request) => {
        if (request.kind !== 'sandbox_changes') return { approved: true };
        held.push(request);
        return { approved: approveHeld };
      },
    });
    if (controller) controller.signal.addEventListener('abort', () => ctx.controller.abort(), { once: true });
    return tool.run(tool.parse({ command, ...extra }), ctx);
  };
  const listing = (dir = root) => readdirSync(dir).sort();
  /** The paths of every held change asked about so far. */
  const heldPaths = (): string[] => held.flatMap((request) => request.changes.map((change) => change.path)).sort();
  const heldChange = (suffix: string) => held.flatMap((request) => request.changes).find((change) => change.path.endsWith(suffix));

  before(async function () {
    if (process.platform !== 'linux') this.skip(); // Seatbelt on macOS has no overlay: nothing is mounted there.
    base = execFileSync('realpath', [execFileSync('mktemp', ['-d', path.join(os.tmpdir(), 'evergreen-overlay-XXXXXX')], { encoding: 'utf8' }).trim()], { encoding: 'utf8' }).trim();
    root = path.join(base, 'ws');
    outside = path.join(base, 'outside');
    storageRoot = path.join(base, 'storage');
    sessionDir = path.join(storageRoot, 'sessions', 'this');
    for (const dir of [root, outside, sessionDir]) mkdirSync(dir, { recursive: true });
    sandbox = await createOsSandbox({ workspaceRoot: root, storageRoot, sessionDir, allowedDomains: [], logger: silentLogger, home: path.join(base, 'home') });
    assert.equal(sandbox.state.kind, 'on', JSON.stringify(sandbox.state));
    assert.equal(sandbox.state.limitation, undefined, `the overlay must mount here: ${JSON.stringify(sandbox.state)}`);
  });
  after(() => {
    if (base) rmSync(base, { recursive: true, force: true });
  });
  beforeEach(() => {
    held = [];
    approveHeld = false;
    for (const name of readdirSync(root)) rmSync(path.join(root, name), { recursive: true, force: true });
  });

  it('lets git add -A, commit -a and stash -u work in a repository with none of the protected paths, and find and tar see no placeholder', async () => {
    git(root, 'init', '-q', '-b', 'main');
    writeFileSync(path.join(root, 'a.txt'), 'one\n');
    git(root, 'add', '.');
    git(root, 'commit', '-q', '-m', 'first');
    const before = listing();
    const seen = await run('find . -path ./.git -prune -o -print | sort; tar cf - --exclude=.git . | tar tf - | sort');
    assert.equal(seen.isError, false, seen.content);
    assert.deepEqual(seen.content.split('\n').slice(1), ['.', './a.txt', './', './a.txt']);
    assert.doesNotMatch(seen.content, /\.vscode|\.envrc|\.husky|\.githooks|\.devcontainer|\.mcp\.json|\.bashrc|\.idea/);
    const commit = await run('echo two >> a.txt && echo new > b.txt && git -c user.email=t@e -c user.name=T add -A && git -c user.email=t@e -c user.name=T commit -q -m fix && echo three >> a.txt && git -c user.email=t@e -c user.name=T commit -qam again && git log --oneline | wc -l');
    assert.equal(commit.isError, false, commit.content);
    assert.match(commit.content, /\n3$/);
    const stash = await run('echo untracked > u.txt && git stash -u -q && git stash list | wc -l && ls');
    assert.equal(stash.isError, false, stash.content);
    assert.match(stash.content, /\n1\na.txt\nb.txt$/);
    // What the commands did is in the real repository, and nothing else appeared beside it.
    assert.equal(git(root, 'log', '--oneline').trim().split('\n').length, 3);
    assert.equal(git(root, 'stash', 'list').trim().split('\n').length, 1);
    assert.deepEqual(listing(), [...before, 'b.txt'].sort());
    assert.equal(git(root, 'status', '--porcelain'), '');
    assert.deepEqual(held, []);
  });

  it('applies git init at the root of a workspace that is no repository yet, and holds new .claude and .idea folders', async () => {
    const init = await run('git init -q -b main && git -c user.email=t@e -c user.name=T commit -q --allow-empty -m first && mkdir -p .claude .idea && echo {} > .claude/settings.json && echo x > .idea/workspace.xml');
    assert.equal(init.isError, false, init.content);
    assert.equal(git(root, 'log', '--oneline').trim().split('\n').length, 1);
    assert.deepEqual(heldPaths(), ['.claude', '.idea']);
    assert.equal(said(heldChange('.claude')?.reason), "a new .claude: Claude Code's project settings run hooks and define its commands and agents");
    assert.deepEqual(listing(), ['.git']);
  });

  it('holds a new .vscode for the user: declined, it stays out (kept in the session folder) while the rest is applied; approved, it is applied', async () => {
    const declined = await run('mkdir -p .vscode && echo \'{"tasks":[]}\' > .vscode/tasks.json && echo fine > notes.txt');
    assert.deepEqual(heldPaths(), ['.vscode']);
    assert.equal(said(heldChange('.vscode')?.reason), "a new .vscode: workspace settings and tasks run commands and hold Evergreen's own settings");
    assert.equal(existsSync(path.join(root, '.vscode')), false);
    assert.equal(readFileSync(path.join(root, 'notes.txt'), 'utf8'), 'fine\n');
    const keptIn = /They are kept in (\S+)\./.exec(declined.content)?.[1];
    assert.ok(keptIn, declined.content);
    assert.ok(keptIn.startsWith(path.join(sessionDir, 'held-by-sandbox')), keptIn);
    assert.equal(readFileSync(path.join(keptIn, '.vscode', 'tasks.json'), 'utf8'), '{"tasks":[]}\n');
    approveHeld = true;
    const approved = await run('mkdir -p .vscode && echo \'{}\' > .vscode/settings.json');
    assert.match(approved.content, /Applied with the user's approval: \.vscode/);
    assert.equal(readFileSync(path.join(root, '.vscode', 'settings.json'), 'utf8'), '{}\n');
  });

  it('applies git init and git clone of a nested repository without asking, and holds what would run commands in one', async () => {
    const upstream = path.join(outside, 'upstream');
    git(outside, 'init', '-q', '-b', 'main', upstream);
    writeFileSync(path.join(upstream, 'lib.txt'), 'lib\n');
    git(upstream, 'add', '.');
    git(upstream, 'commit', '-q', '-m', 'lib');
    const made = await run(`mkdir -p tools/lib && git init -q tools/lib && git clone -q '${upstream}' vendor/up && ls vendor/up`);
    assert.equal(made.isError, false, made.content);
    assert.deepEqual(held, []);
    assert.ok(statSync(path.join(root, 'tools/lib/.git/config')).isFile());
    assert.equal(readFileSync(path.join(root, 'vendor/up/lib.txt'), 'utf8'), 'lib\n');
    assert.match(git(path.join(root, 'vendor/up'), 'remote', 'get-url', 'origin'), new RegExp(upstream));
    const configBefore = readFileSync(path.join(root, 'tools/lib/.git/config'), 'utf8');
    const pwned = path.join(outside, 'pwned');
    const armed = await run(
      `git -C tools/lib config core.fsmonitor 'touch ${pwned}' && printf '#!/bin/sh\\ntouch ${pwned}\\n' > tools/lib/.git/hooks/post-checkout && chmod +x tools/lib/.git/hooks/post-checkout && git -C tools/lib config user.name Agent`,
    );
    assert.equal(armed.isError, false, armed.content);
    assert.equal(held.length, 1);
    assert.deepEqual(heldPaths(), ['tools/lib/.git/config', 'tools/lib/.git/hooks/post-checkout']);
    assert.match(heldChange('config')?.detail ?? '', /core\.fsmonitor = touch/);
    assert.doesNotMatch(heldChange('config')?.detail ?? '', /user\.name/);
    assert.equal(readFileSync(path.join(root, 'tools/lib/.git/config'), 'utf8'), configBefore);
    assert.equal(existsSync(path.join(root, 'tools/lib/.git/hooks/post-checkout')), false);
    git(path.join(root, 'tools/lib'), 'status');
    assert.equal(existsSync(pwned), false);
  });

  it('holds a redirect of the root repository (commondir, a .git file or link) and a Git directory by shape', async () => {
    git(root, 'init', '-q', '-b', 'main');
    const redirect = await run('mkdir -p evil && printf "[core]\\n\\tfsmonitor = touch /tmp/x\\n" > evil/config && echo ../evil > .git/commondir');
    assert.deepEqual(heldPaths(), ['.git/commondir']);
    assert.match(redirect.content, /Not applied/);
    assert.equal(existsSync(path.join(root, '.git/commondir')), false);
    held = [];
    await run('mkdir -p sub && printf "gitdir: ../evil\\n" > sub/.git && ln -s ../evil other.git-link && ln -s ../evil link-dir && mkdir -p linked && ln -s ../evil linked/.git');
    assert.deepEqual(heldPaths(), ['linked/.git', 'sub/.git']);
    held = [];
    await run('mkdir -p bare/objects bare/refs && echo "ref: refs/heads/main" > bare/HEAD && printf "[core]\\n\\tpager = touch /tmp/x\\n" > bare/config');
    assert.deepEqual(heldPaths(), ['bare/config']);
    assert.equal(existsSync(path.join(root, 'bare/config')), false);
    assert.equal(existsSync(path.join(root, 'bare/HEAD')), true);
  });

  it('never lets a Git outside the sandbox run a payload while a command writes .git/commondir and a nested repository with core.fsmonitor', async () => {
    // Control: the same files written unsandboxed do make a plain `git status` run the payload, so the check below can fail.
    const control = path.join(outside, 'control');
    const controlPayload = path.join(outside, 'control-ran');
    mkdirSync(control);
    git(control, 'init', '-q');
    git(control, 'config', 'core.fsmonitor', `touch ${controlPayload}`);
    git(control, 'status');
    assert.equal(existsSync(controlPayload), true, 'this Git does not run core.fsmonitor: the test below would prove nothing');

    git(root, 'init', '-q', '-b', 'main');
    writeFileSync(path.join(root, 'a.txt'), 'a\n');
    git(root, 'add', '.');
    git(root, 'commit', '-q', '-m', 'a');
    const payload = path.join(outside, 'payload-ran');
    const attack = [
      `mkdir -p evil tools/lib && printf '[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = touch ${payload}\\n' > evil/config`,
      'echo ../evil > .git/commondir',
      `git init -q tools/lib && git -C tools/lib config core.fsmonitor 'touch ${payload}'`,
      'sleep 4',
    ].join(' && ');
    let looking = true;
    let looks = 0;
    const hostGit = (async () => {
      while (looking) {
        for (const dir of [root, path.join(root, 'tools/lib')]) {
          try {
            execFileSync('git', ['status', '--porcelain'], { cwd: dir, stdio: 'ignore', timeout: 5_000 });
          } catch {
            // Not a repository (yet): VS Code's Git would simply find none.
          }
        }
        looks++;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    try {
      const result = await run(attack);
      assert.equal(result.isError, false, result.content);
    } finally {
      looking = false;
      await hostGit;
    }
    assert.ok(looks >= 10, `the host looked only ${looks} times`);
    assert.equal(held.length, 1);
    assert.deepEqual(heldPaths(), ['.git/commondir', 'tools/lib/.git/config']);
    for (const dir of [root, path.join(root, 'tools/lib')]) git(dir, 'status');
    assert.equal(existsSync(payload), false, 'a Git outside the sandbox ran the command\'s payload');
  });

  it('applies deletions, a folder emptied and made again, type changes, links, modes and names that are not UTF-8 exactly', async () => {
    mkdirSync(path.join(root, 'd'));
    writeFileSync(path.join(root, 'd/old1'), '1');
    writeFileSync(path.join(root, 'd/old2'), '2');
    writeFileSync(path.join(root, 'gone.txt'), 'x');
    writeFileSync(path.join(root, 'becomes-dir'), 'x');
    mkdirSync(path.join(root, 'becomes-file'));
    writeFileSync(path.join(root, 'becomes-file/inner'), 'x');
    symlinkSync('/etc', path.join(root, 'was-link'));
    const latin1 = Buffer.from([0x63, 0x61, 0x66, 0xe9]); // "café" in Latin-1: not UTF-8
    writeFileSync(Buffer.concat([Buffer.from(`${root}/keep-`), latin1]), 'kept');
    const result = await run(
      [
        'rm -rf d && mkdir d && echo new > d/z',
        'rm gone.txt',
        'rm becomes-dir && mkdir becomes-dir && echo in > becomes-dir/f',
        'rm -r becomes-file && echo file > becomes-file',
        'rm was-link && mkdir was-link && echo mine > was-link/f',
        "ln -s a.txt link && echo a > a.txt && echo '#!/bin/sh' > run.sh && chmod 4755 run.sh",
        "printf x > \"$(printf 'new-\\351')\"",
      ].join(' && '),
    );
    assert.equal(result.isError, false, result.content);
    assert.deepEqual(listing(path.join(root, 'd')), ['z']);
    assert.equal(existsSync(path.join(root, 'gone.txt')), false);
    assert.equal(readFileSync(path.join(root, 'becomes-dir/f'), 'utf8'), 'in\n');
    assert.equal(readFileSync(path.join(root, 'becomes-file'), 'utf8'), 'file\n');
    assert.ok(lstatSync(path.join(root, 'was-link')).isDirectory());
    assert.equal(existsSync('/etc/f'), false);
    assert.equal(readlinkSync(path.join(root, 'link')), 'a.txt');
    assert.equal(statSync(path.join(root, 'run.sh')).mode & 0o7777, 0o755, 'the setuid bit is never applied');
    assert.equal(readFileSync(Buffer.concat([Buffer.from(`${root}/keep-`), latin1]), 'utf8'), 'kept');
    assert.equal(readFileSync(Buffer.concat([Buffer.from(`${root}/new-`), Buffer.from([0xe9])]), 'utf8'), 'x');
    assert.deepEqual(held, []);
  });

  it('applies what a command wrote before a timeout or a cancel ended it', async () => {
    const timedOut = await run('echo before > timed.txt; sleep 30', { timeout_ms: 1500 });
    assert.match(timedOut.content, /timed out/);
    assert.equal(readFileSync(path.join(root, 'timed.txt'), 'utf8'), 'before\n');
    const controller = new AbortController();
    const cancelled = run('echo before > cancelled.txt; sleep 30', {}, controller);
    setTimeout(() => controller.abort(), 1500);
    const result = await cancelled;
    assert.equal(result.cancelled, true, result.content);
    assert.equal(readFileSync(path.join(root, 'cancelled.txt'), 'utf8'), 'before\n');
  });

  it('keeps everything outside the workspace and its temp folder unwritable, ~/.npm/_logs included', async () => {
    const npmLogs = path.join(os.homedir(), '.npm', '_logs');
    const existed = existsSync(npmLogs);
    mkdirSync(npmLogs, { recursive: true });
    const name = `.evergreen-probe-${process.pid}`;
    // Every mount the command sees as writable gets a probe file; only those that reach the disk
    // outside count (a tmpfs over a hidden folder is the command's own scratch and vanishes with it).
    const result = await run(
      `touch '${npmLogs}/${name}'; for m in $(awk '$6 ~ /^rw/ {print $5}' /proc/self/mountinfo | sort -u); do touch "$m/${name}" 2>/dev/null && echo "$m"; done`,
    );
    const mounts = result.content.split('\n').filter((line) => line.startsWith('/'));
    try {
      const persisted = [npmLogs, ...mounts].filter((mount) => existsSync(path.join(mount, name)));
      const tmpdir = /^\/tmp\/evergreen-sandbox-[^/]+$/;
      assert.deepEqual(
        persisted.filter((mount) => mount !== root && !tmpdir.test(mount)),
        [],
        `writable from the sandbox besides the workspace and its TMPDIR: ${persisted.join(', ')}`,
      );
      assert.ok(persisted.includes(root), result.content);
    } finally {
      for (const mount of [npmLogs, ...mounts]) rmSync(path.join(mount, name), { force: true });
      if (!existed) rmSync(npmLogs, { recursive: true, force: true });
    }
  });
});

describe('OS sandbox: without the overlay', function () {
  this.timeout(60_000);

  it('falls back to placeholders, still confined, and says why once, with the way to get the overlay', async function () {
    if (process.platform !== 'linux') this.skip();
    const base = execFileSync('mktemp', ['-d', path.join(os.tmpdir(), 'evergreen-nooverlay-XXXXXX')], { encoding: 'utf8' }).trim();
    // A PATH with everything the sandbox needs but unshare, as on a system with an older util-linux.
    const bin = path.join(base, 'bin');
    mkdirSync(bin);
    for (const program of ['bwrap', 'socat', 'rg', 'bash', 'sh', 'setpriv', 'git', 'mount', 'env', 'which']) {
      const found = execFileSync('bash', ['-c', `command -v ${program}`], { encoding: 'utf8' }).trim();
      symlinkSync(found, path.join(bin, program));
    }
    const workspace = path.join(base, 'ws');
    mkdirSync(workspace);
    const savedPath = process.env.PATH;
    process.env.PATH = bin;
    try {
      const sandbox = await createOsSandbox({ workspaceRoot: workspace, storageRoot: path.join(base, 'storage'), sessionDir: path.join(base, 'storage', 's'), allowedDomains: [], logger: silentLogger });
      assert.equal(sandbox.state.kind, 'on', JSON.stringify(sandbox.state));
      assert.match(sandbox.state.limitation ?? '', /unshare \(util-linux\) is not installed/);
      const notice = sandboxNotice(sandbox.state);
      assert.equal(notice?.level, 'info');
      assert.match(said(notice?.message) ?? '', /held by empty read-only placeholders while a command runs \(git add -A can fail on them\).*util-linux 2\.38 or later/);
      const tool = createRunShellTool({ sandbox });
      const result = await tool.run(tool.parse({ command: `echo x > inside.txt && echo y > '${path.join(base, 'outside.txt')}'` }), makeContext(new NodeWorkspace(workspace, [])));
      assert.equal(result.isError, true);
      assert.equal(readFileSync(path.join(workspace, 'inside.txt'), 'utf8'), 'x\n');
      assert.equal(existsSync(path.join(base, 'outside.txt')), false);
    } finally {
      process.env.PATH = savedPath;
      rmSync(base, { recursive: true, force: true });
    }
  });
});

describe('OS sandbox: a SIGKILLed CLI mid-command', function () {
  this.timeout(60_000);

  it('leaves the workspace as it was, no stray file, no process of ours (socat bridge, command) and no overlay once the next run starts', async function () {
    if (process.platform !== 'linux') this.skip();
    const fake = await startFakeAnthropic();
    const base = execFileSync('mktemp', ['-d', path.join(os.tmpdir(), 'evergreen-sigkill-XXXXXX')], { encoding: 'utf8' }).trim();
    const workspace = path.join(base, 'ws');
    const storage = path.join(base, 'storage');
    mkdirSync(workspace);
    git(workspace, 'init', '-q');
    writeFileSync(path.join(workspace, 'a.txt'), 'a\n');
    const marker = `evergreen-sigkill-${process.pid}`;
    try {
      fake.setModel('claude-sonnet-4-6', { max_input_tokens: 200_000, max_tokens: 64_000 });
      fake.enqueue(reply.toolUse('run_shell', { command: `echo partial > partial.txt && mkdir -p .vscode && exec -a ${marker} sleep 300` }), reply.text('never reached'));
      const cli = spawn(process.execPath, ['--require', require.resolve('tsx/cjs'), path.resolve('src/cli/main.ts'), '--workspace', workspace, '--storage-dir', storage, '--model', 'claude-sonnet-4-6', '--yes', '--allow-domain', 'example.com', '-p', 'run it'], {
        env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: fake.apiKey, ANTHROPIC_BASE_URL: fake.url, HOME: base },
        cwd: workspace,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      cli.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise((resolve) => cli.once('exit', resolve));
      assert.equal((await waitForMarked(marker, 1)).length, 1, `the command did not start: ${stderr}`);
      // The CLI's own bridges: socat processes it started (other runs' are not this test's business).
      const candidates = await processesWhoseCommandLineIncludes('claude-http-');
      const bridges = (await Promise.all(candidates.map(async (pid) => ((await parentOf(pid)) === cli.pid ? pid : undefined)))).filter((pid): pid is number => pid !== undefined);
      assert.ok(bridges.length > 0, 'the CLI started no network bridge: the check below would prove nothing');
      cli.kill('SIGKILL');
      await exited;
      assert.deepEqual(await waitForMarked(marker, 0, 10_000), [], 'the command outlived the CLI');
      assert.deepEqual(await pollUntil(() => aliveOf(bridges), (left) => left.length === 0, { timeoutMs: 10_000 }), [], 'the socat bridge outlived the CLI');
      assert.deepEqual(readdirSync(workspace).sort(), ['.git', 'a.txt'], 'the workspace changed');
      const killedOverlays = () => readdirSync(path.join(storage, 'sandbox-overlays')).filter((name) => name.startsWith(`ov-${cli.pid}-`));
      assert.equal(killedOverlays().length, 1, 'the killed command\'s overlay should be there until the next run');
      // The next run finds the overlay of a process that is gone and removes it.
      const next = await createOsSandbox({ workspaceRoot: workspace, storageRoot: storage, sessionDir: path.join(storage, 'next'), allowedDomains: [], logger: silentLogger });
      assert.equal(next.state.kind, 'on');
      assert.deepEqual(killedOverlays(), []);
    } finally {
      await fake.close();
      rmSync(base, { recursive: true, force: true });
    }
  });
});

async function aliveOf(pids: readonly number[]): Promise<number[]> {
  const alive = await Promise.all(pids.map((pid) => isProcessAlive(pid)));
  return pids.filter((_pid, index) => alive[index]);
}

async function parentOf(pid: number): Promise<number | undefined> {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}
