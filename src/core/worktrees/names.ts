/**
 * A worktree's short name: its folder's name and the end of its branch, `evergreen/<name>`. Given
 * by the user (checked, never changed) or made from the task's first words.
 */
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { userText, type UserText } from '../texts/userText';

/** Every chat branch starts with this, so a user's own branches are never taken. */
export const BRANCH_PREFIX = 'evergreen/';

/** Letters, digits, `-` and `_`, starting with a letter or digit: a safe folder name and ref component everywhere. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
export const MAX_NAME_LENGTH = 40;
/** How many numbered variants of a name made from a task are tried before giving up. */
export const MAX_NAME_SUFFIX = 99;

/** Why `name` cannot name a worktree (what the user is told), or undefined when it can. */
export function nameProblem(name: string): UserText | undefined {
  if (name === '') return userText('worktree.nameEmpty', {});
  if (name.length > MAX_NAME_LENGTH) return userText('worktree.nameTooLong', { name, max: MAX_NAME_LENGTH });
  if (!NAME.test(name)) return userText('worktree.nameCharacters', { name });
  return undefined;
}

/** A name from the task's first words ("Fix the parser's error message" → fix-the-parser-s-error): ASCII, lower case, cut at a word. */
export function nameFromTask(task: string): string {
  const words = task
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');
  let name = '';
  for (const word of words) {
    const next = name === '' ? word : `${name}-${word}`;
    if (next.length > 32) break;
    name = next;
  }
  // One word longer than the cap is cut; no word at all (a task in another script) is a "chat".
  if (name === '') name = words[0]?.slice(0, 32) ?? '';
  return name === '' ? 'chat' : name;
}

/** `name`, then `name-2`, `name-3`, … for a name made from a task that is taken. */
export function numberedName(name: string, attempt: number): string {
  if (attempt <= 1) return name;
  const suffix = `-${attempt}`;
  return `${name.slice(0, MAX_NAME_LENGTH - suffix.length)}${suffix}`;
}

/**
 * The folder one repository's worktrees (and their records) are kept in: the checkout's name made
 * safe, and a hash of its path, so two checkouts called `app` do not share one.
 */
export function repositoryKey(checkoutTop: string): string {
  const base = nameFromTask(path.basename(checkoutTop)).slice(0, 24);
  return `${base}-${createHash('sha256').update(checkoutTop).digest('hex').slice(0, 8)}`;
}
