// Builds the three bundles (and, with --tests, the integration suite that runs inside VS Code).
// Usage: node esbuild.mjs [--watch] [--production] [--tests]
import * as esbuild from 'esbuild';
import { readdirSync, rmSync } from 'node:fs';

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

const builds = [
  { ...common, entryPoints: ['src/extension/extension.ts'], outfile: 'dist/extension.js', platform: 'node', format: 'cjs', external: ['vscode'], ...cjsImportMeta },
  { ...common, entryPoints: ['src/webview/main.ts'], outfile: 'dist/webview.js', platform: 'browser', format: 'iife' },
  { ...common, entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli.js', platform: 'node', format: 'cjs', ...cjsImportMeta, banner: { js: `#!/usr/bin/env node\n${cjsImportMeta.banner.js}` } },
];

if (withTests) {
  // One file per test module so mocha inside the extension host can load them by name.
  rmSync('out/test/integration', { recursive: true, force: true }); // No stale suites from deleted files.
  const entries = readdirSync('test/integration').filter((f) => f.endsWith('.ts')).map((f) => `test/integration/${f}`);
  builds.push({ ...common, entryPoints: entries, outdir: 'out/test/integration', platform: 'node', format: 'cjs', external: ['vscode', 'mocha', '@anthropic-ai/tokenizer'], ...cjsImportMeta });
}

if (watch) {
  const contexts = await Promise.all(builds.map((b) => esbuild.context(b)));
  await Promise.all(contexts.map((c) => c.watch()));
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
}
