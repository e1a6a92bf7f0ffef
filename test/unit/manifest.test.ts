/**
 * The manifest as VS Code reads it (issue 33): every command has a title and a category, every
 * setting a category, every `%key%` an English string in package.nls.json, and the when-clauses
 * name only context keys Evergreen sets (or VS Code's own), so each command shows where it does
 * something. The when-clauses are evaluated here as VS Code evaluates them, for the states a
 * user meets: no chat yet, a chat, a turn running, a transcript tab.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CONTEXT_KEYS } from '../../src/extension/contextKeys';
import { TRANSCRIPT_SCHEME, TRANSCRIPT_VIEW_TYPE } from '../../src/extension/transcriptScheme';
import { SETTING_CATEGORIES } from '../../src/frontends/settingsManifest';
import { SETTING_KEYS, settingName } from '../../src/frontends/settingsTable';

const ROOT = path.join(__dirname, '..', '..');

interface Command {
  command: string;
  title?: string;
  category?: string;
  enablement?: string;
}
interface Keybinding {
  command: string;
  key: string;
  mac?: string;
  when?: string;
}
interface WalkthroughStep {
  id: string;
  title: string;
  description: string;
  media: { markdown?: string; svg?: string; image?: string; altText?: string };
  completionEvents?: string[];
}
interface Manifest {
  displayName: string;
  icon?: string;
  galleryBanner?: { color?: string; theme?: string };
  categories?: string[];
  keywords?: string[];
  contributes: {
    commands: Command[];
    keybindings: Keybinding[];
    walkthroughs: Array<{ id: string; title: string; description: string; steps: WalkthroughStep[] }>;
    menus: Record<string, Array<{ command: string; when?: string }>>;
    configuration: Array<{ title?: string; order?: number; properties: Record<string, { order?: number; markdownDescription?: string }> }>;
  };
}

const packageText = fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8');
const manifest = JSON.parse(packageText) as Manifest;
const english = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.nls.json'), 'utf8')) as Record<string, string>;

/** A manifest string as VS Code shows it in English: `%key%` looked up in package.nls.json. */
function shown(value: string | undefined): string | undefined {
  const key = /^%([\w.]+)%$/.exec(value ?? '')?.[1];
  return key === undefined ? value : english[key];
}

/** Keys VS Code itself sets that the manifest may test (extend with care: each must be VS Code's, documented). */
const VSCODE_KEYS = new Set(['view', 'viewItem', 'resourceScheme', 'activeWebviewPanelId', 'workspaceFolderCount']);
/** The Background Chats view's commands: in the palette each asks which chat, so they are always offered. */
const BACKGROUND_CHAT_COMMANDS = ['newBackgroundChat', 'refreshBackgroundChats', 'reviewBackgroundChanges', 'applyBackgroundChanges', 'applyAcceptedBackgroundChanges', 'openBackgroundWorktree', 'mergeBackgroundBranch', 'discardBackgroundChat'];

type Context = Readonly<Record<string, string | number | boolean | undefined>>;

/**
 * A when-clause as VS Code reads it, for the forms the manifest uses: `a`, `!a`, `a == value`,
 * `a != value`, `a > n` (and `<`, `>=`, `<=`), `&&`, `||` (`&&` binds tighter) and parentheses. Anything else throws, so a
 * clause this test cannot judge fails it rather than passing unread.
 */
