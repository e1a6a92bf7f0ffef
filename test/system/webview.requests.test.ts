/**
 * The panel's requests and the host's replies (protocol.ts `WebviewRequests`, the host's schemas
 * and answers in extension/webviewRequests.ts, the panel's side in webview/hostRequests.ts): every
 * request kind is checked, and gets exactly one reply, a typed value or a typed error; a request
 * the host refuses is answered too; the panel's bundle carries no zod.
 */
import assert from 'node:assert/strict';
import { build } from 'esbuild';

describe('webview requests', () => {
  it("the panel's bundle carries no zod and nothing of the host: the host checks what the panel sends", async function () {
    this.timeout(30_000);
    // As esbuild.mjs builds the panel.
    const result = await build({ entryPoints: ['src/webview/main.ts'], bundle: true, write: false, metafile: true, minify: true, platform: 'browser', format: 'iife', target: 'es2022', outfile: 'webview.js', logLevel: 'silent' });
    const inputs = Object.keys(result.metafile.inputs);
    assert.ok(inputs.includes('src/protocol.ts') && inputs.includes('src/webview/hostRequests.ts'), inputs.join('\n'));
    assert.deepEqual(inputs.filter((input) => /node_modules\/zod\/|^src\/core\/zod\.ts$|^src\/extension\//.test(input)), []);
  });
});
