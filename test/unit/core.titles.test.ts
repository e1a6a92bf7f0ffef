import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FileSessionStore } from '../../src/core/storage/sessionStore';
import { cutGraphemes, fileNameTitle, SESSION_TITLE_MAX, sessionTitle } from '../../src/core/storage/titles';
import { attachmentBlock } from '../../src/core/agent/attachments';
import { useTempDirs } from '../support/tempDirs';

/** What no file system accepts in a name, plus what would split the tab's URI path. */
const REFUSED = /[/\\:*?"<>|\p{Cc}]/u;
const graphemes = (text: string) => Array.from(new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text)).length;

describe('titles as file names (transcript tabs)', () => {
  it('keeps the punctuation people type, as look-alikes: "Turn 1/1: continue" is not "Turn 1 1 continue"', () => {
    const name = fileNameTitle('Turn 1/1: continue the work');
    assert.equal(name, 'Turn 1\u22151\u2236 continue the work');
    assert.doesNotMatch(name, REFUSED);
  });

  it('swaps backslashes and every other refused character, each for its own look-alike', () => {
    const name = fileNameTitle('Fix C:\\src\\a.ts | why? "now" <b> *all*');
    assert.doesNotMatch(name, REFUSED);
    assert.equal(name, 'Fix C\u2236\u2216src\u2216a.ts \u2223 why\uFF1F \u201Dnow\u201D \u2039b\u203A \u2217all\u2217');
    // Distinct characters stay distinct: two titles differing only in / and \ do not collide.
    assert.notEqual(fileNameTitle('a/b'), fileNameTitle('a\\b'));
  });

  it('keeps emoji whole, including ZWJ sequences and flags', () => {
    const title = 'Ship it 🚀 for the 👩‍💻 team 🇳🇱';
    assert.equal(fileNameTitle(title), title);
  });

  it('cuts 300 characters to SESSION_TITLE_MAX graphemes, marked with an ellipsis, never inside an emoji', () => {
    const long = `${'a'.repeat(78)}👩‍💻${'b'.repeat(220)}`;
    assert.equal(long.length, 303);
    const name = fileNameTitle(long);
    assert.equal(graphemes(name), SESSION_TITLE_MAX);
    assert.ok(name.endsWith('…'));
    assert.ok(name.startsWith(`${'a'.repeat(78)}👩‍💻`), 'the emoji at the cut is kept whole');
    assert.doesNotMatch(name, /\p{Cs}/u, 'no half of a surrogate pair');
    // A cut that would land inside the ZWJ sequence drops the whole emoji instead.
    assert.equal(cutGraphemes('ab👩‍💻cd', 3), 'ab…');
  });

  it('removes controls, bidi overrides and broken surrogates, and falls back when nothing is left', () => {
    assert.equal(fileNameTitle('line one\nline\ttwo'), 'line one line two');
    assert.equal(fileNameTitle('invoice\u202Efdp.exe'), 'invoice fdp.exe');
    assert.equal(fileNameTitle('half \uD83D'), 'half');
    assert.equal(fileNameTitle('...hidden...'), 'hidden');
    assert.equal(fileNameTitle(' \n '), 'transcript');
    assert.equal(fileNameTitle('///'), '\u2215\u2215\u2215');
  });
});

describe('session titles', () => {
  const temp = useTempDirs();

  it('are the first message on one line, cut at SESSION_TITLE_MAX graphemes without splitting an emoji', async () => {
    assert.equal(sessionTitle('Turn 1/1:\n  continue'), 'Turn 1/1: continue');
    const root = temp.make('evergreen-titles-');
    const store = new FileSessionStore(root);
    const handle = await store.create({ model: 'm' });
    // 79 letters then an astral emoji: a cut at 80 UTF-16 units would keep half of it.
    const text = `${'x'.repeat(79)}🚀 and more`;
    handle.append({ type: 'message', ts: 't', message: { role: 'user', content: [{ type: 'text', text }] } });
    await handle.flushMeta();
    const title = (await store.readMeta(handle.id)).title;
    assert.doesNotMatch(title, /\p{Cs}/u);
    assert.equal(graphemes(title), SESSION_TITLE_MAX);
    assert.equal(title, `${'x'.repeat(79)}…`);
  });
});

