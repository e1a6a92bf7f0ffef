/**
 * The memory tool (src/core/tools/memory.ts over src/core/memory/): Anthropic's commands and
 * wording over /memories mapped to a real folder, the card a call shows, read-only memory for
 * subagents, and the listing a new chat gets. Confinement has its own suite (security/memory.confinement).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { memoryCardOf, type MemoryInput } from '../../src/core/memory/commands';
import { MEMORY_LIMITS } from '../../src/core/memory/paths';
import { MEMORY_MARK, memoryListing } from '../../src/core/memory/view';
import { createMemoryTool } from '../../src/core/tools/memory';
import { memorySession } from '../support/memory';
import { useTempDirs } from '../support/tempDirs';
import { said } from '../support/said';

describe('memory: the tool', function () {
  this.timeout(30_000);
  const temp = useTempDirs();
  let base: string;
  let folder: string;
  let call: ReturnType<typeof memorySession>['call'];
  let approvals: number;
  beforeEach(() => {
    base = temp.make('evergreen-memory-');
    folder = path.join(base, 'workspace-1', 'memories');
    const session = memorySession(folder);
    approvals = 0;
    session.ctx.approve = async () => {
      approvals++;
      return { approved: false };
    };
    call = session.call;
  });

  it('views an empty memory before any folder exists, then creates a file (and the folder, owner-only) without asking', async () => {
    const empty = await call({ command: 'view', path: '/memories' });
    assert.equal(empty.content, "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n0B\t/memories\n(The memory is empty.)");
    assert.ok(!fs.existsSync(folder), 'a view creates nothing');
    const created = await call({ command: 'create', path: '/memories/project.md', file_text: '# Project notes\nBuild: npm run build\nTest: npm test\nLint: npm run lint\n' });
    assert.equal(created.isError, undefined, created.content);
    assert.equal(created.content, 'File created successfully at: /memories/project.md\n\nPreview (5 lines, 71B):\n# Project notes\nBuild: npm run build\nTest: npm test\n…');
    assert.equal(fs.readFileSync(path.join(folder, 'project.md'), 'utf8'), '# Project notes\nBuild: npm run build\nTest: npm test\nLint: npm run lint\n');
    assert.equal(fs.statSync(folder).mode & 0o777, 0o700);
    assert.equal(approvals, 0, 'memory writes never ask');
    const again = await call({ command: 'create', path: '/memories/project.md', file_text: 'other' });
    assert.equal(again.isError, true);
    assert.equal(again.content, 'File /memories/project.md already exists');
  });

  it("views a folder two levels deep and a file with line numbers, in the memory tool's words", async () => {
    await call({ command: 'create', path: '/memories/decisions/api/rest.md', file_text: 'REST, not gRPC: browsers.' });
    await call({ command: 'create', path: '/memories/user.md', file_text: 'one\ntwo\nthree\nfour' });
    fs.writeFileSync(path.join(folder, '.hidden'), 'x');
    const listing = await call({ command: 'view', path: '/memories' });
    const lines = listing.content.split('\n');
    assert.equal(lines[0], "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:");
    assert.deepEqual(lines.slice(1).map((line) => line.split('\t')[1]), ['/memories', '/memories/decisions/', '/memories/decisions/api/', '/memories/user.md']);
    assert.match(lines[4]!, /^18B\t/);
    const file = await call({ command: 'view', path: '/memories/user.md' });
    assert.equal(file.content, "Here's the content of /memories/user.md with line numbers:\n     1\tone\n     2\ttwo\n     3\tthree\n     4\tfour");
    assert.equal((await call({ command: 'view', path: '/memories/user.md', view_range: [2, 3] })).content.split('\n').slice(1).join('|'), '     2\ttwo|     3\tthree');
    assert.equal((await call({ command: 'view', path: '/memories/user.md', view_range: [3, -1] })).content.split('\n').length, 3);
    assert.match((await call({ command: 'view', path: '/memories/user.md', view_range: [9, 10] })).content, /line 9 is past the end of \/memories\/user\.md, which has 4 lines/);
    assert.match((await call({ command: 'view', path: '/memories/user.md', view_range: [3, 2] })).content, /not a range of lines/);
    assert.equal((await call({ command: 'view', path: '/memories/none.md' })).content, 'The path /memories/none.md does not exist. Please provide a valid path.');
  });

  it('replaces text that appears once, and says exactly why when it does not', async () => {
    await call({ command: 'create', path: '/memories/prefs.md', file_text: 'Editor: vim\nTabs: 2 spaces\nTheme: dark\nTabs again: 2 spaces\n' });
    const edited = await call({ command: 'str_replace', path: '/memories/prefs.md', old_str: 'Editor: vim', new_str: 'Editor: helix' });
    assert.equal(edited.content, 'The memory file /memories/prefs.md has been edited. Here is the snippet showing the change (with line numbers):\n     1\tEditor: helix\n     2\tTabs: 2 spaces\n     3\tTheme: dark');
    const twice = await call({ command: 'str_replace', path: '/memories/prefs.md', old_str: '2 spaces', new_str: '4 spaces' });
    assert.equal(twice.content, 'No replacement was performed. Multiple occurrences of old_str `2 spaces` in lines: 2, 4. Please ensure it is unique');
    const none = await call({ command: 'str_replace', path: '/memories/prefs.md', old_str: 'Font', new_str: 'x' });
    assert.equal(none.content, 'No replacement was performed, old_str `Font` did not appear verbatim in /memories/prefs.md.');
    const multiline = await call({ command: 'str_replace', path: '/memories/prefs.md', old_str: 'Theme: dark\nTabs again', new_str: 'Theme: light\nTabs again' });
    assert.equal(multiline.isError, undefined, multiline.content);
    assert.match(fs.readFileSync(path.join(folder, 'prefs.md'), 'utf8'), /Theme: light\nTabs again/);
    assert.match((await call({ command: 'str_replace', path: '/memories/prefs.md', old_str: '', new_str: 'x' })).content, /"old_str" must not be empty/);
  });

  it('inserts after a line (0: at the top) and refuses a line past the end', async () => {
    await call({ command: 'create', path: '/memories/todo.md', file_text: 'a\nb' });
    assert.equal((await call({ command: 'insert', path: '/memories/todo.md', insert_line: 0, insert_text: 'top\n' })).content, 'The file /memories/todo.md has been edited. The inserted lines:\n     1\ttop');
    await call({ command: 'insert', path: '/memories/todo.md', insert_line: 3, insert_text: 'end' });
    assert.equal(fs.readFileSync(path.join(folder, 'todo.md'), 'utf8'), 'top\na\nb\nend');
    assert.equal((await call({ command: 'insert', path: '/memories/todo.md', insert_line: 9, insert_text: 'x' })).content, 'Invalid `insert_line` parameter: 9. It should be within the range of lines of the file: [0, 4]');
  });

  it('deletes and renames files and folders, never /memories itself', async () => {
    await call({ command: 'create', path: '/memories/draft.md', file_text: 'draft' });
    await call({ command: 'create', path: '/memories/old/a.md', file_text: 'a' });
    assert.equal((await call({ command: 'rename', old_path: '/memories/draft.md', new_path: '/memories/final/notes.md' })).content, 'Successfully renamed /memories/draft.md to /memories/final/notes.md');
    assert.equal(fs.readFileSync(path.join(folder, 'final/notes.md'), 'utf8'), 'draft');
    assert.equal((await call({ command: 'rename', old_path: '/memories/old', new_path: '/memories/final/notes.md' })).content, 'The destination /memories/final/notes.md already exists');
    assert.equal((await call({ command: 'rename', old_path: '/memories/none', new_path: '/memories/x' })).content, 'The path /memories/none does not exist');
    assert.match((await call({ command: 'rename', old_path: '/memories/old', new_path: '/memories/old/inner' })).content, /into itself/);
    assert.equal((await call({ command: 'rename', old_path: '/memories', new_path: '/memories/x' })).content, 'Cannot rename the /memories directory itself');
    assert.equal((await call({ command: 'delete', path: '/memories/old' })).content, 'Successfully deleted /memories/old');
    assert.ok(!fs.existsSync(path.join(folder, 'old')));
    assert.equal((await call({ command: 'delete', path: '/memories/old' })).content, 'The path /memories/old does not exist');
    assert.equal((await call({ command: 'delete', path: '/memories' })).content, 'Cannot delete the /memories directory itself');
    assert.ok(fs.existsSync(folder));
  });

  it('gives a card the command, path and preview from the input alone', () => {
    const parse = (input: Record<string, unknown>) => createMemoryTool({ folder }).parse(input) as MemoryInput;
    assert.deepEqual(memoryCardOf(parse({ command: 'create', path: '/memories/a.md', file_text: '1\n2\n3\n4' })), { command: 'create', path: '/memories/a.md', preview: '1\n2\n3\n…' });
    assert.deepEqual(memoryCardOf(parse({ command: 'str_replace', path: '/memories/a.md', old_str: 'x', new_str: 'y' })), { command: 'str_replace', path: '/memories/a.md', preview: 'y' });
    assert.deepEqual(memoryCardOf(parse({ command: 'rename', old_path: '/memories/a.md', new_path: '/memories/b.md' })), { command: 'rename', path: '/memories/a.md', newPath: '/memories/b.md' });
    assert.deepEqual(memoryCardOf(parse({ command: 'delete', path: '/memories/a.md/' })), { command: 'delete', path: '/memories/a.md' });
    assert.equal(said(createMemoryTool({ folder }).headline(parse({ command: 'rename', old_path: '/memories/a', new_path: '/memories/b' }))), 'rename /memories/a → /memories/b');
  });

  it('is read-only for a subagent other than general: view works, every write is refused with why', async () => {
    await call({ command: 'create', path: '/memories/facts.md', file_text: 'The API is REST.' });
    const readOnly = memorySession(folder, true);
    assert.match((await readOnly.call({ command: 'view', path: '/memories/facts.md' })).content, /The API is REST\./);
    const refused = await readOnly.call({ command: 'create', path: '/memories/new.md', file_text: 'x' });
    assert.equal(refused.isError, true);
    assert.match(refused.content, /read-only for this agent: only "view" works here/);
    assert.ok(!fs.existsSync(path.join(folder, 'new.md')));
    const tool = readOnly.registry.list().find((spec) => spec.name === 'memory')!;
    assert.deepEqual((tool.input_schema.properties.command as { enum: string[] }).enum, ['view']);
  });
});

describe('memory: the listing for a new chat', function () {
  this.timeout(30_000);
  const temp = useTempDirs();
  let folder: string;
  beforeEach(() => {
    folder = temp.make('evergreen-memlist-');
  });
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(folder, file)), { recursive: true });
    fs.writeFileSync(path.join(folder, file), text);
  };

  it('lists each file with its size and first line, sorted, headings and control characters flattened', async () => {
    assert.equal(await memoryListing(path.join(folder, 'missing')), `${MEMORY_MARK}Your memory: notes you kept in earlier chats of this workspace, under /memories (the memory tool reads and updates them; the user can read and edit them too). Read a note when the task touches it; keep notes short and current.\n(Memory is empty.)`);
    write('project.md', '\n# Build and test\nnpm run build\n');
    write('decisions/api.md', 'REST over gRPC:\u001b[31m browsers\r\ncannot speak HTTP/2 trailers');
    write('.draft', 'hidden');
    const listing = await memoryListing(folder);
    const size = (file: string) => fs.statSync(path.join(folder, file)).size;
    assert.deepEqual(listing.split('\n').slice(2), [`- /memories/decisions/api.md (${size('decisions/api.md')}B): REST over gRPC: [31m browsers`, `- /memories/project.md (${size('project.md')}B): Build and test`]);
    assert.equal(await memoryListing(folder), listing, 'the same bytes each time');
  });

  it('stays within its cap, counting the files it leaves out', async () => {
    for (let index = 0; index < 80; index++) write(`notes/n${String(index).padStart(2, '0')}.md`, `Note number ${index}: ${'something worth remembering '.repeat(5)}`);
    const listing = await memoryListing(folder);
    assert.ok(listing.length <= MEMORY_LIMITS.listingChars, `${listing.length}`);
    assert.match(listing, /\n- … and \d+ more files \(view \/memories to see them all\)$/);
    const shown = listing.split('\n').filter((line) => line.startsWith('- /memories/')).length;
    assert.equal(Number(/and (\d+) more/.exec(listing)![1]) + shown, 80);
  });
});
