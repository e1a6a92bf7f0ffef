/**
 * The MCP client against the real reference servers from npm (stdio, offline), and against small
 * servers of our own for the ways a server can fail.
 */
import { strict as assert } from 'node:assert';
import { getEventListeners } from 'node:events';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseMcpConfigValue, type McpServerConfig } from '../../src/core/mcp/config';
import { McpServerConnection } from '../../src/core/mcp/connection';
import { GroupStdioTransport } from '../../src/core/mcp/stdioTransport';
import { McpManager } from '../../src/core/mcp/manager';
import { subagentTools } from '../../src/core/agent/subagents';
import { createToolRegistry } from '../../src/core/tools/registry';
import { mapCallToolResult } from '../../src/core/mcp/results';
import { McpToolNames } from '../../src/core/mcp/names';
import { mcpToolDefinitions } from '../../src/core/mcp/tools';
import type { Logger } from '../../src/core/logger';
import { silentLogger } from '../../src/core/logger';
import { waitFor } from '../support/waitFor';
import { useTempDirs } from '../support/tempDirs';
import { waitForMarked } from '../support/processMarkers';

const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const FILESYSTEM = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');
const logger = silentLogger;

function server(name: string, command: string, args: string[], env: Record<string, string> = {}): McpServerConfig {
  const parsed = parseMcpConfigValue({ [name]: { command, args, env } }, { scope: 'user', source: 'test' }, { env: {} }, { bare: true });
  assert.equal(parsed.problems.length, 0, JSON.stringify(parsed.problems));
  return parsed.servers[0]!;
}

/** A tiny server of ours (a script file run by node), for failure cases the reference servers do not show. */
function scriptServer(dir: string, name: string, body: string): McpServerConfig {
  const file = path.join(dir, `${name}.mjs`);
  fs.writeFileSync(file, body);
  return server(name, process.execPath, [file]);
}

