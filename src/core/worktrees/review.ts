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
import { GitError, gitText, nulList, runGit, userIdentity } from '../git';
import { errorMessage } from '../logger';
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
    throw new WorktreeError('git', `The changes in the worktree ${record.name} (${record.folder}) cannot be read: ${errorMessage(error)}`);
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
  if (unknown.length > 0) throw new WorktreeError('git', `The worktree ${changes.record.name} did not change ${unknown.join(', ')}; nothing was applied.`);
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

export type BringHomeResult = { kind: 'applied'; files: string[] } | { kind: 'merged'; commit: string } | { kind: 'conflict'; files: string[]; reason: string } | { kind: 'nothing' };

/**
 * Applies the chat's changes (all, or the files in `paths`) to the user's checkout as uncommitted
 * changes: its index, HEAD and branch are not touched. When any change does not apply to the
 * checkout's files as they are, nothing is changed and the files in the way are named.
 */
export async function applyToCheckout(changes: WorktreeChanges, paths?: readonly string[]): Promise<BringHomeResult> {
  const patch = await changesPatch(changes, paths);
  if (patch.trim() === '') return { kind: 'nothing' };
  const chosen = paths === undefined ? changes.files : changes.files.filter((file) => paths.includes(file.path));
  return applyPatch(changes.record.checkout, patch, chosen.map((file) => file.path), 'The changes');
}

/** `git apply` of the whole patch to the checkout's files, or nothing at all when any part does not apply. */
async function applyPatch(checkout: string, patch: string, files: string[], what: string): Promise<BringHomeResult> {
  const git = { cwd: checkout, input: patch };
  const check = await runGit(['apply', '--check', '--whitespace=nowarn', '-'], { ...git, allowFailure: true });
  if (check.code !== 0) return { kind: 'conflict', files: filesInTheWay(check.stderr), reason: `${what} do not apply to your checkout as it is now, so nothing was changed. Git says: ${check.stderr.trim()}` };
  await runGit(['apply', '--whitespace=nowarn', '-'], git);
  return { kind: 'applied', files };
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
      throw new GitError(`The merge of ${record.branch} conflicted and could not be undone (${errorMessage(error)}); run git merge --abort in ${record.checkout}.`);
    });
    return { kind: 'conflict', files: conflicted, reason: `Merging ${record.branch} conflicts with your branch in ${conflicted.join(', ')}; the merge was undone and nothing changed. Merge it yourself to resolve them, or apply only the other files.` };
  }
  return { kind: 'conflict', files: filesInTheWay(said), reason: `Git did not merge ${record.branch}, and nothing changed: ${said.trim()}` };
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
  if (start < 0 || /^GIT binary patch$/m.test(patch)) throw new WorktreeError('git', `${file} has no text hunks to choose from (a binary file or a change of its mode); apply it whole.`);
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
  const bad = chosen.filter((index) => !Number.isInteger(index) || index < 0 || index >= file.hunks.length);
  if (bad.length > 0) throw new WorktreeError('git', `${file.path} has ${file.hunks.length} hunk(s); there is no hunk ${bad.join(', ')}. Nothing was applied.`);
  if (chosen.length === 0) return { kind: 'nothing' };
  const picked = [...new Set(chosen)].sort((a, b) => a - b).map((index) => file.hunks[index]!);
  const patch = `${file.fileHeader}${picked.map((hunk) => [hunk.header, ...hunk.lines].join('\n')).join('\n')}\n`;
  return applyPatch(changes.record.checkout, patch, [file.path], `The chosen hunks of ${file.path}`);
}

/**
 * A file's bytes at the branch point, for the left side of a diff (`cat-file`, which runs no
 * filter or textconv the repository's attributes might name). A file that did not exist there is empty.
 */
export async function fileAtBase(record: WorktreeRecord, file: string): Promise<Buffer> {
  const run = await runGit(['cat-file', 'blob', `${record.base}:${file}`], { ...worktreeGitOptions(record), allowFailure: true });
  return run.code === 0 ? run.stdout : Buffer.alloc(0);
}
