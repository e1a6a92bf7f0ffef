#!/usr/bin/env node
// `npm start` (after the build): the extension running in a real VS Code 1.100.3 (code-server)
// at http://127.0.0.1:8080, until Ctrl-C.
//
// Opens EVERGREEN_WORKSPACE, else the directory npm was started from (INIT_CWD), else the
// current directory. User data (settings, state) persists in .vscode-test/code-server-user-data.
//
// The extension is loaded as an extension under development through the workbench URL
// (extensionDevelopmentPath payload): it always runs the current dist/ build, whereas a copy
// or link in --extensions-dir is served from VS Code's extension scan cache, which a
// persistent user-data dir keeps stale across manifest changes. So code-server listens on a
// private port and a front door (front-door.mjs) owns 8080: the bare http://127.0.0.1:8080/ a user
// types redirects to that workbench URL, and everything else is passed through.
//
// EVERGREEN_PORT changes the port and EVERGREEN_USER_DATA_DIR the user data (tests use fresh ones).
import { existsSync, statSync } from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { startFrontDoor } from './front-door.mjs';
import { ensureVSCode, REPO_ROOT, VSCODE_VERSION } from './setup-vscode.mjs';
import { startCodeServer, workbenchUrl } from './vscode-harness.mjs';

const PORT = Number(process.env.EVERGREEN_PORT || 8080);
if (!Number.isInteger(PORT) || PORT <= 0 || PORT > 65535) {
  console.error(`[start] EVERGREEN_PORT must be a port number, got "${process.env.EVERGREEN_PORT}"`);
  process.exit(2);
}

function fail(message) {
  console.error(`[start] ${message}`);
  process.exit(1);
}

/** Resolves when 127.0.0.1:port can be bound; code-server itself would only say EADDRINUSE in its log. */
function assertPortFree(port) {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', (err) =>
      fail(
        err.code === 'EADDRINUSE'
          ? `port ${port} on 127.0.0.1 is already in use (another \`npm start\`?). Stop that process first; \`ss -ltnp 'sport = :${port}'\` shows which one.`
          : `cannot bind 127.0.0.1:${port}: ${err.message}`,
      ),
    );
    probe.listen(port, '127.0.0.1', () => probe.close(resolve));
  });
}

const folder = path.resolve(process.env.EVERGREEN_WORKSPACE || process.env.INIT_CWD || process.cwd());
if (!existsSync(folder) || !statSync(folder).isDirectory()) fail(`workspace folder ${folder} does not exist`);
if (!existsSync(path.join(REPO_ROOT, 'dist', 'extension.js'))) fail('dist/extension.js is missing: build first with `node esbuild.mjs`');

await ensureVSCode();
await assertPortFree(PORT);
const server = await startCodeServer({
  folder,
  port: 0,
  userDataDir: process.env.EVERGREEN_USER_DATA_DIR || path.join(REPO_ROOT, '.vscode-test', 'code-server-user-data'),
  onOutput: (line) => console.log(`[code-server] ${line}`),
}).catch((err) => fail(err.message));

const publicUrl = `http://127.0.0.1:${PORT}`;
// The workbench URL names its own origin in the payload (vscode-remote://host:port/…): build it for the public port.
const landing = workbenchUrl(publicUrl, { folder, extensionDevelopmentPath: REPO_ROOT }).slice(publicUrl.length);
await startFrontDoor({ port: PORT, target: new URL(server.url).port, landing, log: (line) => console.log(`[start] ${line}`) }).catch((err) =>
  fail(`cannot listen on 127.0.0.1:${PORT}: ${err.message}`),
);
console.log(`\nEvergreen is running in VS Code ${VSCODE_VERSION}: open ${publicUrl}/ in your browser\n`);
console.log(`Workspace: ${folder}. Press Ctrl-C to stop.\n`);

// The harness stops code-server on Ctrl-C/SIGTERM and exits; until then, stay in the foreground.
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    stopping = true;
    console.log('\n[start] stopping VS Code...');
  });
}
server.exited.then((info) => {
  if (!stopping) fail(`code-server exited unexpectedly (${info})\n${server.logTail()}`);
});
