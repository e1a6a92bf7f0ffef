import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { isProcessAlive } from '../../src/core/shell/processGroup';
import { createToolRegistry } from '../../src/core/tools/registry';
import { makeContext, makeTempDirs, type TempDirs } from '../support/toolFixtures';

function childPid(text: string): number {
  const match = /CHILD=(\d+)/.exec(text);
  assert.ok(match?.[1], `no CHILD=pid in ${JSON.stringify(text)}`);
  return Number(match[1]);
}

describe('tools run_shell', function () {
  this.timeout(20_000);
  let dirs: TempDirs;
  const registry = createToolRegistry({ trusted: true, shell: { killGraceMs: 300 } });
  beforeEach(() => {
    dirs = makeTempDirs();
  });
  afterEach(() => dirs.cleanup());

  it('runs bash in the workspace root, streams output, reports the exit code', async () => {
    const ctx = makeContext(dirs.workspace);
    const result = await registry.executeToolCall('run_shell', { command: 'pwd; echo to-stdout; echo to-stderr >&2; exit 3', description: 'demo' }, ctx);
    assert.match(result.content, /^Exit code: 3\n/);
    assert.ok(result.content.includes(dirs.root));
    assert.match(result.content, /to-stdout/);
    assert.match(result.content, /to-stderr/);
    assert.equal(result.isError, true);
    assert.match(ctx.progress.join(''), /to-stdout/);
    assert.deepEqual(ctx.approvals, [{ kind: 'shell', command: 'pwd; echo to-stdout; echo to-stderr >&2; exit 3', description: 'demo', isolation: 'disabled' }]);
    const ok = await registry.executeToolCall('run_shell', { command: 'true' }, makeContext(dirs.workspace));
    assert.equal(ok.content, 'Exit code: 0\n(no output)');
    assert.ok(!ok.isError);
  });

  it('asks first; a declined command does not run', async () => {
    const ctx = makeContext(dirs.workspace, { decide: () => ({ approved: false, reason: 'too risky' }) });
    const result = await registry.executeToolCall('run_shell', { command: 'touch ran.txt' }, ctx);
    assert.ok(!result.isError);
    assert.match(result.content, /declined.*not executed.*too risky/);
    assert.equal(existsSync(path.join(dirs.root, 'ran.txt')), false);
  });

  it('a command that never ends times out and the whole tree is killed, background child included', async () => {
    const started = Date.now();
    const result = await registry.executeToolCall('run_shell', { command: 'sleep 1000 & echo CHILD=$!; wait', timeout_ms: 500 }, makeContext(dirs.workspace));
    assert.equal(result.isError, true);
    assert.match(result.content, /timed out after 500 ms/);
    const pid = childPid(result.content);
    assert.equal(await isProcessAlive(pid), false, `background child ${pid} survived`);
    assert.ok(Date.now() - started < 10_000);
  });

  it('escalates to SIGKILL when the tree ignores SIGTERM', async () => {
    const command = "trap '' TERM; sleep 1000 & echo CHILD=$!; while :; do sleep 0.05; done";
    const result = await registry.executeToolCall('run_shell', { command, timeout_ms: 300 }, makeContext(dirs.workspace));
    assert.match(result.content, /timed out after 300 ms/);
    assert.equal(await isProcessAlive(childPid(result.content)), false);
  });

  it('a busy loop without output also ends', async () => {
    const result = await registry.executeToolCall('run_shell', { command: 'while true; do :; done', timeout_ms: 300 }, makeContext(dirs.workspace));
    assert.match(result.content, /timed out/);
  });

  it('cancel via the AbortSignal kills the tree and returns a cancelled result', async () => {
    const ctx = makeContext(dirs.workspace);
    const origProgress = ctx.onProgress;
    ctx.onProgress = (chunk) => {
      origProgress(chunk);
      if (/CHILD=\d+/.test(ctx.progress.join(''))) setTimeout(() => ctx.controller.abort(), 50);
    };
    const result = await registry.executeToolCall('run_shell', { command: 'sleep 1000 & echo CHILD=$!; wait' }, ctx);
    assert.equal(result.cancelled, true);
    assert.equal(result.isError, true);
    assert.match(result.content, /cancelled/);
    assert.equal(await isProcessAlive(childPid(ctx.progress.join(''))), false);
  });

  it('already-cancelled signal: nothing runs', async () => {
    const ctx = makeContext(dirs.workspace);
    ctx.controller.abort();
    const result = await registry.executeToolCall('run_shell', { command: 'touch ran.txt' }, ctx);
    assert.equal(result.cancelled, true);
    assert.equal(existsSync(path.join(dirs.root, 'ran.txt')), false);
    assert.equal(ctx.approvals.length, 0);
  });

  it('background jobs left behind are terminated when the command finishes', async () => {
    const result = await registry.executeToolCall('run_shell', { command: 'sleep 1000 >/dev/null 2>&1 & echo CHILD=$!' }, makeContext(dirs.workspace));
    assert.match(result.content, /^Exit code: 0/);
    assert.equal(await isProcessAlive(childPid(result.content)), false);
  });

  it('caps the output, keeping head and tail with a marker', async () => {
    const small = createToolRegistry({ trusted: true, shell: { maxOutputChars: 2000 } });
    const ctx = makeContext(dirs.workspace);
    const result = await small.executeToolCall('run_shell', { command: 'seq 1 100000' }, ctx);
    assert.ok(result.content.length < 2300, String(result.content.length));
    assert.match(result.content, /^Exit code: 0\n1\n2\n3\n/);
    assert.match(result.content, /characters omitted/);
    assert.match(result.content, /\n99999\n100000$/);
    assert.ok(ctx.progress.join('').endsWith('100000\n'), 'the UI still gets the full stream');
  });

  it('rejects bad timeouts clearly', async () => {
    for (const timeout_ms of [0, 600_001, 1.5, '100']) {
      const result = await registry.executeToolCall('run_shell', { command: 'true', timeout_ms }, makeContext(dirs.workspace));
      assert.equal(result.isError, true);
      assert.match(result.content, /Invalid input for run_shell: Parameter "timeout_ms"/);
    }
  });
});
