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
// persistent user-data dir keeps stale across manifest changes. Hence the exact URL printed
// below: the bare http://127.0.0.1:8080/ opens VS Code without the extension.
import { existsSync, statSync } from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { ensureVSCode, REPO_ROOT, VSCODE_VERSION } from './setup-vscode.mjs';
import { startCodeServer, workbenchUrl } from './vscode-harness.mjs';

const PORT = 8080;

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
  port: PORT,
  userDataDir: path.join(REPO_ROOT, '.vscode-test', 'code-server-user-data'),
  onOutput: (line) => console.log(`[code-server] ${line}`),
}).catch((err) => fail(err.message));

const url = workbenchUrl(server.url, { folder, extensionDevelopmentPath: REPO_ROOT });
console.log(`\nEvergreen is running in VS Code ${VSCODE_VERSION} at ${url}\n`);
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
