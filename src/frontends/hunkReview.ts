/**
 * Accepting and rejecting a background chat's changes hunk by hunk (issue 31), without `vscode`:
 * the decisions, which of them "Apply Accepted" brings home, and the words of the tree's rows and
 * of the result. A decision belongs to the hunk's content (its file, `@@` line and lines), not to
 * its position: when the chat changes the file again, a hunk that changed is undecided again and a
 * decision that no longer matches anything is dropped from what is applied, never applied to other lines.
 */
import { createHash } from 'node:crypto';
import * as l10n from '@vscode/l10n';
import { escapeLine } from '../core/visibleText';
import { WorktreeError, type WorktreeRecord } from '../core/worktrees/manager';
import { fileHunks, type BringHomeResult, type ChangeStatus, type FileChoice, type Hunk, type WorktreeChanges } from '../core/worktrees/review';
import { MAX_LISTED_FILES } from './backgroundChats';

/** A hunk's (or a whole file's) decision; `applied` once Apply Accepted brought it home. */
export type ChangeDecision = 'accepted' | 'rejected' | 'applied';

/** One changed file as the review lists it: its hunks, or undefined when it comes only whole (binary, a mode, a pure rename). */
export interface ReviewFile {
  path: string;
  status: ChangeStatus;
  hunks: Hunk[] | undefined;
}

/** The `viewItem` of the Changes rows: the menus offer Accept where it is not accepted yet, Reject where not rejected. */
export const CHANGE_ITEM_CONTEXT = { file: 'backgroundFile', hunk: (decision: ChangeDecision | undefined) => `backgroundHunk.${decision ?? 'undecided'}` } as const;

/** Every changed file with its hunks (read one by one: a file's patch is read when it is listed). */
export async function reviewFiles(changes: WorktreeChanges): Promise<ReviewFile[]> {
  const files: ReviewFile[] = [];
  for (const file of changes.files) {
    let hunks: Hunk[] | undefined;
    try {
      hunks = (await fileHunks(changes, file.path)).hunks;
    } catch (error) {
      // A binary file or a change with no text hunk is chosen whole; anything else is a real failure.
      if (!(error instanceof WorktreeError && error.said.kind === 'worktree.noTextHunks')) throw error;
    }
    files.push({ path: file.path, status: file.status, hunks });
  }
  return files;
}

/** What a decision is kept under: the hunk's file and content (or the file, for one chosen whole). */
export function changeKey(file: string, hunk: Hunk | undefined): string {
  const content = hunk === undefined ? `${file}\0whole` : `${file}\0${hunk.header}\0${hunk.lines.join('\n')}`;
  return createHash('sha256').update(content).digest('hex');
}

/** Every decision key of a file: its hunks', or its own when it comes whole. */
export function fileKeys(file: ReviewFile): string[] {
  return file.hunks === undefined ? [changeKey(file.path, undefined)] : file.hunks.map((hunk) => changeKey(file.path, hunk));
}

export interface ApplyPlan {
  choices: FileChoice[];
  /** The keys of what is chosen: marked applied once it is brought home. */
  keys: string[];
  counts: Record<ChangeDecision | 'undecided', number>;
}

/** The decisions of each chat (by its checkout and name), for the window's life. */
export class ChangeDecisions {
  private readonly byChat = new Map<string, Map<string, ChangeDecision>>();

  private chatKey(record: WorktreeRecord): string {
    return `${record.checkout}\0${record.name}`;
  }

  decision(record: WorktreeRecord, key: string): ChangeDecision | undefined {
    return this.byChat.get(this.chatKey(record))?.get(key);
  }

  /** Accepts or rejects these changes; one already applied stays applied (it is in the checkout now). */
  decide(record: WorktreeRecord, keys: readonly string[], decision: 'accepted' | 'rejected'): void {
    const chat = this.chatKey(record);
    const decided = this.byChat.get(chat) ?? new Map<string, ChangeDecision>();
    for (const key of keys) if (decided.get(key) !== 'applied') decided.set(key, decision);
    this.byChat.set(chat, decided);
  }

  markApplied(record: WorktreeRecord, keys: readonly string[]): void {
    const decided = this.byChat.get(this.chatKey(record)) ?? new Map<string, ChangeDecision>();
    for (const key of keys) decided.set(key, 'applied');
    this.byChat.set(this.chatKey(record), decided);
  }

  /** How many changes are accepted and not applied yet (the discard modal says they would be lost). */
  acceptedNotApplied(record: WorktreeRecord): number {
    return [...(this.byChat.get(this.chatKey(record))?.values() ?? [])].filter((decision) => decision === 'accepted').length;
  }

  /** A discarded chat's decisions go with it. */
  forget(record: WorktreeRecord): void {
    this.byChat.delete(this.chatKey(record));
  }