describe('MCP servers (real ones from npm, over stdio)', function () {
  this.timeout(60_000);
  const temp = useTempDirs();
  let dir: string;
  const open: McpServerConnection[] = [];
  const connect = (config: McpServerConfig, options: Partial<ConstructorParameters<typeof McpServerConnection>[1]> = {}) => {
    const connection = new McpServerConnection(config, { logger, clientVersion: 'test', ...options });
    open.push(connection);
    return connection;
  };
  beforeEach(() => {
    dir = temp.make('evergreen-mcp-');
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((connection) => connection.stop()));
  });

  it('server-everything: lists its tools and maps text, images, resources and structured content', async () => {
    const everything = connect(server('everything', process.execPath, [EVERYTHING, 'stdio']));
    const tools = await everything.start();
    const names = tools.map((tool) => tool.name);
    for (const expected of ['echo', 'get-sum', 'get-tiny-image', 'get-structured-content', 'get-resource-links']) assert.ok(names.includes(expected), names.join(', '));
    assert.equal(everything.state.kind, 'ready');
    const signal = new AbortController().signal;

    const echo = await mapCallToolResult(await everything.callTool('echo', { message: 'hello ünïcode' }, signal), 'toolu_1', dir);
    assert.equal(echo.isError, false);
    assert.match(echo.text, /hello ünïcode/);

    const tiny = await everything.callTool('get-tiny-image', {}, signal);
    const image = await mapCallToolResult(tiny, 'toolu_2', dir);
    assert.equal(image.savedFiles.length, 1);
    assert.match(image.text, /\[image: image\/png, .*saved to .*; 20x20 px; shown to the model as an image\]/);
    assert.deepEqual([...fs.readFileSync(image.savedFiles[0]!).subarray(1, 4)], [...Buffer.from('PNG')], 'the saved file is the PNG itself');
    const sent = tiny.content.find((part) => part.type === 'image');
    assert.ok(sent?.type === 'image');
    assert.deepEqual(image.images, [{ mediaType: 'image/png', data: sent.data }], 'the image goes to the model as it came');

    const structured = await everything.callTool('get-structured-content', { location: 'New York' }, signal);
    assert.ok(structured.structuredContent, 'the server returns structured content');
    const mapped = await mapCallToolResult(structured, 'toolu_3', dir);
    assert.ok(mapped.text.includes(String(Object.values(structured.structuredContent)[0])), mapped.text);

    const links = await mapCallToolResult(await everything.callTool('get-resource-links', { count: 2 }, signal), 'toolu_4', dir);
    assert.match(links.text, /\[resource link: /);
  });

  it('server-everything: a long call is cancelled by the signal, and the server keeps working', async () => {
    const everything = connect(server('everything', process.execPath, [EVERYTHING, 'stdio']));
    await everything.start();
    const controller = new AbortController();
    const call = everything.callTool('trigger-long-running-operation', { duration: 30, steps: 30 }, controller.signal);
    setTimeout(() => controller.abort(), 300);
    await assert.rejects(call, /abort|cancel/i);
    const echo = await everything.callTool('echo', { message: 'still here' }, new AbortController().signal);
    assert.match(JSON.stringify(echo.content), /still here/);
  });

  it("server-everything: the calls of one turn leave no listener on the turn's signal", async () => {
    const everything = connect(server('everything', process.execPath, [EVERYTHING, 'stdio']));
    await everything.start();
    const turn = new AbortController();
    for (let call = 0; call < 12; call++) await everything.callTool('echo', { message: `call ${call}` }, turn.signal);
    await assert.rejects(everything.callTool('echo', { message: 'too late' }, AbortSignal.abort()), /abort/i);
    assert.equal(getEventListeners(turn.signal, 'abort').length, 0);
  });

  it('server-everything: a call that outlives its timeout fails with a clear error', async () => {
    const everything = connect(server('everything', process.execPath, [EVERYTHING, 'stdio']), { callTimeoutMs: 300 });
    await everything.start();
    await assert.rejects(everything.callTool('trigger-long-running-operation', { duration: 10, steps: 5 }, new AbortController().signal), /timed out|timeout/i);
  });

  it('server-filesystem: a 3 MB file comes back whole', async () => {
    const big = path.join(dir, 'big.txt');
    const line = 'the quick brown fox jumps over the lazy dog 0123456789\n';
    fs.writeFileSync(big, line.repeat(Math.ceil((3 * 1024 * 1024) / line.length)));
    const files = connect(server('files', process.execPath, [FILESYSTEM, dir]));
    const tools = await files.start();
    const read = tools.find((tool) => tool.name === 'read_text_file') ?? tools.find((tool) => tool.name === 'read_file');
    assert.ok(read, tools.map((tool) => tool.name).join(', '));
    const result = await mapCallToolResult(await files.callTool(read.name, { path: big }, new AbortController().signal), 'toolu_5', dir);
    assert.equal(result.isError, false, result.text.slice(0, 300));
    assert.equal(result.text, fs.readFileSync(big, 'utf8'));
  });

  it('stop ends the whole process tree, also what the server started', async () => {
    // The server may run in a PID namespace, where the pids it sees are not this machine's: its
    // child is found in /proc by a marker as its argv[0].
    const marker = `evergreen-mcp-child-${process.pid}-${Date.now()}`;
    const config = scriptServer(
      dir,
      'parent',
      `import { spawn } from 'node:child_process';
       spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore', argv0: ${JSON.stringify(marker)} });
       await import(${JSON.stringify(EVERYTHING)});`,
    );
    const connection = connect(config);
    await connection.start();
    assert.equal((await waitForMarked(marker, 1)).length, 1, "the server's child runs");
    await connection.stop();
    assert.deepEqual(await waitForMarked(marker, 0, 5_000), [], "the server's own child is gone too");
    assert.equal(connection.state.kind, 'stopped');
  });

  it('a command that does not exist, or a server that exits at start, fails with the reason', async () => {
    const missing = connect(server('missing', 'evergreen-no-such-command-xyz', []));
    await assert.rejects(missing.start(), /failed to start: .*ENOENT/);
    assert.equal(missing.state.kind, 'failed');
    const exits = connect(scriptServer(dir, 'exits', `console.error('cannot open the database'); process.exit(3);`));
    await assert.rejects(exits.start(), /failed to start: [\s\S]*cannot open the database/);
  });

  it('a server that never answers initialize times out', async () => {
    const silent = connect(scriptServer(dir, 'silent', `process.stdin.resume(); setInterval(() => {}, 1000);`), { startTimeoutMs: 500 });
    await assert.rejects(silent.start(), /failed to start: .*(timed out|timeout)/i);
    assert.equal(silent.state.kind, 'failed');
  });

  it('a server that prints junk to stdout and floods stderr still works', async () => {
    const noisy = connect(
      scriptServer(
        dir,
        'noisy',
        `console.log('Server v1 ready (not JSON)');
         for (let i = 0; i < 2000; i++) console.error('log line ' + i + ' ' + 'x'.repeat(200));
         process.stderr.write('y'.repeat(100000));
         await import(${JSON.stringify(EVERYTHING)});`,
      ),
    );
    await noisy.start();
    assert.ok(noisy.stderr.length <= 200, `${noisy.stderr.length} lines kept`);
    assert.ok(noisy.stderr.every((line) => line.length <= 4_100));
    const echo = await noisy.callTool('echo', { message: 'ok' }, new AbortController().signal);
    assert.match(JSON.stringify(echo.content), /ok/);
  });

  it('a server that crashes is restarted by the next call; a restart that fails fails that call with the reason', async () => {
    const counter = path.join(dir, 'starts');
    const config = scriptServer(
      dir,
      'crashy',
      `import { appendFileSync, readFileSync } from 'node:fs';
       appendFileSync(${JSON.stringify(counter)}, 'x');
       if (readFileSync(${JSON.stringify(counter)}, 'utf8').length >= 3) { console.error('the port is taken'); process.exit(1); }
       await import(${JSON.stringify(EVERYTHING)});`,
    );
    const crashy = connect(config);
    await crashy.start();
    const kill = () => {
      const pid = (crashy as unknown as { transport?: { pid?: number } }).transport?.pid;
      assert.ok(pid);
      process.kill(-pid, 'SIGKILL');
    };
    kill();
    await waitFor(() => crashy.state.kind === 'failed', { what: 'the server to be marked failed', timeoutMs: 5_000 });
    const echo = await crashy.callTool('echo', { message: 'back' }, new AbortController().signal);
    assert.match(JSON.stringify(echo.content), /back/);
    assert.equal(fs.readFileSync(counter, 'utf8'), 'xx', 'started twice');
    kill();
    await waitFor(() => crashy.state.kind === 'failed', { what: 'the server to be marked failed', timeoutMs: 5_000 });
    await assert.rejects(crashy.callTool('echo', { message: 'again' }, new AbortController().signal), /failed to start: [\s\S]*the port is taken/);
    assert.equal(fs.readFileSync(counter, 'utf8'), 'xxx', 'one restart for that call, not a loop');
  });

  it('a server disabled for the chat answers calls with why; Restart brings it back', async () => {
    const manager = new McpManager([server('everything', process.execPath, [EVERYTHING, 'stdio'])], { logger, clientVersion: 'test', filesDir: dir });
    try {
      await manager.startAll();
      const [echo] = manager.tools([], Number.POSITIVE_INFINITY, 4).tools.filter((tool) => tool.name === 'mcp__everything__echo');
      assert.ok(echo);
      await manager.disable('everything');
      assert.equal(manager.list()[0]!.state.kind, 'disabled');
      const approve = async () => ({ approved: true as const });
      const ctx = { workspace: undefined as never, signal: new AbortController().signal, onProgress: () => undefined, approve };
      await assert.rejects(echo.run({ message: 'hi' }, ctx), /disabled it for this chat/);
      await manager.restart('everything');
      assert.equal(manager.list()[0]!.state.kind, 'ready');
      assert.match((await echo.run({ message: 'back again' }, ctx)).content, /back again/);
    } finally {
      await manager.stopAll();
    }
  });
});

