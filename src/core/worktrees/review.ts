/**
 * What a chat changed in its worktree, and bringing it home (issue 31). The changes are measured
 * from the branch point to the worktree as it is now: its commits and its uncommitted and
 * untracked files (not the ignored ones), as the user would see them if they opened the folder.
 * They are read through a temporary index, so the worktree's own index (the chat's staging) is not
 * touched. Bringing them home never resolves a conflict: `apply` changes the checkout's files
 * only when every change applies to them as they are, `merge` undoes a merge that conflicts, and
 * both say which files were in the way.
 */
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { protectedWriteReason } from '../approvals/protectedPaths';
import { gitText, nulList, runGit, userIdentity } from '../git';
import { errorMessage } from '../logger';
import { userText, type UserText } from '../texts/userText';
import { worktreeGitOptions, WorktreeError, type WorktreeRecord } from './manager';

export type ChangeStatus = 'added' | 'deleted' | 'modified' | 'renamed' | 'type-changed';

export interface ChangedFile {
  /** Worktree-relative, `/`-separated; for a rename, the new name. */
  path: string;
  /** A rename's old name. */
  from?: string;
  status: ChangeStatus;
}

export interface WorktreeChanges {
  record: WorktreeRecord;
  /** The tree the worktree holds now (commits and uncommitted files): what was compared with the base. */
  tree: string;
  files: ChangedFile[];
  /** Commits on the branch since the branch point. */
  commits: number;
}

const STATUS: Record<string, ChangeStatus> = { A: 'added', D: 'deleted', M: 'modified', R: 'renamed', T: 'type-changed' };

/** The worktree's whole state as a tree, through a temporary index (the worktree's own is left as it is). */
async function currentTree(record: WorktreeRecord): Promise<string> {
  const scratch = await fsp.mkdtemp(path.join(os.tmpdir(), 'evergreen-review-'));
  try {
    const git = worktreeGitOptions(record, { GIT_INDEX_FILE: path.join(scratch, 'index') });
    await runGit(['read-tree', 'HEAD'], git);
    await runGit(['add', '--all', '--', '.'], git);
    return await gitText(['write-tree'], git);
  } finally {
    await fsp.rm(scratch, { recursive: true, force: true });
  }
}

/** What the chat changed since the branch point, file by file. Throws WorktreeError when the folder is gone. */
export async function worktreeChanges(record: WorktreeRecord): Promise<WorktreeChanges> {
  let tree: string;
  try {
    tree = await currentTree(record);
  } catch (error) {
    throw new WorktreeError('git', userText('worktree.changesUnreadable', { name: record.name, folder: record.folder, error: errorMessage(error) }));
  }
  const git = worktreeGitOptions(record);
  const listed = nulList((await runGit(['diff', '--name-status', '-z', '--find-renames', '--no-ext-diff', record.base, tree], git)).stdout);
  const files: ChangedFile[] = [];
  for (let index = 0; index < listed.length; index++) {
    const code = listed[index]!;
    const status = STATUS[code[0]!] ?? 'modified';
    if (status === 'renamed') {
      const from = listed[++index]!;
      files.push({ path: listed[++index]!, from, status });
    } else {
      files.push({ path: listed[++index]!, status });
    }
  }
  const commits = Number(await gitText(['rev-list', '--count', `${record.base}..HEAD`], git));
  return { record, tree, files, commits };
}

/** The changes as one patch (binary files included), of every file or only of `paths`. */
export async function changesPatch(changes: WorktreeChanges, paths?: readonly string[]): Promise<string> {
  const run = await runGit(['diff', '--binary', '--find-renames', '--no-ext-diff', '--no-color', changes.record.base, changes.tree, '--', ...pathspecs(changes, paths)], worktreeGitOptions(changes.record));
  return run.stdout.toString('utf8');
}

/** Literal pathspecs of the chosen files (a rename brings its old name along); every file when none are chosen. */
function pathspecs(changes: WorktreeChanges, paths: readonly string[] | undefined): string[] {
  if (paths === undefined) return [];
  const known = new Map(changes.files.map((file) => [file.path, file]));
  const unknown = paths.filter((file) => !known.has(file));
  if (unknown.length > 0) throw new WorktreeError('git', userText('worktree.didNotChange', { name: changes.record.name, files: unknown.join(', ') }));
  return paths.flatMap((file) => [file, ...(known.get(file)?.from === undefined ? [] : [known.get(file)!.from!])]).map((file) => `:(literal)${file}`);
}

/**
 * The changed files that a write tool could not write without asking (approvals/protectedPaths.ts:
 * editor and Git settings, the files that configure commands): bringing them home into the
 * checkout is the user's own decision, asked for each time, never the chat's.
 */
export function protectedChanges(changes: WorktreeChanges): { path: string; reason: string }[] {
  return changes.files.flatMap((file) => {
    const reason = [file.path, ...(file.from === undefined ? [] : [file.from])].map((name) => protectedWriteReason(name)).find((why) => why !== undefined);
    return reason === undefined ? [] : [{ path: file.path, reason }];
  });
}

