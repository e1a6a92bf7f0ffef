/** Words for instruction files: refused, cut, re-encoded, a subfolder's file read (the kinds are in src/core/texts/instructions.ts). */
import type { InstructionTexts } from '../../core/texts/instructions';
import { wordsFor } from './template';

export const INSTRUCTION_WORDS = wordsFor<InstructionTexts>()({
  'instructions.isFolder': '{file} is a folder, not a file; it was not read.',
  'instructions.couldNotOpen': '{file} could not be opened ({error}); it was not read.',
  'instructions.notRegularFile': '{file} is not a regular file ({fileType}); it was not read. Instruction files must be plain text files.',
  'instructions.namedPipe': 'a named pipe',
  'instructions.socket': 'a socket',
  'instructions.device': 'a device',
  'instructions.notPlainFile': 'not a plain file',
  'instructions.cut': '{file} is {size}, over {share}% of the context window: only its first and last {kept} were used. Shorten it, or move details into files the agent reads when needed.',
  'instructions.megabytes': '{amount} MB',
  'instructions.kilobytes': '{amount} KB',
  'instructions.bytes': { one: '{count} byte', other: '{count} bytes' },
  'instructions.binary': '{file} looks like a binary file (it contains NUL bytes); it was not read. Instruction files must be text.',
  'instructions.latin1': '{file} is not valid UTF-8; it was read as Windows-1252 (Latin-1). Save it as UTF-8 if some characters look wrong.',
  'instructions.couldNotRead': '{file} could not be read ({error}); it was not used.',
  'instructions.notRead': '{file} was not read: {reason}',
  'instructions.importNotRead': '{importer} imports {file}, which was not read: {reason}',
  'instructions.importsItself': '{file} imports itself (an import cycle); the cycle was not followed.',
  'instructions.importCycle': '{importer} imports {file}, which imports it back (an import cycle); the cycle was not followed.',
  'instructions.tooMany': '{file} was not read: at most {max} instruction files are used (imports included).',
  'instructions.importsTooDeep': '{file} imports {imports}, not followed: imports nest at most {depth} levels deep.',
  'instructions.importMissing': '{file} imports @{import}, but {target} does not exist; the import was skipped.',
  'instructions.userFileMissing': 'The user instructions file {file} ({setting}) does not exist; no user instructions were read.',
  'instructions.userFileUnreadable': '{file} could not be read ({error}).',
  'instructions.read': 'Project instructions read: {files}.',
  'instructions.reloaded': 'Project instructions reloaded: {files}.',
  'instructions.reloadedNone': 'Instructions reloaded: no instruction file was found.',
  'instructions.folderFileRead': 'Read {file}: its instructions apply to the files in that folder.',
  'instructions.folderFileReadUnnamed': "Read a folder's instruction file: its instructions apply to the files in that folder.",
});