describe('the MCP server list (Evergreen: MCP Servers)', function () {
  this.timeout(60_000);
  const temp = useTempDirs();
  const MANY = path.resolve(__dirname, '../fixtures/mcp/manyTools.mjs');

  it('gives each server its tool count and definition tokens, marks deferral, and Start says whether its tools were offered', async () => {
    const dir = temp.make('evergreen-mcp-list-');
    const late = server('late', process.execPath, [MANY], { MANY_TOOLS: '3' });
    const manager = new McpManager([server('many', process.execPath, [MANY], { MANY_TOOLS: '40' }), late], { logger, clientVersion: 'test', filesDir: dir });
    try {
      // "late" is disabled before the session's start, like a server that was not ready then.
      await manager.disable('late');
      await manager.startAll();
      const { tools, deferred, definitionTokens } = manager.tools([], 500, 4);
      assert.equal(deferred, true);
      assert.deepEqual(tools.map((tool) => tool.name), ['mcp_search', 'mcp_call']);
      const [many, notOffered] = manager.list();
      assert.ok(many && notOffered);
      assert.equal(many.state.kind, 'ready');
      assert.equal(many.tools, 41);
      assert.equal(many.deferred, true);
      // One server offered: its share is the whole (each rounded up on its own).
      assert.equal(many.definitionTokens, definitionTokens);
      assert.ok(many.definitionTokens > 500, String(many.definitionTokens));
      assert.equal(notOffered.state.kind, 'disabled');
      assert.equal(notOffered.tools, 0);
      assert.equal(notOffered.definitionTokens, 0);
      assert.equal(notOffered.deferred, false);

      assert.deepEqual(await manager.start('late'), { offered: false });
      assert.equal(manager.list()[1]!.state.kind, 'ready');
      await manager.disable('many');
      assert.deepEqual(await manager.start('many'), { offered: true });
      assert.equal(manager.list()[0]!.state.kind, 'ready');
      await assert.rejects(manager.start('nobody'), /no MCP server named "nobody"/);
    } finally {
      await manager.stopAll();
    }
  });
});

