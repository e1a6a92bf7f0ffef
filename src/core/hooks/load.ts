/**
 * Every hook a session may run, from every place people keep them: the user setting
 * `evergreen.hooks`, `~/.claude/settings.json` and `~/.evergreen/settings.json`, the CLI's
 * `--settings`, and the workspace's `.claude/settings.json`, `.claude/settings.local.json` and
 * `.evergreen/settings.json`. A file that is missing is skipped; one that cannot be read or parsed
 * is a problem, and loading goes on. Which workspace hooks may run is consent.ts's question.
 */
import { constants as fsc, promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { errorMessage } from '../logger';
import { userText, type UserText } from '../texts/userText';
import { parseHookSettingsText, parseHookSettingsValue, type ConfiguredHook, type HookConfigProblem, type HookOrigin, type HookSettings } from './config';

/** The user's files, under the home folder, in the order they are read. */
export const USER_HOOK_FILES = ['.claude/settings.json', '.evergreen/settings.json'] as const;
/** The workspace's files, in the order they are read. */
export const WORKSPACE_HOOK_FILES = ['.claude/settings.json', '.claude/settings.local.json', '.evergreen/settings.json'] as const;
/** A settings file larger than this is refused unread (hooks are a few lines; a huge file is a mistake or an attack). */
export const MAX_SETTINGS_FILE_BYTES = 1024 * 1024;
export const HOOKS_SETTING = 'evergreen.hooks';

export interface HookSources {
  /** The setting `evergreen.hooks`: the `hooks` map itself (event → matcher groups). */
  userSetting?: unknown;
  /** The home folder (undefined: no user files are read). */
  homeDir?: string | undefined;
  /** The open folder (undefined: no workspace hooks). */
  workspaceRoot?: string | undefined;
  /** The CLI's `--settings`, each a file or, as Claude Code's flag allows, JSON text starting with `{`. */
  settings?: readonly string[];
}

export interface LoadedHooks {
  /** User hooks first, then the workspace's, each in file order. */
  hooks: ConfiguredHook[];
  problems: HookConfigProblem[];
}

/** Claude Code's files are strict JSON; Evergreen's own take comments and trailing commas, like VS Code's settings. */
const allowsComments = (file: string): boolean => path.basename(path.dirname(file)) !== '.claude';

/**
 * Reads one file without following it into a FIFO or a device (opened non-blocking, then checked to
 * be a regular file of a sane size). undefined: the file does not exist.
 */
async function readSettingsFile(file: string): Promise<{ text: string } | { problem: UserText } | undefined> {
  let handle: fsp.FileHandle;
  try {
    handle = await fsp.open(file, fsc.O_RDONLY | fsc.O_NONBLOCK | fsc.O_NOCTTY);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    return { problem: userText('hooks.fileUnreadable', { error: errorMessage(error) }) };
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return { problem: userText('hooks.notRegularFile', {}) };
    if (stat.size > MAX_SETTINGS_FILE_BYTES) return { problem: userText('hooks.fileTooLarge', { bytes: String(stat.size), max: String(MAX_SETTINGS_FILE_BYTES) }) };
    return { text: await handle.readFile('utf8') };
  } catch (error) {
    return { problem: userText('hooks.fileUnreadable', { error: errorMessage(error) }) };
  } finally {
    await handle.close().catch(() => undefined);
  }
}

async function loadFile(file: string, origin: HookOrigin, required: boolean): Promise<HookSettings> {
  const read = await readSettingsFile(file);
  if (read === undefined) {
    return { source: origin.source, hooks: [], disableAllHooks: false, problems: required ? [{ where: origin.source, message: userText('hooks.fileMissing', {}), level: 'error' }] : [] };
  }
  if ('problem' in read) return { source: origin.source, hooks: [], disableAllHooks: false, problems: [{ where: origin.source, message: read.problem, level: 'error' }] };
  return parseHookSettingsText(read.text, origin, { comments: allowsComments(file) });
}

function homeLabel(homeDir: string, file: string): string {
  return `~/${path.relative(homeDir, file).split(path.sep).join('/')}`;
}

async function userLevel(sources: HookSources): Promise<HookSettings[]> {
  const results: HookSettings[] = [];
  if (sources.userSetting !== undefined && sources.userSetting !== null) {
    results.push(parseHookSettingsValue(sources.userSetting, { scope: 'user', source: `the setting ${HOOKS_SETTING}`, label: HOOKS_SETTING }, { bare: true }));
  }
  if (sources.homeDir !== undefined) {
    for (const relative of USER_HOOK_FILES) {
      const file = path.join(sources.homeDir, relative);
      results.push(await loadFile(file, { scope: 'user', source: file, label: homeLabel(sources.homeDir, file) }, false));
    }
  }
  for (const [index, entry] of (sources.settings ?? []).entries()) {
    if (entry.trimStart().startsWith('{')) {
      const source = `--settings (argument ${index + 1})`;
      results.push(parseHookSettingsText(entry, { scope: 'user', source, label: '--settings' }, { comments: true }));
    } else {
      const file = path.resolve(entry);
      results.push(await loadFile(file, { scope: 'user', source: file, label: file }, true));
    }
  }
  return results;
}

async function workspaceLevel(workspaceRoot: string | undefined): Promise<HookSettings[]> {
  if (workspaceRoot === undefined) return [];
  const results: HookSettings[] = [];
  for (const relative of WORKSPACE_HOOK_FILES) {
    results.push(await loadFile(path.join(workspaceRoot, relative), { scope: 'workspace', source: path.join(workspaceRoot, relative), label: relative }, false));
  }
  return results;
}

/**
 * All hooks and the problems met. `"disableAllHooks": true` in a user-level file turns every hook
 * off; in a workspace file only the workspace's own (a repository cannot turn off the user's hooks,
 * nor turn back on what the user turned off).
 */
export async function loadHooks(sources: HookSources): Promise<LoadedHooks> {
  const user = await userLevel(sources);
  const workspace = await workspaceLevel(sources.workspaceRoot);
  const problems = [...user, ...workspace].flatMap((result) => result.problems);
  const userOff = user.find((result) => result.disableAllHooks);
  if (userOff) {
    return { hooks: [], problems: [...problems, { where: userOff.source, message: userText('hooks.userDisabledAll', {}), level: 'info' }] };
  }
  const workspaceOff = workspace.find((result) => result.disableAllHooks);
  const hooks = [...user.flatMap((result) => result.hooks), ...(workspaceOff ? [] : workspace.flatMap((result) => result.hooks))];
  if (workspaceOff) problems.push({ where: workspaceOff.source, message: userText('hooks.workspaceDisabledAll', {}), level: 'info' });
  return { hooks, problems };
}
