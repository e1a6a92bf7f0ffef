/**
 * The files written from the tables (issue 27 item 7, issue 33's conventions): package.json's
 * commands, command-palette entries, keybindings, walkthrough, settings (`contributes.configuration`,
 * by category), untrusted-workspace restrictions and Marketplace fields (icon, banner, categories,
 * keywords); package.nls.json, the English of every string the manifest
 * shows; and the settings reference's tables (docs/settings.md). The sources: src/frontends/settingsTable.ts (what each
 * setting does), settingsManifest.ts (what the user reads about it), settingSchemas.ts (the object
 * settings' shapes), src/extension/manifest.ts (commands and names). Everything else in
 * package.json is kept as written.
 *
 * `npm run generate:manifest` writes the files (scripts/generate-manifest.ts);
 * test/unit/settings.table.test.ts fails while a committed one differs from what this renders.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { COMMANDS, KEYBINDINGS, MANIFEST_TEXT, MARKETPLACE, WALKTHROUGH, type CommandSpec, type WalkthroughStep } from '../src/extension/manifest';
import { SETTING_CATEGORIES, SETTING_TEXT, type SettingCategory } from '../src/frontends/settingsManifest';
import { SETTING_JSON_SCHEMAS, type SettingJsonSchema } from '../src/frontends/settingSchemas';
import { cliFlag, SETTING_KEYS, SETTINGS, settingName, type SettingKey, type SettingSpec } from '../src/frontends/settingsTable';

export const GENERATE_COMMAND = 'npm run generate:manifest';

/** Where the settings reference's generated tables begin and end; the text between is replaced. */
export const SETTINGS_DOC_BEGIN = `<!-- settings: generated from src/frontends/settingsTable.ts and settingsManifest.ts by \`${GENERATE_COMMAND}\`; edit those, not this -->`;
export const SETTINGS_DOC_END = '<!-- settings: end -->';

export interface GeneratedFile {
  /** From the repository's root. */
  readonly path: string;
  readonly content: string;
}

type Json = string | number | boolean | null | readonly Json[] | { readonly [key: string]: Json };
type JsonObject = Record<string, Json>;

/** The English strings, by key; the manifest holds `%key%` in their place. */
class Strings {
  readonly english = new Map<string, string>();

  ref(key: string, text: string): string {
    // vsce and VS Code replace only whole values of this form.
    if (!/^[\w.]+$/.test(key)) throw new Error(`package.nls.json key "${key}" has characters other than letters, digits, _ and .`);
    const earlier = this.english.get(key);
    if (earlier !== undefined && earlier !== text) throw new Error(`package.nls.json key "${key}" is given two texts: "${earlier}" and "${text}"`);
    this.english.set(key, text);
    return `%${key}%`;
  }
}

function objectAt(parent: JsonObject, key: string, where: string): JsonObject {
  const value = parent[key];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`package.json has no object at ${where}`);
  return value as JsonObject;
}

function entryWithId(list: Json | undefined, id: string, where: string): JsonObject {
  const found = Array.isArray(list) ? list.find((entry) => typeof entry === 'object' && entry !== null && !Array.isArray(entry) && (entry as JsonObject).id === id) : undefined;
  if (!found) throw new Error(`package.json has no entry with id "${id}" in ${where}`);
  return found as JsonObject;
}

/** A JSON value with each description in it replaced by its key, named after the path to it (any schema: hand-written or derived from zod). */
function localizeSchema(value: unknown, key: string, strings: Strings): Json {
  if (Array.isArray(value)) return value.map((item, index) => localizeSchema(item, `${key}.${index}`, strings));
  if (typeof value !== 'object' || value === null) return value as Json;
  const out: JsonObject = {};
  for (const [field, child] of Object.entries(value)) {
    // A key holds only letters, digits, _ and . (vsCE's and VS Code's form); a property's name may hold more.
    const path = `${key}.${field.replace(/[^\w]/g, '_')}`;
    out[field] = (field === 'description' || field === 'markdownDescription') && typeof child === 'string' ? strings.ref(`${key}.description`, child) : localizeSchema(child, path, strings);
  }
  return out;
}

