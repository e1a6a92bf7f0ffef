/**
 * The CLI's worktrees (issue 31): `--worktree [NAME]` runs the chat in a new Git worktree of the
 * workspace, `--resume` finds a session's worktree again, and the worktree commands list, review,
 * bring home or discard them without talking to a model.
 */
import * as path from 'node:path';
import type { WorktreeGitAccess } from '../core/sandbox/worktreeGit';
import { verbatim } from '../core/texts/userText';
import { escapeLine } from '../core/visibleText';
import { discardWorktree, planDiscard } from '../core/worktrees/discard';
import { gitAccessOf, WorktreeError, type WorktreeManager, type WorktreeRecord } from '../core/worktrees/manager';
import { inspectRepository } from '../core/worktrees/repository';
import { word } from '../frontends/words';
import { applyToCheckout, changesPatch, mergeBranch, protectedChanges, worktreeChanges, type BringHomeResult } from '../core/worktrees/review';
import type { CliOptions, WorktreeCommand } from './args';

/** Where a chat runs: the workspace itself, or a worktree of it (its folder is the workspace then). */
export interface RunPlace {
  workspace: string;
  worktree?: { record: WorktreeRecord; access: WorktreeGitAccess };
}

/** The worktree a run works in: a new one for --worktree, the session's own on --resume, else none. */
export async function placeForRun(manager: WorktreeManager, workspace: string, options: Pick<CliOptions, 'worktree' | 'resume'>, task: string, note: (text: string) => void): Promise<RunPlace> {
  const { worktree, resume: resumeId } = options;
  if (resumeId !== undefined) {
    const record = await manager.findBySession(resumeId);
    if (!record) return { workspace };
    const health = await manager.health(record);
    if (health.kind !== 'ready') throw new WorktreeError('git', verbatim(`${word(health.reason)} Session ${resumeId} worked there; --discard-worktree ${record.name} forgets it.`));
    return { workspace: record.folder, worktree: { record, access: gitAccessOf(record) } };
  }
  if (worktree === undefined) return { workspace };
  const record = await manager.create({ checkout: workspace, name: worktree === '' ? undefined : worktree, task });
  note(`working in the worktree ${record.folder} on the branch ${record.branch}`);
  return { workspace: record.folder, worktree: { record, access: gitAccessOf(record) } };
}

/** What the user is told when a worktree cannot be used; anything but a WorktreeError is not ours to word. */
export function worktreeFailureText(error: unknown): string {
  if (!(error instanceof WorktreeError)) throw error;
  return error.kind === 'unavailable' ? `${word(error.said)} Run without --worktree for a chat in the workspace itself.` : word(error.said);
}

/** Runs one worktree command; returns the exit code (1 when something was refused). */
export async function runWorktreeCommand(command: WorktreeCommand, manager: WorktreeManager, workspace: string, yes: boolean, out: (line: string) => void): Promise<number> {
  const repository = await inspectRepository(workspace);
  if (repository.kind !== 'repository') throw new WorktreeError('unavailable', repository.reason, repository);
  if (command.kind === 'list') {
    const { worktrees, problems } = await manager.list(repository.top);
    if (worktrees.length === 0) out(`No worktrees of ${repository.top}: run with --worktree [NAME] -p "…" to start a chat in one.`);
    for (const record of worktrees) {
      const health = await manager.health(record);
      out([record.name, record.branch, record.folder, health.kind, record.sessionId ?? '-', escapeLine(record.task ?? '')].join('\t'));
    }
    for (const problem of problems) out(`unreadable\t${problem.file}\t${escapeLine(word(problem.problem))}`);
    return 0;
  }
  const record = await manager.find(repository.top, command.name);
  if (!record) throw new WorktreeError('name', verbatim(`There is no worktree named "${command.name}" for ${repository.top}; --list-worktrees shows them.`));
  switch (command.kind) {
    case 'changes': {
      const changes = await worktreeChanges(record);
      out(`# ${record.branch}: ${changes.commits} commit(s) and ${changes.files.length} file(s) changed since ${record.base.slice(0, 12)}`);
      for (const file of changes.files) out(`# ${file.status}\t${escapeLine(file.from === undefined ? file.path : `${file.from} -> ${file.path}`)}`);
      const patch = await changesPatch(changes);
      if (patch !== '') out(patch.replace(/\n$/, ''));
      return 0;
    }
    case 'apply':
    case 'merge': {
      const changes = await worktreeChanges(record);
      const guarded = protectedChanges(changes);
      if (guarded.length > 0 && !yes) {
        for (const file of guarded) out(`protected\t${escapeLine(file.path)}\t${file.reason}`);
        out(`Nothing was brought home: the chat changed files that run commands or configure your tools. Look at them (--worktree-changes ${record.name}), then run again with --yes to bring them home too.`);
        return 1;
      }
      return report(command.kind === 'apply' ? await applyToCheckout(changes) : await mergeBranch(record), record, out);
    }
    case 'discard':
      return discard(manager, record, yes, out);
  }
}

function report(result: BringHomeResult, record: WorktreeRecord, out: (line: string) => void): number {
  switch (result.kind) {
    case 'applied':
      for (const file of result.files) out(`applied\t${escapeLine(file)}`);
      out(`The changes of ${record.branch} are in ${record.checkout} as uncommitted changes.`);
      return 0;
    case 'merged':
      out(`Merged ${record.branch} as ${result.commit.slice(0, 12)}.`);
      return 0;
    case 'nothing':
      out(`${record.branch} has nothing to bring home.`);
      return 0;
    case 'conflict':
      for (const file of result.files) out(`conflict\t${escapeLine(file)}`);
      out(escapeLine(word(result.reason)));
      return 1;
  }
}

async function discard(manager: WorktreeManager, record: WorktreeRecord, yes: boolean, out: (line: string) => void): Promise<number> {
  const plan = await planDiscard(record);
  for (const file of plan.uncommitted) out(`uncommitted\t${escapeLine(file)}`);
  for (const commit of plan.commits) out(`commit\t${commit.sha.slice(0, 12)}\t${escapeLine(commit.subject)}`);
  const loses = plan.uncommitted.length + plan.commitCount === 0 ? 'nothing that is not elsewhere' : `${plan.uncommitted.length} uncommitted file(s) and ${plan.commitCount} commit(s) only ${record.branch} holds`;
  if (!yes) {
    out(`Discarding ${record.name} removes ${record.folder} and ${record.branch}, losing ${loses}. Run again with --yes to discard it.`);
    return 1;
  }
  await discardWorktree(manager, plan);
  out(`Discarded ${record.name}: ${path.basename(record.folder)} and ${record.branch} are gone (lost ${loses}).`);
  return 0;
}
