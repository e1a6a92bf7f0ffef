/**
 * `npm run generate:l10n`: writes l10n/bundle.l10n.json from the sources (scripts/l10n.ts). `--check`
 * writes nothing and exits 1 when the committed bundle differs.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { GENERATE_L10N_COMMAND, L10N_BUNDLE, renderL10nBundle } from './l10n';

async function main(): Promise<void> {
  const root = path.resolve(__dirname, '..');
  const target = path.join(root, L10N_BUNDLE);
  const content = await renderL10nBundle(root);
  const current = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : undefined;
  if (current === content) {
    console.log(`${L10N_BUNDLE} is up to date`);
    return;
  }
  if (process.argv.includes('--check')) {
    console.error(`stale: ${L10N_BUNDLE}; run \`${GENERATE_L10N_COMMAND}\``);
    process.exit(1);
  }
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(target, content);
  console.log(`wrote ${L10N_BUNDLE}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