/** A category's settings in the order the Settings editor and the settings reference show them: by `order`, then the table's. */
function settingsIn(category: SettingCategory): SettingKey[] {
  const keys = SETTING_KEYS.filter((key) => SETTING_TEXT[key].category === category);
  return keys.sort((a, b) => (SETTING_TEXT[a].order ?? Infinity) - (SETTING_TEXT[b].order ?? Infinity) || SETTING_KEYS.indexOf(a) - SETTING_KEYS.indexOf(b));
}

function settingProperty(key: SettingKey, strings: Strings): JsonObject {
  const spec: SettingSpec = SETTINGS[key];
  const text = SETTING_TEXT[key];
  const base = `config.${key}`;
  const schema: SettingJsonSchema | undefined = (SETTING_JSON_SCHEMAS as Partial<Record<SettingKey, SettingJsonSchema>>)[key];
  if (spec.type === 'object' && !schema) throw new Error(`${settingName(key)} is an object setting without a schema in src/frontends/settingSchemas.ts`);
  if (schema && spec.type !== 'object') throw new Error(`${settingName(key)} has a schema but is not an object setting`);
  if (text.enumDescriptions && text.enumDescriptions.length !== spec.enum?.length) throw new Error(`${settingName(key)}: ${text.enumDescriptions.length} enum descriptions for ${spec.enum?.length ?? 0} values`);
  if (text.patternErrorMessage !== undefined && spec.pattern === undefined) throw new Error(`${settingName(key)}: a pattern error message without a pattern`);
  const { type: _objectType, ...shape } = schema ? (localizeSchema(schema, `${base}.schema`, strings) as JsonObject) : {};
  return {
    type: spec.nullable ? [spec.type, 'null'] : spec.type,
    scope: spec.scope,
    ...(spec.enum ? { enum: [...spec.enum] } : {}),
    ...(spec.enum && text.enumDescriptions ? { enumDescriptions: spec.enum.map((value, index) => strings.ref(`${base}.enumDescriptions.${value}`, text.enumDescriptions![index]!)) } : {}),
    ...(spec.items ? { items: { type: spec.items } } : {}),
    default: spec.default as Json,
    ...(spec.min !== undefined ? { minimum: spec.min } : {}),
    ...(spec.max !== undefined ? { maximum: spec.max } : {}),
    ...(spec.pattern !== undefined ? { pattern: spec.pattern } : {}),
    ...(text.patternErrorMessage !== undefined ? { patternErrorMessage: strings.ref(`${base}.patternErrorMessage`, text.patternErrorMessage) } : {}),
    ...(text.order !== undefined ? { order: text.order } : {}),
    markdownDescription: strings.ref(`${base}.description`, text.description),
    ...shape,
  };
}

function configuration(strings: Strings): Json[] {
  return (Object.keys(SETTING_CATEGORIES) as SettingCategory[]).map((category, index) => ({
    title: strings.ref(`config.category.${category}`, SETTING_CATEGORIES[category]),
    order: index + 1,
    properties: Object.fromEntries(settingsIn(category).map((key) => [settingName(key), settingProperty(key, strings)])),
  }));
}

function commands(strings: Strings): { list: Json[]; palette: Json[] } {
  const entries = Object.entries(COMMANDS) as Array<[string, CommandSpec]>;
  return {
    list: entries.map(([id, spec]) => ({
      command: `evergreen.${id}`,
      title: strings.ref(`command.${id}.title`, spec.title),
      category: strings.ref('command.category', MANIFEST_TEXT.extensionName),
      icon: spec.icon,
      ...(spec.enablement !== undefined ? { enablement: spec.enablement } : {}),
    })),
    palette: entries.flatMap(([id, spec]) => (spec.palette !== undefined ? [{ command: `evergreen.${id}`, when: spec.palette }] : [])),
  };
}