function parseWhen(clause: string): { keys: string[]; evaluate: (context: Context) => boolean } {
  const tokens = clause.match(/\s*(&&|\|\||==|!=|>=|<=|>|<|!|\(|\)|[^\s!=&|()<>]+)/g)?.map((token) => token.trim()) ?? [];
  if (tokens.join('').replace(/\s/g, '') !== clause.replace(/\s/g, '')) throw new Error(`unreadable when-clause: ${clause}`);
  const keys: string[] = [];
  let at = 0;
  type Node = (context: Context) => boolean;
  const peek = () => tokens[at];
  const take = (expected?: string) => {
    const token = tokens[at++];
    if (token === undefined || (expected !== undefined && token !== expected)) throw new Error(`when-clause "${clause}": expected ${expected ?? 'more'} at token ${at}`);
    return token;
  };
  const primary = (): Node => {
    if (peek() === '!') {
      take();
      const inner = primary();
      return (context) => !inner(context);
    }
    if (peek() === '(') {
      take();
      const inner = or();
      take(')');
      return inner;
    }
    const key = take();
    // VS Code's literals: `false` keeps a command out of the palette (a row's inline button).
    if (key === 'true' || key === 'false') return () => key === 'true';
    if (!/^[\w.-]+$/.test(key)) throw new Error(`when-clause "${clause}": "${key}" is not a context key`);
    keys.push(key);
    if (peek() === '==' || peek() === '!=') {
      const equal = take() === '==';
      const value = take();
      return (context) => (String(context[key]) === value) === equal;
    }
    if (['>', '<', '>=', '<='].includes(peek() ?? '')) {
      const operator = take();
      const bound = Number(take());
      if (!Number.isFinite(bound)) throw new Error(`when-clause "${clause}": ${operator} needs a number`);
      const compare = { '>': (a: number) => a > bound, '<': (a: number) => a < bound, '>=': (a: number) => a >= bound, '<=': (a: number) => a <= bound }[operator]!;
      return (context) => compare(Number(context[key] ?? 0));
    }
    return (context) => Boolean(context[key]);
  };
  const and = (): Node => {
    let node = primary();
    while (peek() === '&&') {
      take();
      const left = node;
      const right = primary();
      node = (context) => left(context) && right(context);
    }
    return node;
  };
  const or = (): Node => {
    let node = and();
    while (peek() === '||') {
      take();
      const left = node;
      const right = and();
      node = (context) => left(context) || right(context);
    }
    return node;
  };
  const evaluate = or();
  if (at !== tokens.length) throw new Error(`when-clause "${clause}": unexpected "${tokens[at]}"`);
  return { keys, evaluate };
}

/** Every when-clause and enablement anywhere under `contributes`, with where it is. */
function clauses(): Array<{ where: string; clause: string }> {
  const found: Array<{ where: string; clause: string }> = [];
  const visit = (value: unknown, where: string): void => {
    if (Array.isArray(value)) value.forEach((item, index) => visit(item, `${where}[${index}]`));
    else if (typeof value === 'object' && value !== null) {
      for (const [key, child] of Object.entries(value)) {
        if ((key === 'when' || key === 'enablement') && typeof child === 'string') found.push({ where: `${where}.${key}`, clause: child });
        else visit(child, `${where}.${key}`);
      }
    }
  };
  visit(manifest.contributes, 'contributes');
  return found;
}

/** The commands the palette lists in `context`: enabled, and its commandPalette entry (if any) true. */
function palette(context: Context): string[] {
  const paletteWhen = new Map((manifest.contributes.menus.commandPalette ?? []).map((entry) => [entry.command, entry.when]));
  return manifest.contributes.commands
    .filter((command) => (command.enablement === undefined || parseWhen(command.enablement).evaluate(context)) && [paletteWhen.get(command.command)].every((when) => when === undefined || parseWhen(when).evaluate(context)))
    .map((command) => command.command.replace(/^evergreen\./, ''));
}

