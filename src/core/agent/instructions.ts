/**
 * Project instructions in a session (docs/guide.md, "Project instructions"): the root files go into the
 * system prompt once (factory.ts), a subfolder's files into the tool results' turn as a note
 * (session.ts). The files themselves are read by instructions/instructionFiles.ts.
 */
import type { Logger } from '../logger';
import { userText, userTextForLog, type UserText } from '../texts/userText';
import { blocksOf } from '../model/content';
import type { ContentBlockParam, MessageParam } from '../model/messages';
import { INSTRUCTIONS_MAX_WINDOW_SHARE, instructionsSection, loadSessionInstructions, nestedNoteFile, type NestedInstructions } from '../instructions/instructionFiles';
import type { AgentEvent } from './events';

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
}): Promise<{ section: string | undefined; files: string[]; notices: UserText[] }> {
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

/** The chat's line for a note added to the conversation (live and on replay alike): the note itself is the model's, in English. */
export function instructionsNoteMessage(noteText: string): UserText {
  const file = nestedNoteFile(noteText);
  return file === undefined ? userText('instructions.folderFileReadUnnamed', {}) : userText('instructions.folderFileRead', { file });
}

/**
 * The notes for the instruction files of the folders a round of tool calls worked in, each the
 * first time it is needed: a note still in the live view is not added again (one a compaction
 * summarized away is). The live view is only built when a folder has such a file.
 */
export async function instructionNotes(
  nested: Pick<NestedInstructions, 'notesFor'>,
  folders: readonly string[],
  liveView: () => readonly MessageParam[],
  emit: (event: Extract<AgentEvent, { type: 'instructions_notice' }>) => void,
  logger: Logger,
): Promise<ContentBlockParam[]> {
  if (folders.length === 0) return [];
  let inView: Set<string> | undefined;
  try {
    const { notes, notices } = await nested.notesFor(folders, (file) => (inView ??= notedInstructionFiles(liveView())).has(file));
    for (const message of notices) {
      logger.warn(userTextForLog(message));
      emit({ type: 'instructions_notice', level: 'warning', message });
    }
    for (const note of notes) emit({ type: 'instructions_notice', level: 'info', message: instructionsNoteMessage(note) });
    return notes.map((text) => ({ type: 'text', text }));
  } catch (error) {
    // The round's results matter more than a note: it is left out, and the next round tries again.
    logger.error("could not read a folder's instruction files", error);
    return [];
  }
}
