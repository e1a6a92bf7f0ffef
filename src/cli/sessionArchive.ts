import * as path from 'node:path';
import { exportSessionToZip } from '../core/archive/exportSession';
import { importSessionArchive } from '../core/archive/importSession';
import { SessionArchiveError } from '../core/archive/layout';
import { workspaceRepository } from '../core/archive/repository';
import { SessionNotFoundError, type FileSessionStore } from '../core/storage/sessionStore';
import type { ArchiveCommand } from './args';

/** What the terminal shows of an archive command; `say` goes to stdout, `warn` to stderr (both escaped by the caller). */
export interface ArchiveOutput {
  say(text: string): void;
  warn(text: string): void;
}

/**
 * `--export-session ID FILE` and `--import-session FILE`. An import into another repository's
 * workspace is warned about and goes on (the user chose the file); every refusal says why and
 * leaves the storage as it was. Returns the exit code.
 */
export async function runArchiveCommand(command: ArchiveCommand, store: FileSessionStore, workspace: string, cwd: string, out: ArchiveOutput): Promise<number> {
  const file = path.resolve(cwd, command.file);
  try {
    if (command.kind === 'export') {
      const manifest = await exportSessionToZip({ store, sessionId: command.sessionId, repository: await workspaceRepository(workspace), workspaceRoot: workspace }, file);
      out.say(`Exported session ${manifest.sessionId} to ${file} (${Object.keys(manifest.files).length + 1} files).`);
      return 0;
    }
    const result = await importSessionArchive(store, file, { workspaceRepository: await workspaceRepository(workspace) });
    for (const warning of result.warnings) out.warn(`warning: ${warning}`);
    if (result.status !== 'imported') return 1;
    if (result.transcriptProblems.length > 0) out.warn(`warning: ${result.transcriptProblems.length} line(s) of its transcript cannot be read (line ${result.transcriptProblems.map((problem) => problem.line).join(', ')}); a resume skips them.`);
    const run = result.manifest.run;
    out.say(`Imported session ${result.sessionId}${run?.url ? ` from ${run.url}` : ''}.`);
    out.say(`Continue it with: evergreen --resume ${result.sessionId} -p "…"${run?.branch ? ` (its changes are on the branch ${run.branch}: git fetch origin ${run.branch} && git checkout ${run.branch})` : ''}`);
    return 0;
  } catch (error) {
    if (error instanceof SessionArchiveError) {
      out.warn(`evergreen: ${command.kind === 'import' ? `not imported: ${error.message}` : error.message}`);
      return 1;
    }
    if (error instanceof SessionNotFoundError) {
      out.warn(`evergreen: ${error.message} List the stored sessions' folders in ${store.sessionsDir}.`);
      return 1;
    }
    throw error;
  }
}
