/**
 * The settings table (src/frontends/settingsTable.ts) is the one place a setting's name, scope, type,
 * range, default and CLI flag are written; package.json (the manifest VS Code reads), the README's
 * settings table and the CLI's flags must say the same, and these checks fail when one drifts.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseCliArgs, USAGE } from '../../src/cli/args';
import { parseContextOverrides } from '../../src/core/context/defaults';
import { PROVIDER_FACTS } from '../../src/core/model/models';
import { cliFlag, SETTING_KEYS, settingName, SETTINGS, type SettingKey, type SettingSpec } from '../../src/frontends/settingsTable';
import { settingChangeEffect } from '../../src/extension/settingChanges';
import { parseSettings } from '../../src/extension/settingsValues';

const ROOT = path.join(__dirname, '..', '..');

interface ManifestProperty {
  scope?: string;
  type?: string | string[];
  enum?: string[];
  items?: { type: string };
  minimum?: number;
  maximum?: number;
  default?: unknown;
  markdownDescription?: string;
}

const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  contributes: { configuration: { properties: Record<string, ManifestProperty> } };
  capabilities: { untrustedWorkspaces: { restrictedConfigurations: string[] } };
};
const properties = manifest.contributes.configuration.properties;
const spec = (key: SettingKey): SettingSpec => SETTINGS[key];

/** The rows of the README's settings table: setting name -> [default cell, description cell]. */
function readmeRows(): Map<string, [string, string]> {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('| Setting | Default | What it does |');
  assert.ok(start >= 0, 'the README has no settings table');
  const rows = new Map<string, [string, string]>();
  for (const line of readme.slice(start).split('\n').slice(2)) {
    if (!line.startsWith('|')) break;
    const cells = line.split(' | ').map((cell) => cell.replace(/^\| ?| ?\|$/g, ''));
    const name = /^`([^`]+)`$/.exec(cells[0] ?? '')?.[1];
    assert.ok(name && cells.length === 3, `unreadable README row: ${line}`);
    rows.set(name, [cells[1]!, cells[2]!]);
  }
  return rows;
}

describe('settings table', () => {
  it('declares every setting in package.json exactly as the table says, and no other', () => {
    assert.deepEqual(Object.keys(properties).sort(), SETTING_KEYS.map(settingName).sort());
    for (const key of SETTING_KEYS) {
      const row = spec(key);
      const property = properties[settingName(key)]!;
      assert.equal(property.scope, row.scope, `${key}: scope`);
      assert.deepEqual(property.type, row.nullable ? [row.type, 'null'] : row.type, `${key}: type`);
      assert.deepEqual(property.enum, row.enum, `${key}: enum`);
      assert.deepEqual(property.items, row.items ? { type: row.items } : undefined, `${key}: items`);
      assert.equal(property.minimum, row.min, `${key}: minimum`);
      assert.equal(property.maximum, row.max, `${key}: maximum`);
      assert.deepEqual(property.default, row.default, `${key}: default`);
      assert.ok((property.markdownDescription ?? '').length > 20, `${key}: the manifest describes it`);
    }
    const restricted = SETTING_KEYS.filter((key) => spec(key).restrictedWhenUntrusted).map(settingName);
    assert.deepEqual([...manifest.capabilities.untrustedWorkspaces.restrictedConfigurations].sort(), restricted.sort());
  });

  it("gives only examples the parser accepts in the manifest's compression description", () => {
    const description = properties[settingName('compression')]!.markdownDescription!;
    const example = /`(\{[^`]+\})`/.exec(description)?.[1];
    assert.ok(example, 'the description shows an example object');
    const parsed = parseContextOverrides(JSON.parse(example));
    assert.deepEqual(parsed.problems, []);
    assert.ok(Object.keys(parsed.settings).length >= 2);
  });

  it("lists every setting in the README's table, with its default, its CLI flag and its scope", () => {
    const rows = readmeRows();
    assert.deepEqual([...rows.keys()], SETTING_KEYS.map(settingName), 'the README lists the settings in the table\'s order');
    for (const key of SETTING_KEYS) {
      const row = spec(key);
      const [defaultCell, description] = rows.get(settingName(key))!;
      const value = row.default;
      if (typeof value === 'number') assert.ok(defaultCell.includes(value.toLocaleString('en-US')), `${key}: README default "${defaultCell}" is not ${value}`);
      else if (typeof value === 'boolean' || (typeof value === 'string' && value !== '')) assert.ok(defaultCell.includes(`\`${String(value)}\``), `${key}: README default "${defaultCell}" is not ${String(value)}`);
      else if (Array.isArray(value)) assert.ok(defaultCell.includes('`[]`'), `${key}: README default "${defaultCell}"`);
      else if (value !== null && typeof value === 'object') assert.ok(defaultCell.includes('`{}`'), `${key}: README default "${defaultCell}"`);
      const flag = cliFlag(key);
      if (flag) assert.ok(description.includes(`\`${flag}\``), `${key}: the README does not name ${flag}`);
      assert.ok(description.includes(row.scope === 'machine' ? 'machine scope' : 'user settings only'), `${key}: the README does not give its scope`);
      if (row.min !== undefined && row.max !== undefined && row.type === 'number') assert.ok(description.includes(`${row.min}-${row.max}`), `${key}: the README does not give its range`);
    }
  });

  it("states the provider table's default models and fallback windows where the manifest and the README name them", () => {
    const rows = readmeRows();
    const window = (n: number) => n.toLocaleString('en-US');
    assert.ok(rows.get(settingName('openai.model'))![0].includes(`\`${PROVIDER_FACTS.openai.defaultModel}\``));
    assert.ok(properties[settingName('openai.model')]!.markdownDescription!.includes(`\`${PROVIDER_FACTS.openai.defaultModel}\``));
    const readmeWindow = rows.get(settingName('contextWindow'))![0];
    const manifestWindow = properties[settingName('contextWindow')]!.markdownDescription!;
    for (const text of [readmeWindow, manifestWindow]) {
      assert.ok(text.includes(window(PROVIDER_FACTS.anthropic.fallbackWindow)) && text.includes(window(PROVIDER_FACTS.openai.fallbackWindow)), text);
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
    // Ids under evergreen. that are not settings: the manifest's commands and views, and two the
    // extension creates (the SecretStorage keys, the status bar item).
    const contributes = (manifest as unknown as { contributes: { commands: Array<{ command: string }>; views: Record<string, Array<{ id: string }>> } }).contributes;
    const views = Object.values(contributes.views).flat().map((view) => view.id);
    const otherIds = new Set([...contributes.commands.map((command) => command.command), ...views, ...views.map((id) => `${id}.focus`), 'evergreen.anthropicApiKey', 'evergreen.openaiApiKey', 'evergreen.searxngKey', 'evergreen.context']);
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
      for (const match of fs.readFileSync(path.join(ROOT, file), 'utf8').matchAll(/\bevergreen\.([A-Za-z][A-Za-z.]*)/g)) {
        // `evergreen.subagents.*` and a sentence's full stop name a section.
        const name = match[1]!.replace(/\.+$/, '');
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
