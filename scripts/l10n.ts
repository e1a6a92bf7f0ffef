/**
 * The English message bundle, l10n/bundle.l10n.json (issue 27 item 6): every `vscode.l10n.t('…')`
 * in src/extension and `l10n.t('…')` in src/frontends, as @vscode/l10n-dev's `export` finds them,
 * the chat panel's words (WEBVIEW_STRINGS in src/protocolStrings.ts) and the templates of the core's
 * kinds (src/frontends/words), which are passed to `l10n.t` by value, so no scan could see them. A language is `l10n/bundle.l10n.<locale>.json` with the same keys.
 *
 * `npm run generate:l10n` writes it (scripts/generate-l10n.ts, `--check` to only compare);
 * test/unit/l10n.bundle.test.ts fails while the committed bundle differs from what this renders.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { getL10nJson } from '@vscode/l10n-dev';
import { WEBVIEW_STRINGS } from '../src/protocol';
import { userTextTemplates } from '../src/frontends/words';

export const L10N_BUNDLE = 'l10n/bundle.l10n.json';
export const GENERATE_L10N_COMMAND = 'npm run generate:l10n';

/**
 * The layers that word things: src/extension with `vscode.l10n.t`, src/frontends (shared with the
 * CLI, so without `vscode`) with @vscode/l10n's `l10n.t`, which the extension points at the same bundle.
 */
const SOURCE_DIRS = ['src/extension', 'src/frontends'];

function sourceFiles(root: string): string[] {
  return SOURCE_DIRS.flatMap((sourceDir) => {
    const dir = path.join(root, sourceDir);
    return fs
      .readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.ts'))
      .sort()
      .map((name) => path.join(dir, name));
  });
}

/** The bundle's text as it should be committed: keys sorted, so a moved call changes nothing. */
export async function renderL10nBundle(root: string): Promise<string> {
  const found = await getL10nJson(sourceFiles(root).map((file) => ({ extension: '.ts', contents: fs.readFileSync(file, 'utf8') })));
  const bundle: Record<string, unknown> = { ...found };
  for (const english of Object.values(WEBVIEW_STRINGS)) bundle[english] ??= english;
  // What the core says as kinds (src/core/userText.ts): each kind's template, passed to l10n.t by value.
  for (const english of userTextTemplates()) bundle[english] ??= english;
  const sorted = Object.fromEntries(Object.keys(bundle).sort().map((key) => [key, bundle[key]]));
  return `${JSON.stringify(sorted, null, 2)}\n`;
}