describe('a session titled by its first message with an attachment', () => {
  const temp = useTempDirs();

  const titleOf = async (content: { type: 'text'; text: string }[]): Promise<string> => {
    const store = new FileSessionStore(temp.make('evergreen-titles-'));
    const handle = await store.create({ model: 'm' });
    handle.append({ type: 'message', ts: 't', message: { role: 'user', content } });
    await handle.flushMeta();
    return (await store.readMeta(handle.id)).title;
  };

  it('is the user\'s own words, never the attachment\'s markup or file text', async () => {
    const file = attachmentBlock({ kind: 'file', label: 'src/app.ts' }, '1 import { run } from "./run";\n2 run();');
    assert.equal(await titleOf([file, { type: 'text', text: 'Why does\nthis crash?' }]), 'Why does this crash?');
  });

  it('with no words of the user, is the attachments\' labels', async () => {
    const file = attachmentBlock({ kind: 'file', label: 'src/app.ts' }, '1 import x');
    const folder = attachmentBlock({ kind: 'folder', label: 'src/' }, 'a.ts');
    assert.equal(await titleOf([file, folder, { type: 'text', text: ' ' }]), 'src/app.ts, src/');
  });
});

describe('a session stored before titles skipped attachments (its meta.json titled with markup)', () => {
  const temp = useTempDirs();
  const id = '20260101-120000-oldone';
  const markupTitle = '<attachment kind="file" label="src/app.ts"> 1 import { run } from "./run"; 2 run(); </attachment> Why does…';

  /** An old session as it lies on disk: meta.json with the markup title, and its transcript. */
  const oldSession = (firstUser: { type: 'text'; text: string }[]) => {
    const root = temp.make('evergreen-old-titles-');
    const dir = path.join(root, 'sessions', id);
    fs.mkdirSync(dir, { recursive: true });
    const meta = { id, title: markupTitle, model: 'm', workspace: undefined, createdAt: '2026-01-01T12:00:00.000Z', updatedAt: '2026-01-01T12:05:00.000Z', messageCount: 2, totals: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 } };
    fs.writeFileSync(path.join(dir, 'meta.json'), JSON.stringify(meta, null, 2));
    const lines = [
      { type: 'message', ts: 't1', message: { role: 'user', content: firstUser } },
      { type: 'message', ts: 't2', message: { role: 'assistant', content: [{ type: 'text', text: 'Because x is undefined.' }] } },
      { type: 'message', ts: 't3', message: { role: 'user', content: [{ type: 'text', text: 'a later question' }] } },
    ];
    fs.writeFileSync(path.join(dir, 'transcript.jsonl'), lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
    return { root, metaFile: path.join(dir, 'meta.json') };
  };

  it('shows the user\'s words in the list (Resume, Open Archived Transcript) and in its meta, without rewriting meta.json', async () => {
    const file = attachmentBlock({ kind: 'file', label: 'src/app.ts' }, '1 import { run } from "./run";\n2 run();');
    const { root, metaFile } = oldSession([file, { type: 'text', text: 'Why does\nthis crash?' }]);
    const before = fs.readFileSync(metaFile, 'utf8');
    const store = new FileSessionStore(root);
    const listed = await store.list();
    assert.equal(listed.length, 1);
    assert.equal(listed[0]!.title, 'Why does this crash?');
    assert.equal((await store.readMeta(id)).title, 'Why does this crash?');
    assert.equal(fs.readFileSync(metaFile, 'utf8'), before, 'another window may be writing this meta: it is not rewritten on read');
  });

  it('is saved with the user\'s words once the session is opened and written again', async () => {
    const file = attachmentBlock({ kind: 'file', label: 'src/app.ts' }, '1 import x');
    const { root, metaFile } = oldSession([file, { type: 'text', text: 'Explain this' }]);
    const { handle } = await new FileSessionStore(root).open(id);
    await handle.flushMeta();
    handle.close();
    assert.equal((JSON.parse(fs.readFileSync(metaFile, 'utf8')) as { title: string }).title, 'Explain this');
  });

  it('with no words of the user, is the attachment\'s label; with no readable first message, the stored title is kept', async () => {
    const file = attachmentBlock({ kind: 'file', label: 'src/app.ts' }, '1 import x');
    assert.equal((await new FileSessionStore(oldSession([file]).root).readMeta(id)).title, 'src/app.ts');
    const { root } = oldSession([]);
    fs.writeFileSync(path.join(root, 'sessions', id, 'transcript.jsonl'), '');
    assert.equal((await new FileSessionStore(root).readMeta(id)).title, markupTitle);
  });
});
