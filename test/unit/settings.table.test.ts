/**
 * The settings table (src/frontends/settingsTable.ts) is the one place a setting's name, scope, type,
 * range, default and CLI flag are written. package.json's settings, package.nls.json and the settings reference's
 * settings tables are generated from it (scripts/manifest.ts); these checks fail when a committed
 * file is stale, when the generator misrenders a row, or when the CLI or the extension's reader
 * drift from the table.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { GENERATE_COMMAND, SETTINGS_DOC, SETTINGS_DOC_BEGIN, SETTINGS_DOC_END, renderManifestFiles } from '../../scripts/manifest';
import { parseCliArgs, USAGE } from '../../src/cli/args';
import { parseContextOverrides } from '../../src/core/context/defaults';
import { parsePriceOverrides } from '../../src/core/model/models';
import { CONTEXT_KEYS } from '../../src/extension/contextKeys';
import { WALKTHROUGH } from '../../src/extension/manifest';
import { settingChangeEffect } from '../../src/extension/settingChanges';
import { parseSettings } from '../../src/extension/settingsValues';
import { SETTING_TEXT } from '../../src/frontends/settingsManifest';
import { cliFlag, SETTING_KEYS, settingName, SETTINGS, type SettingKey, type SettingSpec } from '../../src/frontends/settingsTable';
import { declaredSettings } from '../support/manifestSettings';

const ROOT = path.join(__dirname, '..', '..');

const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { capabilities: { untrustedWorkspaces: { restrictedConfigurations: string[] } } };
const properties = declaredSettings();
const spec = (key: SettingKey): SettingSpec => SETTINGS[key];

/** The example object a description shows in backticks. */
function exampleIn(description: string): unknown {
  const example = /`(\{[^`]+\})`/.exec(description)?.[1];
  assert.ok(example, `no example object in: ${description}`);
  return JSON.parse(example);
}

/** The rows of the settings reference's generated settings tables: setting name -> [default cell, description cell]. */
function readmeRows(): Map<string, [string, string]> {
  const readme = fs.readFileSync(path.join(ROOT, SETTINGS_DOC), 'utf8');
  const block = readme.slice(readme.indexOf(SETTINGS_DOC_BEGIN), readme.indexOf(SETTINGS_DOC_END));
  assert.ok(block.length > 0, 'the settings reference has no generated settings block');
  const rows = new Map<string, [string, string]>();
  for (const line of block.split('\n').filter((row) => row.startsWith('| `'))) {
    const cells = line.split(' | ').map((cell) => cell.replace(/^\| ?| ?\|$/g, ''));
    const name = /^`([^`]+)`$/.exec(cells[0] ?? '')?.[1];
    assert.ok(name && cells.length === 3, `unreadable settings row: ${line}`);
    assert.ok(!rows.has(name), `${name} has two rows`);
    rows.set(name, [cells[1]!, cells[2]!]);
  }
  return rows;
}

describe('settings table', () => {
  it('has package.json, package.nls.json and the settings reference as the generator writes them from the tables', () => {
    for (const file of renderManifestFiles(ROOT)) {
      const committed = fs.readFileSync(path.join(ROOT, file.path), 'utf8');
      // Not assert.equal: a diff of the whole package.json would bury the one thing to do.
      assert.ok(committed === file.content, `${file.path} is stale: the tables say otherwise. Run \`${GENERATE_COMMAND}\` and commit what it writes.`);
    }
  });

  it('declares every setting in package.json exactly as the table says, and no other', () => {
    assert.deepEqual(Object.keys(properties).sort(), SETTING_KEYS.map(settingName).sort());
    for (const key of SETTING_KEYS) {
      const row = spec(key);
      const property = properties[settingName(key)]!;
      assert.deepEqual(
        { scope: property.scope, type: property.type, enum: property.enum, items: property.items, minimum: property.minimum, maximum: property.maximum, pattern: property.pattern, default: property.default },
        { scope: row.scope, type: row.nullable ? [row.type, 'null'] : row.type, enum: row.enum, items: row.items ? { type: row.items } : undefined, minimum: row.min, maximum: row.max, pattern: row.pattern, default: row.default },
        key,
      );
      assert.match(property.markdownDescription ?? '', /^%config\.[\w.]+\.description%$/, `${key}: the manifest's description is a package.nls.json reference`);
    }
    const restricted = SETTING_KEYS.filter((key) => spec(key).restrictedWhenUntrusted).map(settingName);
    assert.deepEqual([...manifest.capabilities.untrustedWorkspaces.restrictedConfigurations].sort(), restricted.sort());
  });

  it('gives only examples the parsers accept in the descriptions of the object settings', () => {
    const compression = parseContextOverrides(exampleIn(SETTING_TEXT.compression.description));
    assert.deepEqual(compression.problems, []);
    assert.ok(Object.keys(compression.settings).length >= 2);
    const pricing = parsePriceOverrides(exampleIn(SETTING_TEXT.pricing.description));
    assert.deepEqual(pricing.problems, []);
    assert.equal(Object.keys(pricing.prices).length, 1);
  });

  it("lists every setting in the settings reference's tables, with its default, its CLI flag and its scope", () => {
    const rows = readmeRows();
    assert.deepEqual([...rows.keys()].sort(), SETTING_KEYS.map(settingName).sort());
    for (const key of SETTING_KEYS) {
      const row = spec(key);
      const [defaultCell, description] = rows.get(settingName(key))!;
      const value = row.default;
      if (typeof value === 'number') assert.equal(defaultCell, value.toLocaleString('en-US'), key);
      else if (value === null || value === '') assert.equal(defaultCell, 'empty', key);
      else assert.equal(defaultCell, `\`${typeof value === 'string' ? value : JSON.stringify(value)}\``, key);
      const flag = cliFlag(key);
      if (flag) assert.ok(description.includes(`\`${flag}\``), `${key}: the settings reference does not name ${flag}`);
      assert.ok(description.endsWith(`${row.scope} scope)`), `${key}: the settings reference does not give its scope`);
      if (row.min !== undefined && row.max !== undefined) assert.ok(description.includes(`(${row.min.toLocaleString('en-US')}-${row.max.toLocaleString('en-US')}; `), `${key}: the settings reference does not give its range`);
    }
  });

  it('has a CLI flag the parser takes and the help lists for every setting that names one', () => {
    const flags = new Set(SETTING_KEYS.map(cliFlag).filter((flag): flag is string => flag !== undefined));
    assert.ok(flags.size >= 12);
    for (const flag of flags) {
      assert.match(USAGE, new RegExp(`^\\s+(-\\w, )?${flag}\\b`, 'm'), `${flag} is not in --help`);
      // A flag the parser does not know fails with "Unknown option"; a known one fails (if at all) on its value.
      try {
        parseCliArgs([flag, ...(flag.startsWith('--no-') || flag.startsWith('--allow-package') || flag === '--yes' ? [] : ['x'])], '/w');
      } catch (error) {
        assert.doesNotMatch(String(error), /Unknown option/, flag);
      }
    }
  });

  it('uses the table\'s defaults and ranges in the CLI and in the extension\'s reader', () => {
    const cli = parseCliArgs([], '/w');
    assert.equal(cli.maxOutputTokens, SETTINGS.maxOutputTokens.default);
    assert.equal(cli.provider, SETTINGS.provider.default);
    assert.throws(() => parseCliArgs(['--auto-compact-percent', String(SETTINGS.autoCompactPercent.min - 1)], '/w'), /between 10 and 100/);
    assert.equal(parseCliArgs(['--auto-compact-percent', String(SETTINGS.autoCompactPercent.max)], '/w').autoCompactPercent, 100);
    const none = parseSettings({ get: () => undefined, userValue: () => undefined });
    assert.equal(none.maxOutputTokens, SETTINGS.maxOutputTokens.default);
    assert.equal(none.provider, SETTINGS.provider.default);
    assert.deepEqual(none.approvals, { writes: SETTINGS['approvals.writes'].default, shell: SETTINGS['approvals.shell'].default, shellAllowList: [], mcp: SETTINGS['approvals.mcp'].default, mcpAllowList: [] });
    assert.equal(none.sandbox.enabled, SETTINGS['sandbox.enabled'].default);
  });

  it('names only real settings wherever a source file, the README or the docs mention one', () => {
    // Ids under evergreen. that are not settings: the extension's own id, the manifest's commands,
    // views and walkthrough, the context keys, and two the extension creates (the SecretStorage keys, the
    // status bar item).
    const { contributes, publisher, name: packageName } = manifest as unknown as { publisher: string; name: string; contributes: { commands: Array<{ command: string }>; views: Record<string, Array<{ id: string }>> } };
    const views = Object.values(contributes.views).flat().map((view) => view.id);
    const otherIds = new Set([`${publisher}.${packageName}`, ...contributes.commands.map((command) => command.command), ...views, ...views.map((id) => `${id}.focus`), ...Object.values(CONTEXT_KEYS), WALKTHROUGH.id, 'evergreen.anthropicApiKey', 'evergreen.openaiApiKey', 'evergreen.searxngKey', 'evergreen.context']);
    const files = ['README.md', ...fs.readdirSync(path.join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => path.join('docs', name))];
    const walk = (dir: string): void => {
      for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
        const relative = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(relative);
        else if (entry.name.endsWith('.ts')) files.push(relative);
      }
    };
    walk('src');
    const unknown: string[] = [];
    let mentions = 0;
    for (const file of files) {
      for (const match of fs.readFileSync(path.join(ROOT, file), 'utf8').matchAll(/\bevergreen\.([A-Za-z][A-Za-z.-]*)/g)) {
        // `evergreen.subagents.*` and a sentence's full stop name a section.
        const name = match[1]!.replace(/[.-]+$/, '');
        if (otherIds.has(`evergreen.${name}`)) continue;
        mentions++;
        const known = SETTING_KEYS.some((key) => key === name || key.startsWith(`${name}.`));
        if (!known) unknown.push(`${file}: evergreen.${name}`);
      }
    }
    assert.ok(mentions > 40, `only ${mentions} mentions found: the scan is broken`);
    assert.deepEqual(unknown, []);
  });

  it('applies a change live or restarts the session as the table says, for every setting', () => {
    for (const key of SETTING_KEYS) {
      const name = settingName(key);
      assert.equal(settingChangeEffect((section) => name === section || name.startsWith(`${section}.`)), spec(key).change, key);
    }
  });
});
