import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { reply, startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic/server';
import { pngBytes } from '../support/images';
import { useTempDirs } from '../support/tempDirs';
import { startWebServer } from '../support/webServer';

// The bundle is what users run: esbuild's CJS output can break where the TS sources work
// (an ESM dependency reading import.meta.url did once). `npm test` builds before this suite.
// dist/cli.js is a launcher: the CLI's code is in dist/extension.js, with the extension's (esbuild.mjs).
describe('dist/cli.js bundle', () => {
  const temp = useTempDirs();

  it('starts and prints its usage', function () {
    this.timeout(20_000);
    assert.ok(fs.existsSync('dist/cli.js'), 'dist/cli.js is missing: run `npm run build` first');
    const run = spawnSync(process.execPath, ['dist/cli.js', '--help'], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^Usage: evergreen \[options\]/);
  });

  it('fails a bad flag with exit 2 and the usage', () => {
    const run = spawnSync(process.execPath, ['dist/cli.js', '--frobnicate'], { encoding: 'utf8' });
    assert.equal(run.status, 2);
    assert.match(run.stderr, /^evergreen: Unknown option '--frobnicate'/);
  });

  it('runs a shell command in the sandbox from the bundle (the library and its seccomp helper found next to cli.js)', async function () {
    this.timeout(60_000);
    if (process.platform !== 'linux') this.skip();
    const fake = await startFakeAnthropic();
    const base = temp.make('evergreen-bundle-sandbox-');
    const workspace = path.join(base, 'ws');
    const outside = path.join(base, 'outside.txt');
    fs.mkdirSync(workspace);
    try {
      fake.setModel('claude-sonnet-4-6', { max_input_tokens: 200_000, max_tokens: 64_000 });
      fake.enqueue(reply.toolUse('run_shell', { command: `echo in > inside.txt; echo out > '${outside}'` }), reply.text('done'));
      const { code, stderr } = await runBundled(fake, base, workspace, ['-p', 'write both']);
      assert.equal(code, 0, stderr);
      assert.doesNotMatch(stderr, /sandbox cannot run/, stderr);
      assert.equal(fs.readFileSync(path.join(workspace, 'inside.txt'), 'utf8'), 'in\n');
      assert.equal(fs.existsSync(outside), false, 'the bundled CLI ran the command unconfined');
    } finally {
      await fake.close();
    }
  });

  it('talks to an MCP server from the bundle (the SDK, jsonc-parser and ajv bundled into extension.js)', async function () {
    this.timeout(60_000);
    const fake = await startFakeAnthropic();
    const base = temp.make('evergreen-bundle-mcp-');
    const workspace = path.join(base, 'ws');
    fs.mkdirSync(workspace);
    // A comment: VS Code's format allows them, which plain JSON.parse would refuse.
    fs.writeFileSync(path.join(workspace, '.mcp.json'), `{ // the repository's server\n "servers": { "everything": { "type": "stdio", "command": ${JSON.stringify(process.execPath)}, "args": [${JSON.stringify(require.resolve('@modelcontextprotocol/server-everything/dist/index.js'))}, "stdio"] } } }`);
    try {
      fake.setModel('claude-sonnet-4-6', { max_input_tokens: 200_000, max_tokens: 64_000 });
      fake.enqueue(reply.toolUse('mcp__everything__echo', { message: 'from the bundle' }), reply.text('done'));
      const { code, stderr } = await runBundled(fake, base, workspace, ['--trust-workspace-mcp', '-p', 'echo']);
      assert.equal(code, 0, stderr);
      const answered = JSON.stringify(fake.requests.at(-1)?.body ?? '');
      // The server's own words, not the model's input echoed back in its tool_use.
      assert.match(answered, /Echo: from the bundle/, stderr);
    } finally {
      await fake.close();
    }
  });

  it('turns a fetched HTML page into markdown from the bundle (its worker, dist/htmlWorker.js, found next to cli.js)', async function () {
    this.timeout(60_000);
    const fake = await startFakeAnthropic();
    const site = await startWebServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><html><head><title>Guide</title><script>var tracking = 1;</script></head><body><nav>Home</nav><main><article><h1>The guide</h1><h2>Retries</h2><p>${'Each call retries three times before it gives up. '.repeat(20)}</p></article></main></body></html>`);
    });
    const base = temp.make('evergreen-bundle-web-');
    const workspace = path.join(base, 'ws');
    fs.mkdirSync(workspace);
    try {
      fake.setModel('claude-sonnet-4-6', { max_input_tokens: 200_000, max_tokens: 64_000 });
      fake.enqueue(reply.toolUse('web_fetch', { url: `${site.origin}/guide.html` }), reply.text('done'));
      const { code, stderr } = await runBundled(fake, base, workspace, ['--allow-web', '127.0.0.1', '-p', 'read the guide']);
      assert.equal(code, 0, stderr);
      const answered = JSON.stringify(fake.requests.at(-1)?.body ?? '');
      assert.match(answered, /## Retries\\n\\nEach call retries three times/, answered.slice(-1500));
      assert.doesNotMatch(answered, /tracking/);
    } finally {
      await fake.close();
      await site.close();
    }
  });
});

describe("what the bundle leaves out of its dependencies (esbuild.mjs's aliases)", () => {
  it('node-forge: the sandbox library loads with the stub in its place, and using it says why it is not there', () => {
    // The sandbox library reads these when it loads (mitm-ca.js, mitm-leaf.js): no throw.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const forge = require('../../scripts/stubs/node-forge.cjs') as { pki: { getTBSCertificate: unknown; createCertificate(): unknown }; asn1: { Class: unknown } };
    const { pki, asn1 } = forge;
    assert.ok(pki.getTBSCertificate !== undefined && asn1.Class !== undefined);
    assert.throws(() => pki.createCertificate(), /node-forge is not in this build: the sandbox's TLS termination is not used by Evergreen/);
    assert.ok(!fs.readFileSync('dist/extension.js', 'utf8').includes('PKCS#12 MAC could not be verified'), 'node-forge itself (its PKCS#12 code) is not bundled');
  });

  it("the sandbox library's Windows back ends: the constants and error class it reads elsewhere keep their values, their functions say why they are not there", async () => {
    const windows = await import('../../scripts/stubs/sandbox-windows.mjs');
    assert.deepEqual(windows.DEFAULT_WINDOWS_PROXY_PORT_RANGE, [60080, 60089]);
    const error = new windows.WindowsSandboxError('not_provisioned', 'x');
    assert.ok(error instanceof Error && error.code === 'not_provisioned' && error.name === 'WindowsSandboxError');
    assert.throws(() => windows.wrapCommandWithSandboxWindows(), /wrapCommandWithSandboxWindows: the sandbox library's Windows support is not in this build/);
    // Its own text (the loopback warning of windows-sandbox-utils.js) is not in the bundle; the bundle's sandboxed command above ran.
    assert.ok(!fs.readFileSync('dist/extension.js', 'utf8').includes('Loopback is open: sandboxed commands can connect'), 'the Windows back end itself is not bundled');
  });
});

describe('dist/imageWorker.js', () => {
  const temp = useTempDirs();

  it('resizes an image attached to the bundled CLI in its worker, found next to the bundle', async function () {
    this.timeout(60_000);
    const fake = await startFakeAnthropic();
    const base = temp.make('evergreen-bundle-image-');
    const workspace = path.join(base, 'ws');
    fs.mkdirSync(workspace);
    fs.writeFileSync(path.join(workspace, 'wide.png'), pngBytes(9000, 60));
    try {
      fake.setModel('claude-sonnet-4-6', { max_input_tokens: 200_000, max_tokens: 64_000 });
      fake.enqueue(reply.text('A wide picture.'));
      const { code, stderr } = await runBundled(fake, base, workspace, ['--image', 'wide.png', '-p', 'Look']);
      assert.equal(code, 0, stderr);
      assert.match(JSON.stringify(fake.requests.at(-1)?.body ?? ''), /\[image: image\/png, 1568x10 px, resized from 9000x60\]/, stderr);
    } finally {
      await fake.close();
    }
  });
});

/** The bundled CLI on `workspace` against the fake API, with --yes: its exit code and stderr. */
async function runBundled(fake: FakeAnthropic, base: string, workspace: string, args: string[]): Promise<{ code: number | null; stderr: string }> {
  const cli = spawn(process.execPath, ['dist/cli.js', '--workspace', workspace, '--storage-dir', path.join(base, 'storage'), '--model', 'claude-sonnet-4-6', '--yes', ...args], {
    env: { PATH: process.env.PATH, HOME: base, ANTHROPIC_API_KEY: fake.apiKey, ANTHROPIC_BASE_URL: fake.url },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  cli.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => cli.once('exit', resolve));
  return { code, stderr };
}
