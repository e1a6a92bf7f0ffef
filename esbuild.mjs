// Builds the three bundles (and, with --tests, the integration suite that runs inside VS Code).
// Usage: node esbuild.mjs [--watch] [--production] [--tests]
import * as esbuild from 'esbuild';
import { readdirSync } from 'node:fs';

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

const builds = [
  { ...common, entryPoints: ['src/extension/extension.ts'], outfile: 'dist/extension.js', platform: 'node', format: 'cjs', external: ['vscode'] },
  { ...common, entryPoints: ['src/webview/main.ts'], outfile: 'dist/webview.js', platform: 'browser', format: 'iife' },
  { ...common, entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli.js', platform: 'node', format: 'cjs', banner: { js: '#!/usr/bin/env node' } },
];

if (withTests) {
  // One file per test module so mocha inside the extension host can load them by name.
  const entries = readdirSync('test/integration').filter((f) => f.endsWith('.ts')).map((f) => `test/integration/${f}`);
  builds.push({ ...common, entryPoints: entries, outdir: 'out/test/integration', platform: 'node', format: 'cjs', external: ['vscode', 'mocha'] });
}

if (watch) {
  const contexts = await Promise.all(builds.map((b) => esbuild.context(b)));
  await Promise.all(contexts.map((c) => c.watch()));
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
}