describe('MCP tools in subagents', () => {
  const temp = useTempDirs();

  it('an explore child gets only the MCP tools on the allow list; a general child gets them all', async () => {
    const dir = temp.make('evergreen-mcp-sub-');
    const manager = new McpManager([server('everything', process.execPath, [EVERYTHING, 'stdio'])], { logger, clientVersion: 'test', filesDir: dir });
    try {
      await manager.startAll();
      const registry = createToolRegistry({ trusted: true, task: true, externalTools: manager.tools([], Number.POSITIVE_INFINITY, 4).tools });
      const names = (agentType: 'explore' | 'general', allow: string[] = []) => subagentTools(registry, agentType, allow).list().map((tool) => tool.name);
      assert.deepEqual(names('explore').filter((name) => name.startsWith('mcp__')), []);
      assert.deepEqual(names('explore', ['mcp__everything__echo']).filter((name) => name.startsWith('mcp__')), ['mcp__everything__echo']);
      assert.ok(names('explore', ['mcp__everything__*']).filter((name) => name.startsWith('mcp__')).length > 3);
      assert.ok(names('general').includes('mcp__everything__get-sum'));
      assert.ok(!names('general').includes('task'));
    } finally {
      await manager.stopAll();
    }
  });
});

describe('MCP messages of any size over stdio', function () {
  this.timeout(60_000);
  const temp = useTempDirs();
  let dir: string;
  beforeEach(() => (dir = temp.make('evergreen-mcp-size-')));

  it('an 11 MB result (over the SDK\'s 10 MB default) comes back whole', async () => {
    const connection = new McpServerConnection(server('big', process.execPath, [path.resolve(__dirname, '../fixtures/mcp/bigResult.mjs')], { BIG_RESULT_MB: '11' }), { logger, clientVersion: 'test' });
    try {
      await connection.start();
      const mapped = await mapCallToolResult(await connection.callTool('dump', {}, new AbortController().signal), 'toolu_big', dir);
      assert.equal(mapped.text.length, 11 * 1024 * 1024 + 3);
      assert.ok(mapped.text.endsWith('END'));
    } finally {
      await connection.stop();
    }
  });

  it('a message over the limit closes the connection with the reason, and nothing throws', async () => {
    const errors: string[] = [];
    let closed = false;
    const transport = new GroupStdioTransport({
      command: process.execPath,
      args: ['-e', `process.stdout.write('{"jsonrpc":"2.0","method":"x","params":{"p":"' + 'y'.repeat(50000) + '"}}\\n'); setInterval(() => {}, 1000);`],
      env: {},
      onStderr: () => undefined,
      maxMessageBytes: 10_000,
    });
    transport.onerror = (error) => errors.push(error.message);
    transport.onclose = () => (closed = true);
    await transport.start();
    await waitFor(() => closed, { what: 'the connection to close' });
    assert.ok(errors.some((message) => /one message larger than \d+ MB .*the connection is closed/.test(message)), errors.join('\n'));
  });
});

const ODD = path.resolve(__dirname, '../fixtures/mcp/oddServer.mjs');

