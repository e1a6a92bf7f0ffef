/**
 * `npm run generate:manifest`: writes package.json's generated parts, package.nls.json and the
 * settings reference's tables (docs/settings.md) from the tables (scripts/manifest.ts says which). `--check` writes
 * nothing and exits 1 when a committed file differs, naming it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { GENERATE_COMMAND, renderManifestFiles } from './manifest';

const root = path.resolve(__dirname, '..');
const check = process.argv.includes('--check');
const stale: string[] = [];
for (const file of renderManifestFiles(root)) {
  const target = path.join(root, file.path);
  const current = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : undefined;
  if (current === file.content) continue;
  stale.push(file.path);
  if (!check) fs.writeFileSync(target, file.content);
}
if (check && stale.length > 0) {
  console.error(`stale: ${stale.join(', ')}; run \`${GENERATE_COMMAND}\``);
  process.exit(1);
}
console.log(stale.length === 0 ? 'generated files are up to date' : `${check ? 'stale' : 'wrote'}: ${stale.join(', ')}`);
