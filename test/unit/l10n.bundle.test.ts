/**
 * Localizable (issue 27 item 6): whatever a user reads comes from a file a language can replace.
 * The manifest's words are `%key%` references (package.nls.json); the extension's messages and the
 * panel's words are in l10n/bundle.l10n.json as the sources have them; a translated bundle names
 * only keys that exist, with the same placeholders; and the panel takes the host's table.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { L10N_BUNDLE, renderL10nBundle } from '../../scripts/l10n';
import { jsonForScriptElement } from '../../src/extension/scriptJson';
import { WEBVIEW_STRINGS } from '../../src/protocol';
import { fillPlaceholders, stringsFrom } from '../../src/webview/strings';

const ROOT = path.join(__dirname, '..', '..');
const packageJson = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;

/** The manifest's fields VS Code or the Marketplace show to people. */
const READABLE_FIELDS = new Set([
  'displayName', 'description', 'markdownDescription', 'title', 'shortTitle', 'category', 'name', 'contextualTitle', 'label', 'altText',
  'enumDescriptions', 'markdownEnumDescriptions', 'enumItemLabels', 'patternErrorMessage', 'errorMessage', 'deprecationMessage', 'markdownDeprecationMessage', 'contents',
]);

/** Every readable string under `value`, with where it is. */
function readableStrings(value: unknown, where: string, readable: boolean): Array<{ where: string; text: string }> {
  if (typeof value === 'string') return readable ? [{ where, text: value }] : [];
  if (Array.isArray(value)) return value.flatMap((item, index) => readableStrings(item, `${where}[${index}]`, readable));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, item]) => readableStrings(item, `${where}.${key}`, READABLE_FIELDS.has(key)));
}

function placeholders(text: string): string[] {
  return [...text.matchAll(/\{(?:\d+|[A-Za-z]\w*)\}/g)].map((match) => match[0]).sort();
}

function messageOf(entry: unknown): string {
  return typeof entry === 'string' ? entry : (entry as { message: string }).message;
}

describe('localization (issue 27 item 6)', () => {
  it('words everything the manifest shows as a %key% of package.nls.json', () => {
    const shown = [
      ...readableStrings({ displayName: packageJson.displayName, description: packageJson.description }, 'package.json', false),
      ...readableStrings(packageJson.contributes, 'contributes', false),
    ];
    assert.ok(shown.length > 100, `only ${shown.length} readable strings found: the walk is broken`);
    assert.deepEqual(shown.filter(({ text }) => !/^%[\w.]+%$/.test(text)).map(({ where, text }) => `${where}: ${text}`), [], 'written in English in package.json');
    assert.equal(packageJson.l10n, './l10n', 'package.json names the folder of the message bundles');
  });

  it('has l10n/bundle.l10n.json as the sources make it (run `npm run generate:l10n` when this fails)', async function () {
    this.timeout(20000);
    const committed = fs.readFileSync(path.join(ROOT, L10N_BUNDLE), 'utf8');
    assert.equal(committed, await renderL10nBundle(ROOT));
    const bundle = JSON.parse(committed) as Record<string, unknown>;
    for (const english of Object.values(WEBVIEW_STRINGS)) assert.ok(english in bundle, `the panel's "${english}" is in the bundle`);
    // The scan itself finds the extension's calls (a broken scan would leave only the panel's words).
    assert.ok('Evergreen: {0} API key saved.' in bundle, "the extension's vscode.l10n.t calls are in the bundle");
  });

  it("calls vscode.l10n.t with a literal message, which the bundle's extraction can see (the panel's table aside)", () => {
    const dir = path.join(ROOT, 'src', 'extension');
    const hidden: string[] = [];
    for (const file of fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.ts'))) {
      const text = fs.readFileSync(path.join(dir, file), 'utf8');
      // A quote opens the message; a template literal or a variable would be missing from the bundle.
      for (const match of text.matchAll(/vscode\.l10n\.t\(\s*(?![\s'"])([^,)]{0,60})/g)) hidden.push(`${file}: ${match[1]}`);
    }
    assert.deepEqual(hidden, ['webviewStrings.ts: english']);
  });

  it('accepts a translated bundle only with keys the English one has and the same placeholders', () => {
    const english = JSON.parse(fs.readFileSync(path.join(ROOT, L10N_BUNDLE), 'utf8')) as Record<string, unknown>;
    const translations = fs.readdirSync(path.join(ROOT, 'l10n')).filter((name) => /^bundle\.l10n\..+\.json$/.test(name));
    for (const file of translations) {
      const translated = JSON.parse(fs.readFileSync(path.join(ROOT, 'l10n', file), 'utf8')) as Record<string, unknown>;
      for (const [key, entry] of Object.entries(translated)) {
        assert.ok(key in english, `${file}: "${key}" is no key of the English bundle`);
        assert.deepEqual(placeholders(messageOf(entry)), placeholders(messageOf(english[key])), `${file}: "${key}" keeps its placeholders`);
      }
    }
  });

  it("shows the host's words in the panel, English where a key is missing or the table is broken", () => {
    const german = stringsFrom(JSON.stringify({ 'composer.send': 'Senden', 'approval.titleMcp': '{1}: {0} aufrufen?', 'not.a.key': 'x', 'composer.cancel': 7 }));
    assert.equal(german['composer.send'], 'Senden');
    assert.equal(fillPlaceholders(german['approval.titleMcp'], ['read', 'files']), 'files: read aufrufen?', 'a language may reorder the placeholders');
    assert.equal(german['composer.cancel'], 'Cancel', 'a value that is no text is ignored');
    assert.ok(!('not.a.key' in german));
    assert.deepEqual(stringsFrom('{not json'), WEBVIEW_STRINGS);
    assert.deepEqual(stringsFrom('null'), WEBVIEW_STRINGS);
    assert.deepEqual(stringsFrom(undefined), WEBVIEW_STRINGS);
    assert.equal(fillPlaceholders('{0} and {2}', ['a']), 'a and {2}', 'a placeholder without a value stays as written');
  });

  it('puts the table into the page so that no text can end its element', () => {
    const hostile = { 'composer.send': '</script><script>alert(1)</script><!-- & \u2028' };
    const json = jsonForScriptElement(hostile);
    assert.doesNotMatch(json, /[<>&\u2028]/);
    assert.deepEqual(JSON.parse(json), hostile, 'read back unchanged');
    assert.equal(stringsFrom(json)['composer.send'], hostile['composer.send']);
  });
});
