// Builds the bundles (and, with --tests, the integration suite that runs inside VS Code):
// - dist/extension.js: both Node front ends over one copy of the core (src/nodeEntry.ts): VS Code
//   loads it as the extension; dist/cli.js is the CLI's launcher, which runs the CLI from it.
// - dist/imageWorker.js: the worker thread that resizes an attached image, with the decoders
//   (src/core/model/imageResizeWorker.ts; found next to the bundle that starts it).
// - dist/htmlWorker.js: the worker thread that turns a fetched page into markdown, with the HTML
//   parser and converters (src/core/web/htmlWorker.ts; core/workerTask.ts finds it next to the
//   bundle that starts it, so the main bundle does not carry those libraries).
// - dist/webview.js: the chat panel (browser).
// - dist/insights.js: the session insights panel (browser).
// - dist/transcript.js: the rendered archived transcript's click handler (browser).
// Usage: node esbuild.mjs [--watch] [--production] [--tests]
import * as esbuild from 'esbuild';
import { chmodSync, copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';

const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');
const withTests = process.argv.includes('--tests');

const common = {
  bundle: true,
  sourcemap: !production,
  minify: production,
  logLevel: 'info',
  target: 'es2022',
};

// Some ESM dependencies (fdir, via tinyglobby) call createRequire(import.meta.url); in a CJS
// bundle import.meta is empty, so give it the bundle's own file URL.
const cjsImportMeta = {
  define: { 'import.meta.url': '__evergreenImportMetaUrl' },
  banner: { js: "const __evergreenImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
};

// jsonc-parser's main entry is a UMD file whose require('./impl/format') no bundler can follow;
// its ES module build is the same code, bundled whole.
// Turndown's browser build is the same converter without its own DOM (domino, 230 KB): the web
// layer hands it linkedom's nodes. linkedom's CSS object model is only built for a <style>'s
// `.sheet`, which nothing reads (scripts/stubs/cssomnom-parse.cjs). node-forge only makes the
// certificate authority of the sandbox library's TLS termination, which Evergreen never turns on
// (scripts/stubs/node-forge.cjs; 300 KB).
// The sandbox library's Windows back ends are left out the same way (scripts/stubs/sandbox-windows.mjs):
// Windows commands are not sandboxed.
const sandboxWithoutWindows = {
  name: 'sandbox-without-windows',
  setup(build) {
    build.onResolve({ filter: /^\.\/(sandbox\/)?(windows|mxc)-sandbox-utils\.js$/ }, (args) =>
      args.importer.includes('@anthropic-ai/sandbox-runtime') ? { path: new URL('./scripts/stubs/sandbox-windows.mjs', import.meta.url).pathname } : undefined,
    );
  },
};
const nodeAliases = {
  plugins: [sandboxWithoutWindows],
  alias: {
    'jsonc-parser': 'jsonc-parser/lib/esm/main.js',
    turndown: 'turndown/lib/turndown.browser.cjs.js',
    'cssomnom/parse': './scripts/stubs/cssomnom-parse.cjs',
    'node-forge': './scripts/stubs/node-forge.cjs',
  },
};

// tsx: only code run from the sources (tests) starts a worker through it, never a bundle.
const builds = [
  { ...common, entryPoints: ['src/nodeEntry.ts'], outfile: 'dist/extension.js', platform: 'node', format: 'cjs', external: ['vscode', 'tsx/cjs'], ...cjsImportMeta, ...nodeAliases },
  { ...common, entryPoints: ['src/core/model/imageResizeWorker.ts'], outfile: 'dist/imageWorker.js', platform: 'node', format: 'cjs', external: ['tsx/cjs'] },
  { ...common, entryPoints: ['src/core/web/htmlWorker.ts'], outfile: 'dist/htmlWorker.js', platform: 'node', format: 'cjs', external: ['tsx/cjs'], ...cjsImportMeta, ...nodeAliases },
  { ...common, entryPoints: ['src/webview/main.ts'], outfile: 'dist/webview.js', platform: 'browser', format: 'iife' },
  // The session insights panel (issue 33): its own page, drawn from the data as SVG.
  { ...common, entryPoints: ['src/webview/insights/main.ts'], outfile: 'dist/insights.js', platform: 'browser', format: 'iife' },
  // The rendered archived transcript: the host renders the page; this script only forwards clicks.
  { ...common, entryPoints: ['src/webview/transcript/main.ts'], outfile: 'dist/transcript.js', platform: 'browser', format: 'iife' },
];

// The CLI (package.json's `bin`, `node dist/cli.js`): the bundle above, run as the command line.
mkdirSync('dist', { recursive: true });
writeFileSync('dist/cli.js', "#!/usr/bin/env node\n// The Evergreen CLI: its code is in extension.js, with the extension's (esbuild.mjs).\nrequire('./extension.js').runCli();\n");
chmodSync('dist/cli.js', 0o755);

if (withTests) {
  // One file per test module so mocha inside the extension host can load them by name.
  rmSync('out/test/integration', { recursive: true, force: true }); // No stale suites from deleted files.
  const entries = readdirSync('test/integration').filter((f) => f.endsWith('.ts')).map((f) => `test/integration/${f}`);
  builds.push({ ...common, entryPoints: entries, outdir: 'out/test/integration', platform: 'node', format: 'cjs', external: ['vscode', 'mocha', '@anthropic-ai/tokenizer', 'tsx/cjs'], ...cjsImportMeta, ...nodeAliases });
}

// The sandbox library is bundled into extension.js; it finds its helper binaries in
// vendor/ next to the file that holds it (the seccomp filter that stops sandboxed commands from
// opening Unix sockets, the JVM proxy agent). Its Windows helper is left out: Windows commands are
// not sandboxed (the session says so and asks every time).
const SANDBOX_VENDOR = ['seccomp/x64/apply-seccomp', 'seccomp/arm64/apply-seccomp', 'java-proxy-agent/srt-proxy-agent.jar'];
for (const file of SANDBOX_VENDOR) {
  const target = `dist/vendor/${file}`;
  mkdirSync(target.slice(0, target.lastIndexOf('/')), { recursive: true });
  copyFileSync(`node_modules/@anthropic-ai/sandbox-runtime/vendor/${file}`, target);
  if (!file.endsWith('.jar')) chmodSync(target, 0o755);
}

if (watch) {
  const contexts = await Promise.all(builds.map((b) => esbuild.context(b)));
  await Promise.all(contexts.map((c) => c.watch()));
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
}