function keybindings(): Json[] {
  return KEYBINDINGS.map((binding) => ({ command: `evergreen.${binding.command}`, key: binding.key, mac: binding.mac, ...(binding.when !== undefined ? { when: binding.when } : {}) }));
}

/** The walkthrough, its words as `%key%`s; a step's media is a file under media/walkthrough/ (test/unit/manifest.test.ts checks each is there). */
function walkthroughs(strings: Strings): Json[] {
  const base = `walkthrough.${WALKTHROUGH.id.replace(/\./g, '_')}`;
  const step = (item: WalkthroughStep): JsonObject => {
    const key = `${base}.step.${item.id}`;
    const media: JsonObject = 'markdown' in item.media ? { markdown: item.media.markdown } : { svg: item.media.svg, altText: strings.ref(`${key}.altText`, item.media.altText) };
    return {
      id: item.id,
      title: strings.ref(`${key}.title`, item.title),
      description: strings.ref(`${key}.description`, item.description),
      media,
      ...(item.completionEvents ? { completionEvents: [...item.completionEvents] } : {}),
    };
  };
  return [{ id: WALKTHROUGH.id, title: strings.ref(`${base}.title`, WALKTHROUGH.title), description: strings.ref(`${base}.description`, WALKTHROUGH.description), steps: WALKTHROUGH.steps.map(step) }];
}

export function renderPackageJson(pkg: JsonObject, strings: Strings): JsonObject {
  const out = structuredClone(pkg);
  out.displayName = strings.ref('displayName', MANIFEST_TEXT.displayName);
  out.description = strings.ref('description', MANIFEST_TEXT.description);
  out.icon = MARKETPLACE.icon;
  out.galleryBanner = { ...MARKETPLACE.galleryBanner };
  out.categories = [...MARKETPLACE.categories];
  out.keywords = [...MARKETPLACE.keywords];
  const capabilities = objectAt(out, 'capabilities', 'capabilities');
  const untrusted = objectAt(capabilities, 'untrustedWorkspaces', 'capabilities.untrustedWorkspaces');
  untrusted.description = strings.ref('capabilities.untrustedWorkspaces.description', MANIFEST_TEXT.untrustedWorkspaces);
  untrusted.restrictedConfigurations = SETTING_KEYS.filter((key) => (SETTINGS[key] as SettingSpec).restrictedWhenUntrusted).map(settingName);
  objectAt(capabilities, 'virtualWorkspaces', 'capabilities.virtualWorkspaces').description = strings.ref('capabilities.virtualWorkspaces.description', MANIFEST_TEXT.virtualWorkspaces);
  const contributes = objectAt(out, 'contributes', 'contributes');
  entryWithId(objectAt(contributes, 'viewsContainers', 'contributes.viewsContainers').activitybar, 'evergreen', 'contributes.viewsContainers.activitybar').title = strings.ref('viewsContainers.evergreen.title', MANIFEST_TEXT.extensionName);
  const chatView = entryWithId(objectAt(contributes, 'views', 'contributes.views').evergreen, 'evergreen.chat', 'contributes.views.evergreen');
  chatView.name = strings.ref('views.evergreen.chat.name', MANIFEST_TEXT.chatViewName);
  chatView.contextualTitle = strings.ref('views.evergreen.chat.contextualTitle', MANIFEST_TEXT.extensionName);
  entryWithId(objectAt(contributes, 'views', 'contributes.views').evergreen, 'evergreen.chats', 'contributes.views.evergreen').name = strings.ref('views.evergreen.chats.name', MANIFEST_TEXT.chatsViewName);
  entryWithId(objectAt(contributes, 'views', 'contributes.views').evergreen, 'evergreen.backgroundChats', 'contributes.views.evergreen').name = strings.ref('views.evergreen.backgroundChats.name', MANIFEST_TEXT.backgroundChatsViewName);
  const { list, palette } = commands(strings);
  contributes.commands = list;
  const { commandPalette: _old, ...otherMenus } = objectAt(contributes, 'menus', 'contributes.menus');
  contributes.menus = { commandPalette: palette, ...otherMenus };
  contributes.keybindings = keybindings();
  contributes.walkthroughs = walkthroughs(strings);
  contributes.configuration = configuration(strings);
  return out;
}

