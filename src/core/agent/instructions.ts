/**
 * Project instructions in a session (README "Project instructions"): the root files go into the
 * system prompt once (factory.ts), a subfolder's files into the tool results' turn as a note
 * (session.ts). The files themselves are read by tools/instructionFiles.ts.
 */
import { blocksOf } from '../model/content';
import type { MessageParam } from '../model/messages';
import { INSTRUCTIONS_MAX_WINDOW_SHARE, instructionsSection, loadSessionInstructions, nestedNoteFile } from '../tools/instructionFiles';

/** What the front end decided: `evergreen.instructions.*` / `--no-instructions`. */
export interface InstructionSettings {
  enabled: boolean;
  /** The user's own file; default ~/.evergreen/AGENTS.md. */
  userFile?: string | undefined;
  /** The home folder `~` means (default: the process's; the CLI passes its own environment's HOME). */
  home?: string | undefined;
}

/** The characters one instruction file may take in a window of `window` tokens before it is cut. */
export function instructionFileBudget(window: number, charsPerToken: number): number {
  return Math.floor(window * INSTRUCTIONS_MAX_WINDOW_SHARE * charsPerToken);
}

/** The system prompt's instructions section at a session start, and what to tell the user about the files. */
export async function readSessionInstructions(options: {
  settings: InstructionSettings | undefined;
  workspaceRoot: string;
  trusted: boolean;
  maxFileChars: number;
}): Promise<{ section: string | undefined; files: string[]; notices: string[] }> {
  if (options.settings?.enabled === false) return { section: undefined, files: [], notices: [] };
  const loaded = await loadSessionInstructions({
    workspaceRoot: options.workspaceRoot,
    userFile: options.settings?.userFile,
    includeWorkspace: options.trusted,
    maxFileChars: options.maxFileChars,
    ...(options.settings?.home !== undefined ? { home: options.settings.home } : {}),
  });
  return { section: instructionsSection(loaded.files), files: loaded.files.map((file) => file.shown), notices: loaded.notices };
}

/** The files whose subfolder notes are in these messages (the live view: a summarized note is gone). */
export function notedInstructionFiles(messages: readonly MessageParam[]): Set<string> {
  const files = new Set<string>();
  for (const message of messages) {
    if (message.role !== 'user') continue;
    for (const block of blocksOf(message)) {
      const file = block.type === 'text' ? nestedNoteFile(block.text) : undefined;
      if (file !== undefined) files.add(file);
    }
  }
  return files;
}

/** The chat's line for a note added to the conversation (live and on replay alike). */
export function instructionsNoteMessage(noteText: string): string {
  return `Read ${nestedNoteFile(noteText) ?? 'a folder\'s instruction file'}: its instructions apply to the files in that folder.`;
}