describe('MCP servers that send what they should not (bad input gets a clear error, nothing lost)', function () {
  this.timeout(60_000);
  const temp = useTempDirs();
  let dir: string;
  let warnings: string[];
  let connection: McpServerConnection;
  const recording: Logger = { debug: () => undefined, info: () => undefined, warn: (message) => warnings.push(message), error: (message) => warnings.push(message) };
  const ctx = () => ({ workspace: undefined as never, toolUseId: 'toolu_odd', signal: new AbortController().signal, onProgress: () => undefined, approve: async () => ({ approved: true as const }) });
  beforeEach(async () => {
    dir = temp.make('evergreen-mcp-odd-');
    warnings = [];
    connection = new McpServerConnection(server('odd', process.execPath, [ODD]), { logger: recording, clientVersion: 'test', callTimeoutMs: 20_000 });
  });
  afterEach(async () => {
    await connection.stop();
  });

  const definitions = async () => mcpToolDefinitions(connection, await connection.start(), new McpToolNames([]), { logger: recording, filesDir: dir });

  it('a tool with no input schema is offered with an empty one; a schema no provider takes skips that tool with a logged reason, not the server', async () => {
    const tools = await definitions();
    const names = tools.map((tool) => tool.name);
    assert.ok(names.includes('mcp__odd__no_schema') && names.includes('mcp__odd__images'), names.join(', '));
    assert.ok(!names.includes('mcp__odd__array_schema'));
    assert.ok(warnings.some((line) => /tool "array_schema" is not offered: its input schema is of type "array"/.test(line)), warnings.join('\n'));
    const noSchema = tools.find((tool) => tool.name === 'mcp__odd__no_schema')!;
    assert.deepEqual(noSchema.inputSchema, { type: 'object', properties: {} });
    assert.equal((await noSchema.run({}, ctx())).content, 'no_schema got {}');
    // A schema that lacks its type is fixed rather than refused: the APIs require type "object".
    assert.deepEqual(tools.find((tool) => tool.name === 'mcp__odd__untyped_schema')?.inputSchema, { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] });
  });

  it('malformed results fail their call at once with what is wrong, and the server goes on working', async () => {
    const tools = await definitions();
    const run = (name: string) => tools.find((tool) => tool.name === `mcp__odd__${name}`)!.run({}, ctx());
    const started = Date.now();
    await assert.rejects(run('malformed'), /could not run malformed: its answer is not a valid MCP tool result \(content: .*expected array, received string\)/);
    await assert.rejects(run('malformed_part'), /could not run malformed_part: its answer is not a valid MCP tool result \(content\.0: /);
    await assert.rejects(run('not_an_object'), /could not run not_an_object: .*the server's answer is not valid JSON-RPC/);
    assert.ok(Date.now() - started < 10_000, 'no call waited for its timeout');
    assert.equal(connection.state.kind, 'ready');
    assert.equal((await run('no_schema')).content, 'no_schema got {}');
  });

  it('notifications nobody handles (log, unknown progress, list_changed, unheard-of ones) and a request of its own change nothing', async () => {
    const tools = await definitions();
    const chatty = tools.find((tool) => tool.name === 'mcp__odd__chatty')!;
    assert.equal((await chatty.run({}, ctx())).content, 'chatty answered');
    assert.equal((await chatty.run({}, ctx())).content, 'chatty answered', 'and again');
    assert.equal(connection.state.kind, 'ready');
    assert.ok(warnings.some((line) => /progress notification for an unknown token/.test(line)), 'the odd progress is logged');
  });

  it('images: a mislabelled one goes with the type its bytes have; one over 8000 px and one that is no image are saved and described with why, never sent', async () => {
    const tools = await definitions();
    const result = await tools.find((tool) => tool.name === 'mcp__odd__images')!.run({}, ctx());
    assert.deepEqual(
      result.images?.map((image) => image.mediaType),
      ['image/png', 'image/png'],
    );
    assert.match(result.content, /\[image: image\/png, .*; 30x20 px \(the server called it image\/jpeg\); shown to the model as an image\]/);
    assert.match(result.content, /\[image: image\/png, .*saved to .*; not shown to the model: it is 9000x10 px; the models take at most 8000 px a side\]/);
    assert.match(result.content, /\[image: image\/png, .*saved to .*; not shown to the model: its bytes are not an image Evergreen can read/);
    assert.match(result.content, /12x12 px; shown to the model as an image/);
    assert.equal(fs.readdirSync(dir).length, 4, 'every image is saved, sent or not');
  });
});
