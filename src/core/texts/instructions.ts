/** What the core says about instruction files: refused, cut, re-encoded, a subfolder's file read, as kinds with data (src/core/texts/userText.ts); src/frontends/words/instructions.ts words them. */
import type { NestedText, NoData } from './value';

export interface InstructionTexts {
  // ---- a file not read, or read in part (instructions/instructionFiles.ts); `file` as the user reads it
  'instructions.isFolder': { file: string };
  'instructions.couldNotOpen': { file: string; error: string };
  /** `fileType`: instructions.namedPipe, .socket, .device or .notPlainFile. */
  'instructions.notRegularFile': { file: string; fileType: NestedText };
  'instructions.namedPipe': NoData;
  'instructions.socket': NoData;
  'instructions.device': NoData;
  'instructions.notPlainFile': NoData;
  /** `size` and `kept`: instructions.megabytes, .kilobytes or .bytes; `share`: the percentage of the window. */
  'instructions.cut': { file: string; size: NestedText; share: number; kept: NestedText };
  'instructions.megabytes': { amount: string };
  'instructions.kilobytes': { amount: string };
  'instructions.bytes': { count: number };
  'instructions.binary': { file: string };
  'instructions.latin1': { file: string };
  'instructions.couldNotRead': { file: string; error: string };
  'instructions.notRead': { file: string; reason: string };
  'instructions.importNotRead': { importer: string; file: string; reason: string };
  'instructions.importsItself': { file: string };
  'instructions.importCycle': { importer: string; file: string };
  'instructions.tooMany': { file: string; max: number };
  /** `imports`: the imports as written (`@a.md, @b.md`). */
  'instructions.importsTooDeep': { file: string; imports: string; depth: number };
  'instructions.importMissing': { file: string; import: string; target: string };
  'instructions.userFileMissing': { file: string; setting: NestedText };
  'instructions.userFileUnreadable': { file: string; error: string };
  // ---- a session's start and a subfolder's file (agent/factory.ts, agent/instructions.ts); `files`: the files read, joined
  'instructions.read': { files: string };
  'instructions.reloaded': { files: string };
  'instructions.reloadedNone': NoData;
  'instructions.folderFileRead': { file: string };
  'instructions.folderFileReadUnnamed': NoData;
}