/** A chosen change that does not apply to the checkout as it is: a hunk (its index and `@@` line) or a whole file, with Git's words. */
export interface ChangeConflict {
  path: string;
  hunk?: { index: number; header: string };
  reason: string;
}

export type BringHomeResult =
  | { kind: 'applied'; files: string[] }
  | { kind: 'merged'; commit: string }
  /** `hunks`: when the changes were chosen hunk by hunk, each one that does not apply on its own. */
  | { kind: 'conflict'; files: string[]; reason: UserText; hunks?: ChangeConflict[] }
  | { kind: 'nothing' };

/**
 * Applies the chat's changes (all, or the files in `paths`) to the user's checkout as uncommitted
 * changes: its index, HEAD and branch are not touched. When any change does not apply to the
 * checkout's files as they are, nothing is changed and the files in the way are named.
 */
export async function applyToCheckout(changes: WorktreeChanges, paths?: readonly string[]): Promise<BringHomeResult> {
  const patch = await changesPatch(changes, paths);
  if (patch.trim() === '') return { kind: 'nothing' };
  const chosen = paths === undefined ? changes.files : changes.files.filter((file) => paths.includes(file.path));
  return applyPatch(changes.record.checkout, patch, chosen.map((file) => file.path), (git) => userText('worktree.changesDoNotApply', { git }));
}

/** `git apply` of the whole patch to the checkout's files, or nothing at all when any part does not apply. */
async function applyPatch(checkout: string, patch: string, files: string[], refused: (git: string) => UserText): Promise<BringHomeResult> {
  const git = { cwd: checkout, input: patch };
  const check = await checkPatch(checkout, patch);
  if (check.code !== 0) return { kind: 'conflict', files: filesInTheWay(check.stderr), reason: refused(check.stderr.trim()) };
  await runGit(['apply', '--whitespace=nowarn', '-'], git);
  return { kind: 'applied', files };
}

/** `git apply --check`: whether the patch applies to the checkout's files as they are, changing nothing. */
function checkPatch(checkout: string, patch: string): Promise<{ code: number; stderr: string }> {
  return runGit(['apply', '--check', '--whitespace=nowarn', '-'], { cwd: checkout, input: patch, allowFailure: true });
}

/** The files `git apply` or `git merge` named as the ones in the way. */
function filesInTheWay(stderr: string): string[] {
  const files = new Set<string>();
  for (const match of stderr.matchAll(/^error: (?:patch failed: (.+):\d+|(.+): (?:already exists in working directory|does not exist in working directory|patch does not apply|does not match index))$/gm)) {
    const file = match[1] ?? match[2];
    if (file !== undefined) files.add(file);
  }
  for (const match of stderr.matchAll(/^CONFLICT \([^)]*\): .*? in (.+)$/gm)) files.add(match[1]!);
  return [...files].sort();
}

/**
 * Merges the chat's branch into the branch the checkout has out (a merge commit, with the user's
 * Git identity). Only the branch's commits come: uncommitted files in the worktree do not, which
 * the caller says first. A merge that conflicts is undone (`git merge --abort`) and the
 * conflicting files named; Git refuses by itself when the user's own changes are in the way.
 */
export async function mergeBranch(record: WorktreeRecord): Promise<BringHomeResult> {
  const git = { cwd: record.checkout };
  const ahead = Number(await gitText(['rev-list', '--count', `HEAD..refs/heads/${record.branch}`], git));
  if (ahead === 0) return { kind: 'nothing' };
  const identity = await userIdentity(record.checkout);
  const merged = await runGit(['merge', '--no-ff', '--no-edit', '-m', `Merge ${record.branch} (Evergreen chat ${record.name})`, `refs/heads/${record.branch}`], { ...git, env: identity, allowFailure: true });
  if (merged.code === 0) return { kind: 'merged', commit: await gitText(['rev-parse', 'HEAD'], git) };
  const said = `${merged.stdout.toString('utf8')}\n${merged.stderr}`;
  const inMerge = (await runGit(['rev-parse', '--verify', '--quiet', 'MERGE_HEAD'], { ...git, allowFailure: true })).code === 0;
  if (inMerge) {
    const conflicted = nulList((await runGit(['diff', '--name-only', '--diff-filter=U', '-z'], git)).stdout);
    await runGit(['merge', '--abort'], git).catch((error: unknown) => {
      throw new WorktreeError('git', userText('worktree.mergeNotUndone', { branch: record.branch, error: errorMessage(error), checkout: record.checkout }));
    });
    return { kind: 'conflict', files: conflicted, reason: userText('worktree.mergeConflicts', { branch: record.branch, files: conflicted.join(', ') }) };
  }
  return { kind: 'conflict', files: filesInTheWay(said), reason: userText('worktree.mergeRefused', { branch: record.branch, git: said.trim() }) };
}

/** One hunk of a file's changes, as the user picks it. */
export interface Hunk {
  /** Its `@@ -a,b +c,d @@` line. */
  header: string;
  /** Its lines after the header (context, `-` and `+`), as in the patch. */
  lines: string[];
}