/** A table cell: a setting link becomes the setting's name, a `|` would end the cell. */
function cell(markdown: string): string {
  return markdown.replace(/`?#(evergreen\.[\w.]+)#`?/g, '`$1`').replace(/\|/g, '\\|');
}

function defaultCell(value: SettingSpec['default']): string {
  if (value === null || value === '') return 'empty';
  if (typeof value === 'number') return value.toLocaleString('en-US');
  return `\`${typeof value === 'string' ? value : JSON.stringify(value)}\``;
}

/** The range the Settings editor enforces, in words; undefined when there is none. */
function range(spec: SettingSpec): string | undefined {
  if (spec.min !== undefined && spec.max !== undefined) return `${spec.min.toLocaleString('en-US')}-${spec.max.toLocaleString('en-US')}`;
  if (spec.min !== undefined) return `at least ${spec.min.toLocaleString('en-US')}`;
  return spec.max === undefined ? undefined : `at most ${spec.max.toLocaleString('en-US')}`;
}

export function renderSettingsTables(): string {
  const sections = (Object.keys(SETTING_CATEGORIES) as SettingCategory[]).map((category) => {
    const rows = settingsIn(category).map((key) => {
      const spec: SettingSpec = SETTINGS[key];
      const text = SETTING_TEXT[key];
      const flag = cliFlag(key);
      const choices = spec.enum && text.enumDescriptions ? ` ${spec.enum.map((value, index) => `\`${value}\`: ${text.enumDescriptions![index]!}`).join(' ')}` : '';
      const flagNote = flag && !text.description.includes(`\`${flag}\``) ? [`CLI \`${flag}\``] : [];
      const notes = [...(range(spec) ? [range(spec)!] : []), ...flagNote, `${spec.scope} scope`].join('; ');
      return `| \`${settingName(key)}\` | ${defaultCell(spec.default)} | ${cell(text.description + choices)} (${notes}) |`;
    });
    return [`**${SETTING_CATEGORIES[category]}**`, '', '| Setting | Default | What it does |', '| --- | --- | --- |', ...rows].join('\n');
  });
  return sections.join('\n\n');
}

/** The settings reference the README links to; the generator rewrites only between its markers. */
export const SETTINGS_DOC = 'docs/settings.md';

export function renderSettingsDoc(doc: string): string {
  const begin = doc.indexOf(SETTINGS_DOC_BEGIN);
  const end = doc.indexOf(SETTINGS_DOC_END);
  if (begin < 0 || end < begin) throw new Error(`${SETTINGS_DOC} has no settings block: put the lines\n${SETTINGS_DOC_BEGIN}\n${SETTINGS_DOC_END}\nwhere the settings tables go`);
  return `${doc.slice(0, begin + SETTINGS_DOC_BEGIN.length)}\n${renderSettingsTables()}\n${doc.slice(end)}`;
}

/** Every generated file, rendered from the tables and the committed package.json and settings reference under `root`. */
export function renderManifestFiles(root: string): GeneratedFile[] {
  const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');
  const strings = new Strings();
  const pkg = renderPackageJson(JSON.parse(read('package.json')) as JsonObject, strings);
  const nls = Object.fromEntries([...strings.english].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return [
    { path: 'package.json', content: `${JSON.stringify(pkg, null, 2)}\n` },
    { path: 'package.nls.json', content: `${JSON.stringify(nls, null, 2)}\n` },
    { path: SETTINGS_DOC, content: renderSettingsDoc(read(SETTINGS_DOC)) },
  ];
}
