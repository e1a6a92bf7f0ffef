/**
 * Instruction files as read from disk (src/core/instructions/instructionFiles.ts): the order and headings,
 * `@path` imports, and every kind of bad input: binary, huge, a link out of the workspace, a FIFO,
 * an import cycle, non-UTF-8. Each bad file gives a notice and the rest is still read.
 */
import assert from 'node:assert/strict';
import { said } from '../support/said';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  findImports,
  INSTRUCTIONS_MARK,
  instructionsSection,
  loadSessionInstructions,
  MAX_IMPORT_DEPTH,
  NestedInstructions,
  nestedNoteFile,
  type LoadedInstructions,
} from '../../src/core/instructions/instructionFiles';
import { NodeWorkspace } from '../../src/core/workspace/workspace';
import { useTempDirs } from '../support/tempDirs';

const BUDGET = 20_000;

describe('instruction files', function () {
  this.timeout(30_000);
  const temp = useTempDirs();
  let workspace: string;
  let home: string;
  let outside: string;

  beforeEach(() => {
    workspace = temp.make('evergreen-instr-ws-');
    home = temp.make('evergreen-instr-home-');
    outside = temp.make('evergreen-instr-out-');
  });

  const write = (root: string, file: string, content: string | Buffer) => {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), content);
  };
  const load = (options: { userFile?: string; includeWorkspace?: boolean; maxFileChars?: number } = {}): Promise<LoadedInstructions> =>
    loadSessionInstructions({ workspaceRoot: workspace, home, includeWorkspace: options.includeWorkspace ?? true, maxFileChars: options.maxFileChars ?? BUDGET, userFile: options.userFile });

  it("reads the user's file, then AGENTS.md, CLAUDE.md and .github/copilot-instructions.md, each under its own heading", async () => {
    write(home, '.evergreen/AGENTS.md', 'USER RULE: answer in English.');
    write(workspace, '.github/copilot-instructions.md', 'COPILOT RULE');
    write(workspace, 'CLAUDE.md', 'CLAUDE RULE');
    write(workspace, 'AGENTS.md', 'AGENTS RULE');
    const loaded = await load();
    assert.deepEqual(loaded.notices, []);
    assert.deepEqual(loaded.files.map((file) => file.shown), ['~/.evergreen/AGENTS.md', 'AGENTS.md', 'CLAUDE.md', '.github/copilot-instructions.md']);
    const section = instructionsSection(loaded.files)!;
    assert.ok(section.startsWith(INSTRUCTIONS_MARK));
    const order = ['## ~/.evergreen/AGENTS.md\n\nUSER RULE', '## AGENTS.md\n\nAGENTS RULE', '## CLAUDE.md\n\nCLAUDE RULE', '## .github/copilot-instructions.md\n\nCOPILOT RULE'].map((part) => section.indexOf(part));
    assert.ok(order.every((at) => at > 0), section);
    assert.deepEqual([...order].sort((a, b) => a - b), order, 'in the documented order');
  });

  it('has no section when no file exists, and skips files that are missing or empty without a word', async () => {
    assert.equal(instructionsSection((await load()).files), undefined);
    write(workspace, 'CLAUDE.md', '   \n');
    const loaded = await load();
    assert.deepEqual(loaded, { files: [], notices: [] });
  });

  it('takes the user file the setting names (~ is the home folder), and says so when it does not exist', async () => {
    write(home, 'rules/mine.md', 'MINE');
    assert.deepEqual((await load({ userFile: '~/rules/mine.md' })).files.map((file) => file.text), ['MINE']);
    const missing = await load({ userFile: '~/rules/none.md' });
    assert.equal(missing.files.length, 0);
    assert.match(missing.notices.map(said).join('\n'), /~\/rules\/none\.md .*does not exist/);
  });

  it('follows a user file that is a link into a dotfiles folder, and confines its imports to that folder', async () => {
    write(outside, 'dotfiles/AGENTS.md', 'DOTFILES RULE @more.md @../escape.md');
    write(outside, 'dotfiles/more.md', 'MORE RULE');
    write(outside, 'escape.md', 'ESCAPED');
    fs.mkdirSync(path.join(home, '.evergreen'));
    fs.symlinkSync(path.join(outside, 'dotfiles/AGENTS.md'), path.join(home, '.evergreen/AGENTS.md'));
    const loaded = await load();
    assert.deepEqual(loaded.files.map((file) => file.text), ['DOTFILES RULE @more.md @../escape.md', 'MORE RULE']);
    assert.match(loaded.notices.map(said).join('\n'), /escape\.md.*outside/);
  });

  it('leaves the workspace files out when the workspace is not trusted, and still reads the user file', async () => {
    write(home, '.evergreen/AGENTS.md', 'USER RULE');
    write(workspace, 'AGENTS.md', 'REPO RULE');
    const loaded = await load({ includeWorkspace: false });
    assert.deepEqual(loaded.files.map((file) => file.text), ['USER RULE']);
  });

  describe('@path imports', () => {
    it('follows imports relative to the importing file, each under its own heading after its importer', async () => {
      write(workspace, 'AGENTS.md', 'Root rules. See @docs/style.md and @docs/testing.md.');
      write(workspace, 'docs/style.md', 'STYLE: tabs. Also @../shared/naming.md');
      write(workspace, 'docs/testing.md', 'TESTING: mocha.');
      write(workspace, 'shared/naming.md', 'NAMING: camelCase.');
      const loaded = await load();
      assert.deepEqual(loaded.notices, []);
      assert.deepEqual(
        loaded.files.map((file) => [file.shown, file.importedBy]),
        [['AGENTS.md', undefined], ['docs/style.md', 'AGENTS.md'], ['shared/naming.md', 'docs/style.md'], ['docs/testing.md', 'AGENTS.md']],
      );
      assert.match(instructionsSection(loaded.files)!, /## docs\/style\.md \(imported by AGENTS\.md\)\n\nSTYLE: tabs\./);
    });

    it('finds only words that start with @ and end in a file extension, outside code', () => {
      const text = [
        'Read @docs/a.md, then @b.txt.',
        'Mail me at someone@example.com or ping @alice; install @types/node.',
        '`@inline/code.md` is code, and so is this:',
        '```',
        '@fenced/file.md',
        '```',
        '@c.md @c.md',
      ].join('\n');
      assert.deepEqual(findImports(text), ['docs/a.md', 'b.txt', 'c.md']);
    });

    it(`stops at ${MAX_IMPORT_DEPTH} levels of imports, saying so`, async () => {
      write(workspace, 'AGENTS.md', '@l1.md');
      for (let level = 1; level <= 7; level++) write(workspace, `l${level}.md`, `LEVEL ${level} @l${level + 1}.md`);
      const loaded = await load();
      assert.deepEqual(loaded.files.map((file) => file.shown), ['AGENTS.md', 'l1.md', 'l2.md', 'l3.md', 'l4.md', 'l5.md']);
      assert.match(loaded.notices.map(said).join('\n'), /l5\.md imports @l6\.md, not followed: imports nest at most 5 levels deep/);
    });

    it('reports a file importing itself and a longer cycle, and reads each file once', async () => {
      write(workspace, 'AGENTS.md', 'SELF @AGENTS.md and @a.md');
      write(workspace, 'a.md', 'A @b.md');
      write(workspace, 'b.md', 'B @a.md');
      const loaded = await load();
      assert.deepEqual(loaded.files.map((file) => file.shown), ['AGENTS.md', 'a.md', 'b.md']);
      assert.match(loaded.notices.map(said).join('\n'), /AGENTS\.md imports itself \(an import cycle\)/);
      assert.match(loaded.notices.map(said).join('\n'), /b\.md imports a\.md, which imports it back \(an import cycle\)/);
    });

    it('uses a file reached twice once (CLAUDE.md a link to AGENTS.md), without a notice', async () => {
      write(workspace, 'AGENTS.md', 'SHARED RULE');
      fs.symlinkSync('AGENTS.md', path.join(workspace, 'CLAUDE.md'));
      const loaded = await load();
      assert.deepEqual(loaded.files.map((file) => file.text), ['SHARED RULE']);
      assert.deepEqual(loaded.notices, []);
    });

    it('refuses imports outside the workspace and names missing ones', async () => {
      write(outside, 'secret.md', 'OUTSIDE SECRET');
      write(workspace, 'AGENTS.md', `@../${path.basename(outside)}/secret.md @${path.join(outside, 'secret.md')} @docs/none.md`);
      const loaded = await load();
      assert.equal(loaded.files.length, 1);
      assert.ok(!JSON.stringify(loaded.files).includes('OUTSIDE SECRET'));
      const notices = loaded.notices.map(said).join('\n');
      assert.equal((notices.match(/outside the workspace root/g) ?? []).length, 2, notices);
      assert.match(notices, /AGENTS\.md imports @docs\/none\.md, but docs\/none\.md does not exist/);
    });
  });

  describe('bad input: a notice, and the other files are still read', () => {
    it('refuses a binary file', async () => {
      write(workspace, 'AGENTS.md', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x00, 0x01]));
      write(workspace, 'CLAUDE.md', 'STILL READ');
      const loaded = await load();
      assert.deepEqual(loaded.files.map((file) => file.text), ['STILL READ']);
      assert.match(loaded.notices.map(said).join('\n'), /AGENTS\.md looks like a binary file.*not read/);
    });

    it('cuts a 50 MB file to its head and tail within the budget, with a notice, never refusing it', async () => {
      const line = 'filler line of a huge instruction file\n';
      const handle = fs.openSync(path.join(workspace, 'AGENTS.md'), 'w');
      fs.writeSync(handle, 'HEAD RULE\n');
      const block = line.repeat(Math.ceil((1024 * 1024) / line.length));
      for (let mb = 0; mb < 50; mb++) fs.writeSync(handle, block);
      fs.writeSync(handle, 'TAIL RULE\n');
      fs.closeSync(handle);
      const started = Date.now();
      const loaded = await load();
      assert.ok(Date.now() - started < 5_000, 'reads only what it uses');
      const [file] = loaded.files;
      assert.ok(file && file.text.startsWith('HEAD RULE') && file.text.endsWith('TAIL RULE'));
      assert.ok(file.text.length <= BUDGET + 200, `${file.text.length} characters`);
      assert.match(file.text, /\[\.\.\. [\d.]+ MB cut from the middle/);
      assert.match(loaded.notices.map(said).join('\n'), /AGENTS\.md is 50\.\d MB, over 10% of the context window: only its first and last/);
    });

    it('cuts a long single-line file without splitting a UTF-8 character', async () => {
      write(workspace, 'AGENTS.md', `x${'é'.repeat(BUDGET)}y`);
      const loaded = await load();
      const [file] = loaded.files;
      assert.ok(file);
      assert.ok(!file.text.includes('\ufffd'), 'no replacement character');
      assert.ok(!loaded.notices.some((notice) => said(notice).includes('Windows-1252')), 'a clean cut still decodes as UTF-8');
    });

    it('refuses a link that leads out of the workspace', async () => {
      write(outside, 'secret.md', 'OUTSIDE SECRET');
      fs.symlinkSync(path.join(outside, 'secret.md'), path.join(workspace, 'AGENTS.md'));
      write(workspace, 'CLAUDE.md', 'STILL READ');
      const loaded = await load();
      assert.deepEqual(loaded.files.map((file) => file.text), ['STILL READ']);
      assert.match(loaded.notices.map(said).join('\n'), /AGENTS\.md was not read: .*symbolic link.*outside the workspace root/);
    });

    it('reads a file that is not UTF-8 as Windows-1252, and says so', async () => {
      write(workspace, 'AGENTS.md', Buffer.from('Caf\xe9 rules: na\xefve \x80 prices\n', 'latin1'));
      const loaded = await load();
      assert.equal(loaded.files[0]?.text, 'Café rules: naïve € prices');
      assert.match(loaded.notices.map(said).join('\n'), /AGENTS\.md is not valid UTF-8; it was read as Windows-1252/);
    });

    it('refuses a folder named AGENTS.md', async () => {
      fs.mkdirSync(path.join(workspace, 'AGENTS.md'));
      const loaded = await load();
      assert.equal(loaded.files.length, 0);
      assert.match(loaded.notices.map(said).join('\n'), /AGENTS\.md is a folder, not a file/);
    });
  });

  describe("a subfolder's files", () => {
    const nested = () => new NestedInstructions(new NodeWorkspace(workspace), () => BUDGET);

    it('gives a note per file from the outermost folder in, and none for the root or a file already in view', async () => {
      write(workspace, 'AGENTS.md', 'ROOT (in the system prompt)');
      write(workspace, 'pkg/AGENTS.md', 'PKG RULE @pkg-extra.md');
      write(workspace, 'pkg/pkg-extra.md', 'PKG EXTRA');
      write(workspace, 'pkg/sub/CLAUDE.md', 'SUB RULE');
      const { notes, notices } = await nested().notesFor([path.join(workspace, 'pkg/sub')], () => false);
      assert.deepEqual(notices, []);
      assert.deepEqual(notes.map(nestedNoteFile), ['pkg/AGENTS.md', 'pkg/sub/CLAUDE.md']);
      assert.match(notes[0]!, /^Project instructions from pkg\/AGENTS\.md \(they apply to pkg\/ and everything in it[^\n]*\n\nPKG RULE @pkg-extra\.md\n\n## pkg\/pkg-extra\.md \(imported by pkg\/AGENTS\.md\)\n\nPKG EXTRA$/);
      const again = await nested().notesFor([path.join(workspace, 'pkg/sub')], (file) => file === 'pkg/AGENTS.md');
      assert.deepEqual(again.notes.map(nestedNoteFile), ['pkg/sub/CLAUDE.md']);
      assert.deepEqual((await nested().notesFor([workspace, path.join(outside)], () => false)).notes, []);
    });

    it('reports a link out of the workspace once per session and adds nothing', async () => {
      write(outside, 'secret.md', 'OUTSIDE SECRET');
      fs.mkdirSync(path.join(workspace, 'pkg'));
      fs.symlinkSync(path.join(outside, 'secret.md'), path.join(workspace, 'pkg/AGENTS.md'));
      const reader = nested();
      const first = await reader.notesFor([path.join(workspace, 'pkg')], () => false);
      assert.deepEqual(first.notes, []);
      assert.equal(first.notices.length, 1);
      assert.match(said(first.notices[0]!), /pkg\/AGENTS\.md was not read: .*outside the workspace root/);
      assert.deepEqual(await reader.notesFor([path.join(workspace, 'pkg')], () => false), { notes: [], notices: [] });
    });
  });
});
