// Issue 26: a stdio MCP server's `setsid` grandchild kept running after the CLI exited. A process
// group cannot hold a process that left for a session of its own; a PID namespace can (its first
// process ends, everything in it ends). Each way the CLI, or any process holding a server, can
// end is tried with a real stdio server that starts such a grandchild, and /proc is checked after.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseMcpConfigValue, type McpServerConfig } from '../../../src/core/mcp/config';
import { McpServerConnection } from '../../../src/core/mcp/connection';
import { GroupStdioTransport } from '../../../src/core/mcp/stdioTransport';
import { silentLogger } from '../../../src/core/logger';
import { pidNamespaceAvailable } from '../../../src/core/shell/processTree';
import { markedProcesses, waitForMarked } from '../../support/processMarkers';
import { reply, startFakeAnthropic, type FakeAnthropic } from '../../fake-anthropic/server';
import { useTempDirs } from '../../support/tempDirs';

const SERVER = path.resolve(__dirname, '../../fixtures/mcp/setsidServer.mjs');
const ROOT = path.resolve(__dirname, '../../..');
const MODEL = 'claude-sonnet-4-6';
let markers = 0;
const newMarker = (label: string) => `evergreen-mcp-gc-${label}-${process.pid}-${++markers}`;

function serverConfig(marker: string, mode: 'serve' | 'fail' = 'serve'): McpServerConfig {
  const parsed = parseMcpConfigValue({ leaky: { command: process.execPath, args: [SERVER], env: { MCP_MARKER: marker, MCP_MODE: mode } } }, { scope: 'user', source: 'test' }, { env: {} }, { bare: true });
  assert.equal(parsed.problems.length, 0, JSON.stringify(parsed.problems));
  return parsed.servers[0]!;
}

/** Whatever a failed test left: killed by pid, never by name. */
async function killMarked(marker: string): Promise<void> {
  for (const pid of [...(await markedProcesses(marker)), ...(await markedProcesses(`${marker}-plain`))]) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

function exitOf(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve({ code: child.exitCode, signal: child.signalCode }) : child.once('exit', (code, signal) => resolve({ code, signal }))));
}