describe('the manifest', () => {
  it('gives every command a title and a category, in English', () => {
    assert.ok(manifest.contributes.commands.length >= 10);
    for (const command of manifest.contributes.commands) {
      assert.ok(shown(command.title)?.trim(), `${command.command} has no title`);
      assert.equal(shown(command.category), 'Evergreen', `${command.command}'s category`);
    }
  });

  it('puts every setting in one of the categories, Model to Advanced, with an order on the main ones', () => {
    const categories = manifest.contributes.configuration;
    assert.deepEqual(
      categories.map((category) => shown(category.title)),
      ['Model', 'Context', 'Approvals & Sandbox', 'MCP', 'Hooks', 'Attachments', 'Advanced'],
    );
    assert.deepEqual(Object.values(SETTING_CATEGORIES), categories.map((category) => shown(category.title)));
    assert.deepEqual(categories.map((category) => category.order), [1, 2, 3, 4, 5, 6, 7]);
    const placed = categories.flatMap((category) => Object.keys(category.properties));
    assert.deepEqual([...placed].sort(), SETTING_KEYS.map(settingName).sort(), 'each setting in exactly one category');
    for (const category of categories) {
      const orders = Object.values(category.properties).flatMap((property) => (property.order === undefined ? [] : [property.order]));
      assert.ok(orders.length > 0, `${shown(category.title)}: no setting has an order`);
      assert.equal(new Set(orders).size, orders.length, `${shown(category.title)}: two settings share an order`);
      for (const property of Object.values(category.properties)) assert.ok(shown(property.markdownDescription)?.trim());
    }
  });

  it('has an English string for every %key% in package.json, and no string nothing uses', () => {
    const used = new Set([...packageText.matchAll(/"%([\w.]+)%"/g)].map((match) => match[1]!));
    assert.ok(used.size > 50, `only ${used.size} references: the scan is broken`);
    assert.deepEqual([...used].filter((key) => english[key] === undefined), [], 'referenced but missing from package.nls.json');
    assert.deepEqual(Object.keys(english).filter((key) => !used.has(key)), [], 'in package.nls.json but never referenced');
    // A language is package.nls.<locale>.json with the same keys (none ships yet).
    for (const file of fs.readdirSync(ROOT).filter((name) => /^package\.nls\..+\.json$/.test(name))) {
      const translated = JSON.parse(fs.readFileSync(path.join(ROOT, file), 'utf8')) as Record<string, string>;
      assert.deepEqual(Object.keys(translated).filter((key) => !used.has(key)), [], `${file} has keys package.json does not use`);
    }
  });

  it("names in its when-clauses only the context keys Evergreen sets and VS Code's own", () => {
    const ours = new Set<string>(Object.values(CONTEXT_KEYS));
    const all = clauses();
    assert.ok(all.length >= 8, `only ${all.length} when-clauses found: the scan is broken`);
    const named = new Set<string>();
    for (const { where, clause } of all) {
      for (const key of parseWhen(clause).keys) {
        named.add(key);
        assert.ok(ours.has(key) || VSCODE_KEYS.has(key), `${where}: "${key}" is set by neither Evergreen (src/extension/contextKeys.ts) nor VS Code`);
      }
    }
    for (const key of ours) assert.ok(named.has(key), `${key} is set but no when-clause reads it`);
  });

  it('offers in the palette only the commands that can act: no chat, a chat, a running turn, a transcript tab, one folder or several', () => {
    // Hooks with no chat says where hooks are configured.
    const always = ['openArchivedTranscript', 'newChat', 'focusChat', 'setApiKey', 'mcpServers', 'webAccess', 'setSearxngKey', 'showHooks', 'showSessionInsights', 'resumeSession', 'openMemory', 'openRun', 'showChat', 'closeChat', 'openChatInEditor', 'showBackgroundChat', ...BACKGROUND_CHAT_COMMANDS];
    const noChat = { [CONTEXT_KEYS.chatActive]: false, [CONTEXT_KEYS.running]: false, resourceScheme: 'file', workspaceFolderCount: 1 };
    // Switch Mode without a chat picks the next chat's mode; while a turn runs the mode cannot change.
    assert.deepEqual(palette(noChat).sort(), [...always, 'switchMode'].sort());
    const idle = { ...noChat, [CONTEXT_KEYS.chatActive]: true };
    assert.deepEqual(palette(idle).sort(), [...always, 'compactConversation', 'undoLastCompaction', 'openRawTranscript', 'showContextBreakdown', 'reloadInstructions', 'switchMode', 'reviewCheckpointChanges'].sort());
    const running = { ...idle, [CONTEXT_KEYS.running]: true };
    assert.deepEqual(palette(running).sort(), [...always, 'openRawTranscript', 'showContextBreakdown', 'cancel'].sort());
    // Before activation no key is set at all: as with no chat.
    assert.deepEqual(palette({}).sort(), [...always, 'switchMode'].sort());
    // On an archived transcript's tab, with no chat open: its raw file is one command away.
    assert.ok(palette({ ...noChat, resourceScheme: TRANSCRIPT_SCHEME }).includes('openRawTranscript'));
    // The transcript opens rendered: its source, and from the source the rendered tab, are one command away.
    assert.deepEqual(palette({ ...noChat, resourceScheme: TRANSCRIPT_SCHEME }).filter((id) => id.startsWith('openTranscript')), ['openTranscriptRendered']);
    const renderedTab = { ...noChat, resourceScheme: undefined, activeWebviewPanelId: TRANSCRIPT_VIEW_TYPE };
    assert.deepEqual(palette(renderedTab).filter((id) => /^open(Transcript|Raw)/.test(id)).sort(), ['openRawTranscript', 'openTranscriptSource']);
    // A multi-root workspace: a chat's folder can be chosen, but not while a turn runs in it.
    assert.deepEqual(palette({ ...noChat, workspaceFolderCount: 3 }).sort(), [...always, 'chooseChatFolder', 'switchMode'].sort());
    assert.ok(!palette({ ...running, workspaceFolderCount: 3 }).includes('chooseChatFolder'));
  });

  it('binds keys that run Evergreen commands, with a macOS key each, and stops a turn only while one runs', () => {
    const commands = new Set(manifest.contributes.commands.map((command) => command.command));
    const bindings = manifest.contributes.keybindings;
    assert.deepEqual(bindings.map((binding) => binding.command).sort(), ['evergreen.cancel', 'evergreen.focusChat', 'evergreen.newChat']);
    for (const binding of bindings) {
      assert.ok(commands.has(binding.command), `${binding.command} is bound but not contributed`);
      assert.match(binding.key, /^ctrl\+k [a-z]$/, `${binding.command}: a Ctrl+K chord, never Ctrl+Alt (AltGr on Windows)`);
      assert.equal(binding.mac, binding.key.replace('ctrl+', 'cmd+'), `${binding.command}: its macOS key`);
    }
    assert.equal(new Set(bindings.map((binding) => binding.key)).size, bindings.length, 'two commands on one key');
    const cancel = bindings.find((binding) => binding.command === 'evergreen.cancel')!;
    assert.equal(parseWhen(cancel.when!).evaluate({ [CONTEXT_KEYS.running]: true }), true);
    assert.equal(parseWhen(cancel.when!).evaluate({ [CONTEXT_KEYS.running]: false }), false);
  });

  it('has a walkthrough whose every step has words, a button that runs a command, and its picture or text in the package', () => {
    const [walkthrough, ...others] = manifest.contributes.walkthroughs;
    assert.equal(others.length, 0);
    assert.equal(walkthrough!.id, 'evergreen.start');
    assert.ok(shown(walkthrough!.title)?.trim() && shown(walkthrough!.description)?.trim());
    const commands = new Set(manifest.contributes.commands.map((command) => command.command));
    const ids = walkthrough!.steps.map((step) => step.id);
    assert.deepEqual(ids, ['key', 'chat', 'attach', 'gauge', 'compact', 'mcp', 'sandbox']);
    const ignored = fs.readFileSync(path.join(ROOT, '.vscodeignore'), 'utf8');
    for (const step of walkthrough!.steps) {
      const description = shown(step.description) ?? '';
      assert.ok(shown(step.title)?.trim(), `${step.id} has no title`);
      // A line that is only a command link is a button.
      const buttons = description.split('\n').flatMap((line) => [.../^\[[^\]]+\]\(command:([\w.]+)(?:\?([^)]*))?\)$/.exec(line) ? [/^\[[^\]]+\]\(command:([\w.]+)(?:\?([^)]*))?\)$/.exec(line)!] : []]);
      assert.ok(buttons.length > 0, `${step.id} has no button`);
      for (const [, command, args] of buttons) {
        assert.ok(commands.has(command!) || command === 'workbench.action.openSettings', `${step.id}'s button runs ${command}, which is neither Evergreen's nor the settings editor`);
        if (args !== undefined) JSON.parse(decodeURIComponent(args));
        if (command === 'workbench.action.openSettings') assert.match(decodeURIComponent(args ?? ''), /^\["evergreen\.[\w.]+"\]$/, `${step.id}: the settings button opens an Evergreen setting`);
      }
      const media = step.media.markdown ?? step.media.svg ?? step.media.image;
      assert.ok(media?.startsWith('media/walkthrough/'), `${step.id}: media under media/walkthrough/`);
      assert.ok(fs.existsSync(path.join(ROOT, media!)), `${step.id}: ${media} is missing`);
      assert.ok(fs.statSync(path.join(ROOT, media!)).size < 4_096, `${step.id}: ${media} is over 4 KB (the .vsix has a size target)`);
      if (!step.media.markdown) assert.ok(shown(step.media.altText)?.trim(), `${step.id}: a picture needs its alt text`);
      for (const event of step.completionEvents ?? []) {
        const [kind, name] = event.split(/:(.*)/s);
        if (kind === 'onCommand') assert.ok(commands.has(name!), `${step.id}: ${event} names no contributed command`);
        else if (kind === 'onContext') assert.ok((Object.values(CONTEXT_KEYS) as string[]).includes(name!), `${step.id}: ${event} names no Evergreen context key`);
        else if (kind === 'onSettingChanged') assert.ok(SETTING_KEYS.map(settingName).includes(name!), `${step.id}: ${event} names no Evergreen setting`);
        else assert.fail(`${step.id}: unexpected completion event ${event}`);
      }
    }
    assert.match(ignored, /^!media\/\*\*$/m, 'the walkthrough media ship in the .vsix');
  });

  it('has what the Marketplace shows: a 128 px PNG icon, a banner, categories and keywords', () => {
    const icon = fs.readFileSync(path.join(ROOT, manifest.icon ?? 'missing'));
    assert.equal(icon.subarray(1, 4).toString('latin1'), 'PNG');
    assert.deepEqual([icon.readUInt32BE(16), icon.readUInt32BE(20)], [128, 128]);
    assert.match(manifest.galleryBanner?.color ?? '', /^#[0-9a-f]{6}$/i);
    assert.ok(manifest.galleryBanner?.theme === 'dark' || manifest.galleryBanner?.theme === 'light');
    assert.deepEqual(manifest.categories, ['AI', 'Chat']);
    assert.ok((manifest.keywords?.length ?? 0) >= 5 && (manifest.keywords?.length ?? 0) <= 30, 'vsce allows at most 30 keywords');
  });

  it('reads the when-clause forms it judges, and refuses the ones it cannot', () => {
    assert.equal(parseWhen('a && !b || c == x').evaluate({ a: true, b: true, c: 'x' }), true);
    assert.equal(parseWhen('a && (b || c != x)').evaluate({ a: true, b: false, c: 'x' }), false);
    assert.deepEqual(parseWhen('view == evergreen.chat').keys, ['view']);
    assert.throws(() => parseWhen('a =~ /x/'), /when-clause/);
    assert.throws(() => parseWhen('a && '), /when-clause/);
  });
});

describe("manifest: the chat view's title bar", () => {
  it('its clock reopens a past chat (Resume), as other chat views do; the read-only transcript is in the ... menu', () => {
    const bar = manifest.contributes.menus['view/title'] ?? [];
    const entry = (id: string) => bar.find((candidate) => candidate.command === `evergreen.${id}`) as { command: string; group?: string } | undefined;
    const iconOf = (id: string) => (manifest.contributes.commands.find((command) => command.command === `evergreen.${id}`) as { icon?: string } | undefined)?.icon;
    assert.match(entry('resumeSession')?.group ?? '', /^navigation/, 'Resume is a button of the title bar');
    assert.equal(iconOf('resumeSession'), '$(history)');
    assert.notEqual(iconOf('openArchivedTranscript'), '$(history)', 'one clock, and it resumes');
    assert.ok(entry('openArchivedTranscript'), 'the transcript stays reachable from the view');
    assert.doesNotMatch(entry('openArchivedTranscript')?.group ?? '', /^navigation/, 'in the overflow menu');
  });
});
