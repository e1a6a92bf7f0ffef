// The OS sandbox with real bubblewrap (issue 18): what a command the model runs can and cannot do.
// Linux only, and never skipped there: `npm test` installs bubblewrap and socat (setup-vscode.mjs),
// so a sandbox that cannot start fails this suite instead of passing it unexercised.
import * as assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { describe, it, before, after } from 'mocha';
import { silentLogger } from '../../src/core/logger';
import type { CommandSandbox } from '../../src/core/shell/commandSandbox';
import { createOsSandbox } from '../../src/core/sandbox/srt';
import { createRunShellTool } from '../../src/core/tools/runShell';
import type { ToolResult } from '../../src/core/tools/types';
import { markedSleep, waitForMarked } from '../support/processMarkers';
import { makeContext, makeTempDirs, type TempDirs } from '../support/toolFixtures';

const KEY = 'sk-ant-sandbox-test-0123456789abcdefXYZ';

// Both ways of holding protected paths that do not exist yet: the workspace overlay (the default
// where it mounts) and placeholders (the fallback). Everything else must hold the same in both.
for (const mechanism of ['overlay', 'placeholders'] as const) describe(`OS sandbox (bubblewrap, ${mechanism})`, function () {
  this.timeout(60_000);
  let dirs: TempDirs;
  let home: string;
  let storageRoot: string;
  let sessionDir: string;
  let otherSessionDir: string;
  let sandbox: CommandSandbox;
  let savedKey: string | undefined;

  // What a command wrote that would run outside the sandbox is declined here, as a cautious user would.
  const run = async (command: string, extra: Record<string, unknown> = {}): Promise<ToolResult> => {
    const tool = createRunShellTool({ sandbox });
    const ctx = makeContext(dirs.workspace, { decide: (request) => (request.kind === 'sandbox_changes' ? { approved: false } : { approved: true }) });
    return tool.run(tool.parse({ command, ...extra }), ctx);
  };
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dirs.root, encoding: 'utf8' });

  before(async function () {
    if (process.platform !== 'linux') this.skip(); // Seatbelt is not available to CI here; Linux runs it for real.
    savedKey = process.env.ANTHROPIC_API_KEY;
    process.env.ANTHROPIC_API_KEY = KEY;
    dirs = makeTempDirs();
    const base = path.dirname(dirs.root);
    home = path.join(base, 'home');
    storageRoot = path.join(base, 'storage-root');
    sessionDir = path.join(storageRoot, 'sessions', 'this-session');
    otherSessionDir = path.join(storageRoot, 'sessions', 'other-session');
    for (const dir of [path.join(home, '.ssh'), sessionDir, otherSessionDir]) mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(home, '.ssh', 'id_ed25519'), 'PRIVATE KEY');
    writeFileSync(path.join(sessionDir, 'notes.txt'), 'own session');
    writeFileSync(path.join(otherSessionDir, 'transcript.jsonl'), 'other session');
    git('init', '-q', '-b', 'main');
    git('config', 'user.email', 'test@example.com');
    git('config', 'user.name', 'Test');
    writeFileSync(path.join(dirs.root, 'a.txt'), 'one\n');
    writeFileSync(path.join(dirs.root, 'package.json'), JSON.stringify({ name: 'ws', version: '1.0.0', scripts: { test: 'node -e "console.log(\'tests ran\')"' } }));
    git('add', '.');
    git('commit', '-q', '-m', 'first');
    sandbox = await createOsSandbox({ workspaceRoot: dirs.root, storageRoot, sessionDir, allowedDomains: [], logger: silentLogger, home, mechanism });
    assert.equal(sandbox.state.kind, 'on', `the sandbox must start here (npm test installs bubblewrap and socat): ${JSON.stringify(sandbox.state)}`);
    // The overlay must really be in use where it is asked for: a fallback would pass these tests unexercised.
    assert.equal(sandbox.state.limitation, undefined, `the overlay must mount here: ${JSON.stringify(sandbox.state)}`);
  });

  after(() => {
    if (savedKey === undefined) delete process.env.ANTHROPIC_API_KEY;
    else process.env.ANTHROPIC_API_KEY = savedKey;
    dirs?.cleanup();
  });

  it('writes inside the workspace, and refuses writes outside it with the reason in the result', async () => {
    const inside = await run('echo made > made.txt && cat made.txt');
    assert.equal(inside.isError, false, inside.content);
    assert.equal(readFileSync(path.join(dirs.root, 'made.txt'), 'utf8'), 'made\n');
    const target = path.join(dirs.outside, 'escaped.txt');
    const outside = await run(`echo x > '${target}'`);
    assert.equal(outside.isError, true);
    assert.equal(existsSync(target), false);
    assert.match(outside.content, /\[sandbox\] The sandbox refused a write/);
    assert.match(outside.content, /outside_sandbox_reason/);
  });

  it('keeps .git/config, .git/hooks and .vscode read-only: the uniq payload of the probes cannot arm git', async () => {
    const before = readFileSync(path.join(dirs.root, '.git', 'config'), 'utf8');
    const uniq = await run(`printf '[core]\\n\\tfsmonitor = touch ${dirs.outside}/pwned\\n' | uniq - .git/config`);
    assert.equal(uniq.isError, true);
    assert.equal(readFileSync(path.join(dirs.root, '.git', 'config'), 'utf8'), before);
    const tee = await run('echo x | tee -- -/../.git/config; echo "#!/bin/sh" > .git/hooks/pre-commit');
    assert.equal(tee.isError, true);
    assert.equal(existsSync(path.join(dirs.root, '.git', 'hooks', 'pre-commit')), false);
    const vscode = await run('mkdir -p .vscode && echo "{}" > .vscode/tasks.json');
    // Placeholders refuse the write; the overlay lets the command write and holds .vscode for the user, who declined.
    if (mechanism === 'placeholders') assert.equal(vscode.isError, true);
    else assert.match(vscode.content, /\[sandbox\] Not applied, since the user did not approve them: \.vscode/);
    assert.equal(existsSync(path.join(dirs.root, '.vscode', 'tasks.json')), false);
    const pkg = await run(`echo '{"scripts":{"test":"evil"}}' > package.json`);
    assert.equal(pkg.isError, true);
    assert.match(readFileSync(path.join(dirs.root, 'package.json'), 'utf8'), /tests ran/);
  });

  it('keeps the protected list read-only one folder down, in a folder named like a pattern too, but not installed packages', async () => {
    const files = ['pkg/package.json', '[wip]/Makefile', 'vite.config.ts', 'node_modules/dep/package.json'];
    for (const file of files) {
      mkdirSync(path.dirname(path.join(dirs.root, file)), { recursive: true });
      writeFileSync(path.join(dirs.root, file), 'original\n');
    }
    for (const file of files.slice(0, 3)) {
      const result = await run(`echo changed > '${file}'`);
      assert.equal(result.isError, true, `${file}: ${result.content}`);
      assert.equal(readFileSync(path.join(dirs.root, file), 'utf8'), 'original\n', file);
    }
    // npm install rewrites these: node_modules is not searched (policy.ts, NOT_SEARCHED).
    const installed = await run(`echo changed > node_modules/dep/package.json`);
    assert.equal(installed.isError, false, installed.content);
    assert.equal(readFileSync(path.join(dirs.root, 'node_modules/dep/package.json'), 'utf8'), 'changed\n');
  });

  it('lets git add, commit and stash work, and npm test run', async () => {
    const commit = await run('echo two >> a.txt && git add a.txt && git commit -q -m second && git log --oneline | wc -l');
    assert.equal(commit.isError, false, commit.content);
    assert.match(commit.content, /\n2$/);
    const stash = await run('echo three >> a.txt && git stash -q && git stash list | wc -l && cat a.txt');
    assert.equal(stash.isError, false, stash.content);
    assert.match(stash.content, /\n1\none\ntwo$/);
    const npm = await run('npm test --silent');
    assert.equal(npm.isError, false, npm.content);
    assert.match(npm.content, /tests ran/);
  });

  it('has no network: a server on this machine cannot be reached', async () => {
    const server = http.createServer((_req, res) => res.end('reached'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      const result = await run(`curl -sS --max-time 5 http://127.0.0.1:${port}/ || node -e "require('http').get('http://127.0.0.1:${port}/', r => r.pipe(process.stdout)).on('error', e => { console.error(e.code); process.exit(7) })"`);
      assert.equal(result.isError, true);
      assert.doesNotMatch(result.content, /reached/);
      const outsideDomain = await run('curl -sS --max-time 5 https://example.com/');
      assert.equal(outsideDomain.isError, true);
      assert.match(outsideDomain.content, /\[sandbox\] The sandbox has no network access/);
    } finally {
      server.close();
    }
  });

  it('hides the key: not in the environment, not through ps or /proc', async () => {
    const result = await run('env; ps axeww; cat /proc/*/environ 2>/dev/null | tr "\\0" "\\n"; ps ax | wc -l');
    assert.equal(result.isError, false, result.content);
    assert.equal(result.content.includes(KEY), false);
    assert.equal(result.content.includes('sandbox-test-0123'), false);
    // Its own PID namespace: the test runner (this process) is not among the processes it sees.
    const ps = await run('ps -eo pid=,args=');
    assert.doesNotMatch(ps.content, /mocha/);
  });

  it('hides credentials and other sessions, and shows this session read-only', async () => {
    const ssh = await run(`cat '${home}/.ssh/id_ed25519'`);
    assert.equal(ssh.isError, true);
    assert.doesNotMatch(ssh.content, /PRIVATE KEY/);
    const other = await run(`cat '${otherSessionDir}/transcript.jsonl'`);
    assert.equal(other.isError, true);
    assert.doesNotMatch(other.content, /other session/);
    const own = await run(`cat '${sessionDir}/notes.txt' && echo changed > '${sessionDir}/notes.txt'`);
    assert.match(own.content, /own session/);
    assert.equal(own.isError, true);
    assert.equal(readFileSync(path.join(sessionDir, 'notes.txt'), 'utf8'), 'own session');
  });

  it('ends every process the command left behind, even one that left the process group', async () => {
    const marker = `evergreen-sandbox-orphan-${process.pid}`;
    // The command proves its escaped process runs (counted inside the sandbox) before it returns.
    const result = await run(`setsid ${markedSleep(marker)} >/dev/null 2>&1 & sleep 0.5; ps -eo args= | grep -c '^${marker}'`);
    assert.equal(result.isError, false, result.content);
    assert.match(result.content, /\n1$/, 'the left-behind process was not running inside the sandbox');
    assert.deepEqual(await waitForMarked(marker, 0, 5_000), [], 'a process of the sandboxed command outlived it');
  });

  it('confines a long-running stdio server the same way (how stdio MCP servers will run): it answers on its pipes and cannot write outside', async () => {
    const escaped = path.join(dirs.outside, 'server-escaped.txt');
    const script = `process.stdin.setEncoding('utf8'); process.stdin.on('data', (line) => { let wrote = 'no'; try { require('fs').writeFileSync(${JSON.stringify(escaped)}, 'x'); wrote = 'yes'; } catch {} process.stdout.write('echo:' + line.trim() + ' wrote-outside:' + wrote + '\\n'); });`;
    const prepared = await sandbox.wrap(`exec node -e ${JSON.stringify(script)}`, { shell: 'bash', cwd: dirs.root });
    const child = spawn(prepared.file, prepared.args, { cwd: dirs.root, stdio: ['pipe', 'pipe', 'pipe'] });
    try {
      const answer = await new Promise<string>((resolve, reject) => {
        let out = '';
        const timer = setTimeout(() => reject(new Error(`no answer; got ${out}`)), 20_000);
        child.stdout.setEncoding('utf8');
        child.stdout.on('data', (chunk: string) => {
          out += chunk;
          if (out.includes('\n')) {
            clearTimeout(timer);
            resolve(out.trim());
          }
        });
        child.stdin.write('{"jsonrpc":"2.0","id":1}\n');
      });
      assert.equal(answer, 'echo:{"jsonrpc":"2.0","id":1} wrote-outside:no');
      assert.equal(existsSync(escaped), false);
    } finally {
      child.kill('SIGKILL');
      prepared.release();
    }
  });

  it('leaves no mount placeholders in the workspace after a command', async () => {
    await run('true');
    assert.equal(existsSync(path.join(dirs.root, '.vscode')), false);
    assert.equal(existsSync(path.join(dirs.root, '.envrc')), false);
  });

  // Last: it ends this sandbox's session.
  it("removes the commands' private temp folder when its session closes, and only then", async () => {
    const result = await run('echo "$TMPDIR"');
    assert.equal(result.isError, false, result.content);
    const privateTmp = result.content.split('\n').find((line) => line.includes('evergreen-sandbox-'))?.trim() ?? result.content;
    assert.match(path.basename(privateTmp), /^evergreen-sandbox-/);
    assert.ok(existsSync(privateTmp), `${privateTmp} is there while the session runs`);
    assert.ok(sandbox.dispose, 'an OS sandbox says how its session gives it back');
    sandbox.dispose();
    assert.equal(existsSync(privateTmp), false, `${privateTmp} is gone once the session closed`);
  });
});