/** A text file's changes split into hunks, with the patch's file header kept to build a patch of some of them. */
export interface FileHunks {
  path: string;
  /** The `diff --git` header up to the first hunk. */
  fileHeader: string;
  hunks: Hunk[];
}

/** The hunks of one changed file; a binary file or a change without a text hunk (a mode, an empty file) throws: it is applied whole. */
export async function fileHunks(changes: WorktreeChanges, file: string): Promise<FileHunks> {
  const patch = await changesPatch(changes, [file]);
  const start = patch.search(/^@@ /m);
  if (start < 0 || /^GIT binary patch$/m.test(patch)) throw new WorktreeError('git', userText('worktree.noTextHunks', { file }));
  const hunks = patch
    .slice(start)
    .split(/^(?=@@ )/m)
    .map((text) => {
      const [header, ...lines] = text.replace(/\n$/, '').split('\n');
      return { header: header!, lines };
    });
  return { path: file, fileHeader: patch.slice(0, start), hunks };
}

/**
 * Applies only the chosen hunks of one file (indexes into `fileHunks`) to the checkout, as
 * uncommitted changes; the rest are left out. As `applyToCheckout`: nothing changes when one of
 * them does not apply. Git finds each hunk by its context, so leaving an earlier one out is fine.
 */
export async function applyHunks(changes: WorktreeChanges, file: FileHunks, chosen: readonly number[]): Promise<BringHomeResult> {
  checkHunkIndexes(file, chosen);
  if (chosen.length === 0) return { kind: 'nothing' };
  return applyPatch(changes.record.checkout, hunksPatch(file, chosen), [file.path], (git) => userText('worktree.hunksDoNotApply', { file: file.path, git }));
}

function checkHunkIndexes(file: FileHunks, chosen: readonly number[]): void {
  const bad = chosen.filter((index) => !Number.isInteger(index) || index < 0 || index >= file.hunks.length);
  if (bad.length > 0) throw new WorktreeError('git', userText('worktree.noSuchHunk', { file: file.path, count: file.hunks.length, hunks: bad.join(', ') }));
}

/** A patch of some of a file's hunks, in the file's order: its header, then the hunks. */
function hunksPatch(file: FileHunks, chosen: readonly number[]): string {
  const picked = [...new Set(chosen)].sort((a, b) => a - b).map((index) => file.hunks[index]!);
  return `${file.fileHeader}${picked.map((hunk) => [hunk.header, ...hunk.lines].join('\n')).join('\n')}\n`;
}

/** Which of a file's changes to bring home: all of it (any file, a binary one too), or some of its hunks (indexes into `fileHunks`). */
export interface FileChoice {
  path: string;
  hunks: 'all' | readonly number[];
}

/**
 * Applies the chosen changes of several files to the checkout as uncommitted changes, as one patch:
 * every chosen file and hunk, or nothing at all when one does not apply. Then each chosen part is
 * checked on its own, so the conflict names the very hunks (or whole files) in the way and why.
 */
export async function applyChoices(changes: WorktreeChanges, choices: readonly FileChoice[]): Promise<BringHomeResult> {
  const parts: { path: string; hunk?: { index: number; header: string }; patch: string }[] = [];
  const sections: string[] = [];
  for (const choice of choices) {
    if (choice.hunks === 'all') {
      const patch = await changesPatch(changes, [choice.path]);
      parts.push({ path: choice.path, patch });
      sections.push(patch);
      continue;
    }
    if (choice.hunks.length === 0) continue;
    const file = await fileHunks(changes, choice.path);
    checkHunkIndexes(file, choice.hunks);
    for (const index of choice.hunks) parts.push({ path: choice.path, hunk: { index, header: file.hunks[index]!.header }, patch: hunksPatch(file, [index]) });
    sections.push(hunksPatch(file, choice.hunks));
  }
  const patch = sections.join('');
  if (patch.trim() === '') return { kind: 'nothing' };
  const result = await applyPatch(changes.record.checkout, patch, [...new Set(parts.map((part) => part.path))], (git) => userText('worktree.acceptedDoNotApply', { git }));
  if (result.kind !== 'conflict') return result;
  const hunks: ChangeConflict[] = [];
  for (const part of parts) {
    const check = await checkPatch(changes.record.checkout, part.patch);
    if (check.code !== 0) hunks.push({ path: part.path, ...(part.hunk ? { hunk: part.hunk } : {}), reason: check.stderr.trim().split('\n').join(' ') });
  }
  return { ...result, hunks };
}

/**
 * A file's bytes at the branch point, for the left side of a diff (`cat-file`, which runs no
 * filter or textconv the repository's attributes might name). A file that did not exist there is empty.
 */
export async function fileAtBase(record: WorktreeRecord, file: string): Promise<Buffer> {
  const run = await runGit(['cat-file', 'blob', `${record.base}:${file}`], { ...worktreeGitOptions(record), allowFailure: true });
  return run.code === 0 ? run.stdout : Buffer.alloc(0);
}