  /** What Apply Accepted brings home: each file whole when all of it is accepted, else its accepted hunks. */
  plan(record: WorktreeRecord, files: readonly ReviewFile[]): ApplyPlan {
    const counts: ApplyPlan['counts'] = { accepted: 0, rejected: 0, applied: 0, undecided: 0 };
    const choices: FileChoice[] = [];
    const keys: string[] = [];
    for (const file of files) {
      const decisions = fileKeys(file).map((key) => ({ key, decision: this.decision(record, key) }));
      for (const { decision } of decisions) counts[decision ?? 'undecided']++;
      const accepted = decisions.flatMap(({ key, decision }, index) => (decision === 'accepted' ? [{ key, index }] : []));
      if (accepted.length === 0) continue;
      keys.push(...accepted.map(({ key }) => key));
      choices.push({ path: file.path, hunks: accepted.length === decisions.length ? 'all' : accepted.map(({ index }) => index) });
    }
    return { choices, keys, counts };
  }
}

/** The lines of the chat's version a hunk covers, from its `@@ -a,b +c,d @@` line. */
export function hunkLines(hunk: Hunk): { start: number; count: number } {
  const match = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/.exec(hunk.header);
  return { start: Number(match?.[1] ?? 1), count: Number(match?.[2] ?? 1) };
}

export interface ChangeRow {
  label: string;
  description: string;
  tooltip: string;
}

// A function, so each word is looked up in the bundle the extension configured at activation.
const decisionWords = (): Record<ChangeDecision | 'undecided', string> => ({ accepted: l10n.t('accepted'), rejected: l10n.t('rejected'), applied: l10n.t('applied'), undecided: l10n.t('not decided') });

/** Where a hunk is, by the lines of the chat's version it covers. */
function hunkPlace(start: number, count: number): string {
  if (count === 0) return l10n.t('Removed after line {0}', start);
  return count === 1 ? l10n.t('Line {0}', start) : l10n.t('Lines {0}–{1}', start, start + count - 1);
}

/** A hunk as the tree shows it: the lines it covers, what it adds and removes, and its decision. */
export function hunkRow(hunk: Hunk, decision: ChangeDecision | undefined): ChangeRow {
  const { start, count } = hunkLines(hunk);
  const added = hunk.lines.filter((line) => line.startsWith('+')).length;
  const removed = hunk.lines.filter((line) => line.startsWith('-')).length;
  const shown = hunk.lines.slice(0, 40).map(escapeLine);
  return {
    label: hunkPlace(start, count),
    description: `+${added} −${removed} · ${decisionWords()[decision ?? 'undecided']}`,
    tooltip: [escapeLine(hunk.header), ...shown, ...(hunk.lines.length > shown.length ? [l10n.t('… {0} more lines', hunk.lines.length - shown.length)] : [])].join('\n'),
  };
}

/** A changed file as the tree shows it: its path, how it changed, and how many of its changes are accepted. */
export function fileRow(file: ReviewFile, decisions: readonly (ChangeDecision | undefined)[]): ChangeRow {
  const accepted = decisions.filter((decision) => decision === 'accepted' || decision === 'applied').length;
  const accepts = l10n.t('{0} of {1} accepted', accepted, decisions.length);
  const description = file.hunks === undefined ? l10n.t('{0} (whole file) · {1}', file.status, accepts) : `${file.status} · ${accepts}`;
  return { label: escapeLine(file.path), description, tooltip: `${escapeLine(file.path)}: ${description}` };
}

/** What Apply Accepted did, in the user's words: a conflict names each hunk in the way and why. */
export function applyAcceptedText(record: WorktreeRecord, plan: ApplyPlan, result: BringHomeResult): { level: 'info' | 'error'; message: string } {
  const left = plan.counts.rejected + plan.counts.undecided;
  switch (result.kind) {
    case 'applied': {
      const applied = [plan.keys.length, result.files.length, escapeLine(record.branch)] as const;
      const message =
        left > 0
          ? l10n.t('Applied {0} accepted change(s) in {1} file(s) of {2} to your checkout as uncommitted changes. {3} change(s) rejected or not decided were left out. Review them in Source Control.', ...applied, left)
          : l10n.t('Applied {0} accepted change(s) in {1} file(s) of {2} to your checkout as uncommitted changes. Review them in Source Control.', ...applied);
      return { level: 'info', message };
    }
    case 'nothing':
    case 'merged':
      return { level: 'info', message: l10n.t('Nothing is accepted in {0} yet: accept hunks or files in its Changes (✓), then apply again.', escapeLine(record.name)) };
    case 'conflict': {
      const named = (result.hunks ?? []).slice(0, MAX_LISTED_FILES).map((conflict) => {
        if (conflict.hunk === undefined) return `${escapeLine(conflict.path)} (${escapeLine(conflict.reason)})`;
        const { start, count } = hunkLines({ header: conflict.hunk.header, lines: [] });
        return `${escapeLine(conflict.path)} ${hunkPlace(start, count).toLocaleLowerCase()} (${escapeLine(conflict.reason)})`;
      });
      const inTheWay = named.length > 0 ? named.join('; ') : result.files.map(escapeLine).join(', ');
      return {
        level: 'error',
        message: l10n.t('The accepted changes do not all apply to your checkout as it is now, so nothing was changed. In the way: {0}. Reject those, or bring your own changes of those lines out of the way, then apply again.', inTheWay),
      };
    }
  }
}