describe('security: an MCP server leaves nothing running (issue 26)', function () {
  this.timeout(90_000);
  const temp = useTempDirs();
  const used: string[] = [];
  const marker = (label: string) => {
    const value = newMarker(label);
    used.push(value);
    return value;
  };
  before(function () {
    if (process.platform !== 'linux') this.skip(); // PID namespaces are Linux's; elsewhere a process group is all there is (README).
  });
  afterEach(async () => {
    for (const value of used.splice(0)) await killMarked(value);
  });

  it('this machine can hold a server in a PID namespace (util-linux setpriv and unshare, user namespaces on)', async () => {
    // Where they are missing (or user namespaces are off) the fallback is a process group: tried below.
    assert.equal(await pidNamespaceAvailable(), true);
  });

  it('stop() ends the server and the grandchild it started with setsid', async () => {
    const gc = marker('stop');
    const connection = new McpServerConnection(serverConfig(gc), { logger: silentLogger, clientVersion: 'test' });
    await connection.start();
    assert.equal((await waitForMarked(gc, 1)).length, 1, 'the grandchild runs');
    assert.equal((await waitForMarked(`${gc}-plain`, 1)).length, 1, 'the plain child runs');
    await connection.stop();
    assert.deepEqual(await waitForMarked(gc, 0, 5_000), [], 'the setsid grandchild outlived stop()');
    assert.deepEqual(await waitForMarked(`${gc}-plain`, 0, 5_000), []);
  });

  it('where no PID namespace can be made, the server leads a process group, and its ordinary children end with it', async () => {
    const gc = marker('fallback');
    const transport = new GroupStdioTransport({
      command: process.execPath,
      args: [SERVER],
      env: { MCP_MARKER: gc },
      onStderr: () => undefined,
      killGraceMs: 500,
      containment: 'process-group',
    });
    await transport.start();
    assert.equal(transport.containment, 'process-group');
    assert.equal((await waitForMarked(`${gc}-plain`, 1)).length, 1);
    await transport.close();
    assert.deepEqual(await waitForMarked(`${gc}-plain`, 0, 5_000), [], "the server's child outlived the group");
    // The setsid grandchild is not: `setsid` forked it and exited, so no parent chain leads to it any
    // more. That is the fallback's documented gap (docs/mcp.md); afterEach ends it by pid.
  });

  it('a server that fails to start takes its grandchild along', async () => {
    const gc = marker('fail');
    const connection = new McpServerConnection(serverConfig(gc, 'fail'), { logger: silentLogger, clientVersion: 'test', startTimeoutMs: 10_000 });
    await assert.rejects(connection.start(), /failed to start: .*cannot open the database/s);
    assert.deepEqual(await waitForMarked(gc, 0, 5_000), [], 'the setsid grandchild outlived the failed start');
  });

  it('SIGKILL of the process holding the server (nothing of it can run) still ends the grandchild', async () => {
    const gc = marker('holder');
    // A process of its own that starts the server and waits: SIGKILL leaves it no handler, no exit hook.
    const script = `
      const { McpServerConnection } = require(${JSON.stringify(path.join(ROOT, 'src/core/mcp/connection.ts'))});
      const { parseMcpConfigValue } = require(${JSON.stringify(path.join(ROOT, 'src/core/mcp/config.ts'))});
      const config = parseMcpConfigValue({ leaky: { command: process.execPath, args: [${JSON.stringify(SERVER)}], env: { MCP_MARKER: ${JSON.stringify(gc)} } } }, { scope: 'user', source: 'test' }, { env: {} }, { bare: true }).servers[0];
      const connection = new McpServerConnection(config, { logger: { debug() {}, info() {}, warn() {}, error() {} }, clientVersion: 'test' });
      connection.start().then(() => process.stdout.write('ready\\n'));
      setInterval(() => {}, 60000);`;
    const holder = spawn(process.execPath, ['--require', 'tsx/cjs', '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    holder.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    holder.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      for (const deadline = Date.now() + 30_000; !output.includes('ready') && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 50));
      assert.match(output, /ready/);
      assert.equal((await waitForMarked(gc, 1)).length, 1);
      holder.kill('SIGKILL');
      await exitOf(holder);
      assert.deepEqual(await waitForMarked(gc, 0, 5_000), [], 'the setsid grandchild outlived its SIGKILLed holder');
    } finally {
      holder.kill('SIGKILL');
    }
  });

  describe('the CLI', () => {
    let fake: FakeAnthropic;
    let workspace: string;
    let storage: string;
    beforeEach(async () => {
      fake = await startFakeAnthropic();
      fake.setModel(MODEL, { max_input_tokens: 200_000, max_tokens: 64_000 });
      workspace = temp.make('evergreen-mcp-gc-ws-');
      storage = temp.make('evergreen-mcp-gc-store-');
    });
    afterEach(async () => {
      await fake.close();
    });

    function startCli(gc: string): { cli: ChildProcess; stderr: () => string } {
      const config = path.join(storage, 'mcp.json');
      fs.writeFileSync(config, JSON.stringify({ mcpServers: { leaky: { command: process.execPath, args: [SERVER], env: { MCP_MARKER: gc } } } }));
      const cli = spawn(process.execPath, ['--require', 'tsx/cjs', 'src/cli/main.ts', '--workspace', workspace, '--storage-dir', storage, '--model', MODEL, '--mcp-config', config, '-p', 'hello'], {
        cwd: ROOT,
        env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: fake.apiKey, ANTHROPIC_BASE_URL: fake.url, HOME: os.tmpdir() },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      cli.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      cli.stdout?.resume();
      return { cli, stderr: () => stderr };
    }

    it('ends the grandchild when a run finishes normally', async () => {
      const gc = marker('cli-done');
      fake.enqueue(reply.text('Hello.'));
      const { cli, stderr } = startCli(gc);
      assert.deepEqual(await exitOf(cli), { code: 0, signal: null }, stderr());
      assert.deepEqual(await waitForMarked(gc, 0, 5_000), [], 'the setsid grandchild outlived the CLI');
    });

    for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGKILL'] as const) {
      it(`ends the grandchild when the CLI gets ${signal} mid-turn`, async () => {
        const gc = marker(`cli-${signal}`);
        // The model never answers: the CLI waits in its turn, the server and its grandchild running.
        fake.enqueue(reply.hang());
        const { cli, stderr } = startCli(gc);
        try {
          assert.equal((await waitForMarked(gc, 1, 30_000)).length, 1, `the grandchild did not start: ${stderr()}`);
          for (const deadline = Date.now() + 10_000; fake.requests.length === 0 && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 50));
          cli.kill(signal);
          // SIGINT cancels the turn cleanly and exits; the others end the process.
          await exitOf(cli);
          assert.deepEqual(await waitForMarked(gc, 0, 8_000), [], `the setsid grandchild outlived ${signal} of the CLI: ${stderr()}`);
        } finally {
          cli.kill('SIGKILL');
        }
      });
    }
  });
});
