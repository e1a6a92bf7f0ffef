// After a command ran in the workspace overlay: what it wrote, checked, then applied — what would
// run outside the sandbox only with the user's yes, and kept aside in the session folder when
// declined, so nothing the command made is lost.
import * as path from 'node:path';
import type { Logger } from '../logger';
import type { SandboxChange } from '../shell/commandSandbox';
import { guardOverlayChanges } from './gitGuard';
import { OVERLAY_FAILURE_PREFIX, readOverlayManifest, type OverlayDirs } from './overlay';
import { applyOverlayChanges, collectOverlayChanges, displayPath, isAtOrBelow, toByteString } from './overlayChanges';
import { OVERLAY_ALSO_HELD, WORKSPACE_CREATE_PROTECTED, type HeldWhy } from './policy';

export interface OverlayFinishInput {
  dirs: OverlayDirs;
  workspaceRoot: string;
  /** Where declined changes are kept (a folder per command is made below it). */
  heldRoot: string;
  /** The command's output, to find the wrapper's own failure message in. */
  output: string;
  approveHeld(changes: SandboxChange[]): Promise<boolean>;
  logger: Logger;
  /** Workspace-relative paths where bubblewrap made a mount point (not the command's writes): never applied. */
  ignored: readonly string[];
}

/** Lines for the tool result ([sandbox] …), empty when everything was applied as written. */
export async function finishOverlayCommand(input: OverlayFinishInput): Promise<string[]> {
  const { dirs, workspaceRoot, logger } = input;
  const manifest = readOverlayManifest(dirs.manifest);
  if (manifest === undefined) {
    const why = input.output.split('\n').filter((line) => line.includes('mount') || line.includes(OVERLAY_FAILURE_PREFIX));
    logger.error(`sandbox: the workspace overlay was not mounted: ${why.join(' | ') || 'no message'}`);
    return [`The sandbox could not mount its view of the workspace, so the command did not run.${why.length > 0 ? ` (${why.join('; ')})` : ''}`];
  }
  if (!manifest.complete) logger.warn('sandbox: the command was stopped before its folders were listed; deletions in a folder it emptied and made again may be missed');
  const ignored = input.ignored.map(toByteString);
  const changes = collectOverlayChanges(dirs.upper, workspaceRoot, manifest.listings, logger).filter((change) => !ignored.some((root) => isAtOrBelow(change.path, root)));
  if (changes.length === 0) return [];
  const createProtected = new Map<string, HeldWhy | undefined>([...WORKSPACE_CREATE_PROTECTED.map((name) => [name, undefined] as const), ...Object.entries(OVERLAY_ALSO_HELD)]);
  const guarded = await guardOverlayChanges({ changes, upperRoot: dirs.upper, workspaceRoot, createProtected });
  const notes: string[] = [];
  let declined: string[] = [];
  if (guarded.length > 0) {
    const held = guarded.map((item) => ({ path: displayPath(item.path), reason: item.said, ...(item.detail === undefined ? {} : { detail: item.detail }) }));
    let approved = false;
    try {
      approved = await input.approveHeld(held);
    } catch (error) {
      logger.error(`sandbox: asking about held changes failed, so they are kept aside: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (approved) notes.push(`Applied with the user's approval: ${held.map((item) => item.path).join(', ')}.`);
    else declined = guarded.map((item) => item.path);
  }
  const outcome = applyOverlayChanges(changes, dirs.upper, workspaceRoot, declined, logger);
  if (declined.length > 0) {
    const keptIn = path.join(input.heldRoot, `${new Date().toISOString().replace(/[:.]/g, '-')}-${process.pid}`);
    const keep = changes.filter((change) => change.kind !== 'delete' && declined.some((root) => isAtOrBelow(change.path, root)));
    const kept = applyOverlayChanges(keep, dirs.upper, keptIn, [], logger);
    const list = guarded.map((item) => `${displayPath(item.path)} (${item.reason})`).join('; ');
    notes.push(
      `Not applied, since the user did not approve them: ${list}. They would make programs outside the sandbox run commands.` +
        (kept.failures.length === 0 ? ` They are kept in ${keptIn}.` : ` Keeping them in ${keptIn} failed in part: ${kept.failures.join('; ')}.`) +
        ' Everything else the command wrote was applied.',
    );
  }
  if (outcome.failures.length > 0) notes.push(`Some of what the command wrote could not be applied to the workspace: ${outcome.failures.join('; ')}.`);
  return notes;
}
