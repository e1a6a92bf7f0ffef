// Issue 27 item 6 for instruction files: the core says kinds with data (src/core/texts/instructions.ts),
// each front end words them (src/frontends/words/instructions.ts); the note for the model stays English.
import * as assert from 'node:assert/strict';
import { instructionsNoteMessage } from '../../src/core/agent/instructions';
import { loadSessionInstructions, nestedNoteText } from '../../src/core/instructions/instructionFiles';
import type { InstructionTexts } from '../../src/core/texts/instructions';
import { settingRef, userText } from '../../src/core/texts/userText';
import { configureWords } from '../../src/frontends/words';
import { said } from '../support/said';
import { useTempDirs } from '../support/tempDirs';

const mb = (amount: string) => userText('instructions.megabytes', { amount });

/** Every instructions kind with sample data and the English the user reads: a kind left out does not compile. */
const ENGLISH: { [K in keyof InstructionTexts]: [InstructionTexts[K], string] } = {
  'instructions.isFolder': [{ file: 'AGENTS.md' }, 'AGENTS.md is a folder, not a file; it was not read.'],
  'instructions.couldNotOpen': [{ file: 'AGENTS.md', error: 'EACCES' }, 'AGENTS.md could not be opened (EACCES); it was not read.'],
  'instructions.notRegularFile': [{ file: 'AGENTS.md', fileType: userText('instructions.namedPipe', {}) }, 'AGENTS.md is not a regular file (a named pipe); it was not read. Instruction files must be plain text files.'],
  'instructions.namedPipe': [{}, 'a named pipe'],
  'instructions.socket': [{}, 'a socket'],
  'instructions.device': [{}, 'a device'],
  'instructions.notPlainFile': [{}, 'not a plain file'],
  'instructions.cut': [
    { file: 'AGENTS.md', size: mb('50.0'), share: 10, kept: userText('instructions.kilobytes', { amount: '39' }) },
    'AGENTS.md is 50.0 MB, over 10% of the context window: only its first and last 39 KB were used. Shorten it, or move details into files the agent reads when needed.',
  ],
  'instructions.megabytes': [{ amount: '1.5' }, '1.5 MB'],
  'instructions.kilobytes': [{ amount: '12' }, '12 KB'],
  'instructions.bytes': [{ count: 900 }, '900 bytes'],
  'instructions.binary': [{ file: 'AGENTS.md' }, 'AGENTS.md looks like a binary file (it contains NUL bytes); it was not read. Instruction files must be text.'],
  'instructions.latin1': [{ file: 'AGENTS.md' }, 'AGENTS.md is not valid UTF-8; it was read as Windows-1252 (Latin-1). Save it as UTF-8 if some characters look wrong.'],
  'instructions.couldNotRead': [{ file: 'AGENTS.md', error: 'EIO' }, 'AGENTS.md could not be read (EIO); it was not used.'],
  'instructions.notRead': [{ file: 'AGENTS.md', reason: 'it is outside the workspace root' }, 'AGENTS.md was not read: it is outside the workspace root'],
  'instructions.importNotRead': [{ importer: 'AGENTS.md', file: '../x.md', reason: 'outside' }, 'AGENTS.md imports ../x.md, which was not read: outside'],
  'instructions.importsItself': [{ file: 'AGENTS.md' }, 'AGENTS.md imports itself (an import cycle); the cycle was not followed.'],
  'instructions.importCycle': [{ importer: 'b.md', file: 'a.md' }, 'b.md imports a.md, which imports it back (an import cycle); the cycle was not followed.'],
  'instructions.tooMany': [{ file: 'x.md', max: 32 }, 'x.md was not read: at most 32 instruction files are used (imports included).'],
  'instructions.importsTooDeep': [{ file: 'l5.md', imports: '@l6.md', depth: 5 }, 'l5.md imports @l6.md, not followed: imports nest at most 5 levels deep.'],
  'instructions.importMissing': [{ file: 'AGENTS.md', import: 'docs/none.md', target: 'docs/none.md' }, 'AGENTS.md imports @docs/none.md, but docs/none.md does not exist; the import was skipped.'],
  'instructions.userFileMissing': [
    { file: '~/none.md', setting: settingRef('instructions.userFile') },
    'The user instructions file ~/none.md (evergreen.instructions.userFile) does not exist; no user instructions were read.',
  ],
  'instructions.userFileUnreadable': [{ file: '~/x.md', error: 'ELOOP' }, '~/x.md could not be read (ELOOP).'],
  'instructions.read': [{ files: '~/.evergreen/AGENTS.md, AGENTS.md' }, 'Project instructions read: ~/.evergreen/AGENTS.md, AGENTS.md.'],
  'instructions.reloaded': [{ files: 'AGENTS.md' }, 'Project instructions reloaded: AGENTS.md.'],
  'instructions.reloadedNone': [{}, 'Instructions reloaded: no instruction file was found.'],
  'instructions.folderFileRead': [{ file: 'pkg/AGENTS.md' }, 'Read pkg/AGENTS.md: its instructions apply to the files in that folder.'],
  'instructions.folderFileReadUnnamed': [{}, "Read a folder's instruction file: its instructions apply to the files in that folder."],
};

describe('instruction files: what the core says, worded', () => {
  const temp = useTempDirs();
  afterEach(() => configureWords({ locale: 'en', voice: 'cli' }));

  it('words every kind as the user read it before kinds', () => {
    for (const [kind, [data, english]] of Object.entries(ENGLISH)) assert.equal(said(userText(kind as keyof InstructionTexts, data as never)), english, kind);
    assert.equal(said(userText('instructions.bytes', { count: 1 })), '1 byte');
  });

  it("names the user file's setting in each front end's terms", async () => {
    const home = temp.make('evergreen-home-');
    const loaded = await loadSessionInstructions({ workspaceRoot: temp.make('evergreen-ws-'), home, includeWorkspace: true, maxFileChars: 20_000, userFile: '~/none.md' });
    assert.equal(loaded.notices.length, 1);
    const [notice] = loaded.notices;
    assert.equal(notice!.kind, 'instructions.userFileMissing');
    const english = 'The user instructions file ~/none.md (evergreen.instructions.userFile) does not exist; no user instructions were read.';
    assert.equal(said(notice!), english, 'the CLI: the setting has no flag, so it is named by its id');
    configureWords({ locale: 'en', voice: 'extension' });
    assert.equal(said(notice!), english);
  });

  it("tells the user a subfolder's file was read with the file as data, from the model's note (live and on replay)", () => {
    const note = nestedNoteText([{ shown: 'pkg/AGENTS.md', text: 'Use tabs.' }]);
    assert.match(note, /^Project instructions from pkg\/AGENTS\.md \(they apply to pkg\/ /, "the model's note stays English");
    const message = instructionsNoteMessage(note);
    assert.deepEqual(message, userText('instructions.folderFileRead', { file: 'pkg/AGENTS.md' }));
    assert.equal(said(message), 'Read pkg/AGENTS.md: its instructions apply to the files in that folder.');
    assert.equal(instructionsNoteMessage('Project instructions from ???').kind, 'instructions.folderFileReadUnnamed');
  });
});
