import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FileSessionStore, readTranscript, transcriptLines } from '../../src/core/storage/sessionStore';
import { renderTranscript } from '../../src/extension/transcriptMarkdown';
import { useTempDirs } from '../support/tempDirs';

describe('session store', () => {
  const temp = useTempDirs();
  let root: string;
  beforeEach(() => {
    root = temp.make('evergreen-store-');
  });

  it('creates the session folder layout (transcript.jsonl, meta.json, tool-results/) and keeps meta totals current', async () => {
    const store = new FileSessionStore(root);
    const handle = await store.create({ model: 'claude-sonnet-4-5', workspace: '/w' });
    handle.append({ type: 'message', ts: 't', message: { role: 'user', content: [{ type: 'text', text: 'Refactor   the\nparser please' }] } });
    handle.append({ type: 'usage', ts: 't', model: 'm', usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 100, cacheWriteTokens: 20 }, costUsd: 0.25 });
    await handle.flushMeta();
    const dir = path.join(root, 'sessions', handle.id);
    assert.ok(fs.statSync(path.join(dir, 'tool-results')).isDirectory());
    const meta = JSON.parse(fs.readFileSync(path.join(dir, 'meta.json'), 'utf8'));
    assert.equal(meta.title, 'Refactor the parser please');
    assert.equal(meta.messageCount, 1);
    assert.deepEqual(meta.totals, { inputTokens: 10, outputTokens: 5, cacheReadTokens: 100, cacheWriteTokens: 20, costUsd: 0.25 });
    const lines = fs.readFileSync(path.join(dir, 'transcript.jsonl'), 'utf8').trim().split('\n');
    assert.equal(lines.length, 2);
    assert.deepEqual((await store.list()).map((entry) => entry.id), [handle.id]);
  });

  it('skips a torn last line instead of failing', async () => {
    const store = new FileSessionStore(root);
    const handle = await store.create({ model: 'm' });
    handle.append({ type: 'message', ts: 't', message: { role: 'user', content: 'one' } });
    fs.appendFileSync(store.transcriptPath(handle.id), '{"type":"message","ts":"t","message":{"role":"assis');
    const { transcript } = await store.open(handle.id);
    assert.equal(transcript.entries.length, 1);
    assert.equal(transcript.skippedLines, 1);
  });

  it('refuses session ids that could escape the sessions folder', async () => {
    const store = new FileSessionStore(root);
    await assert.rejects(store.open('../../etc'), /Invalid session id/);
    await assert.rejects(store.open('missing-session'), /No session "missing-session"/);
  });

  it('keeps the owner file while any handle of this process holds it: a chat restarted on its transcript closes the old handle after opening the new', async () => {
    const store = new FileSessionStore(root);
    const first = await store.create({ model: 'm' });
    const lock = path.join(root, 'sessions', first.id, 'owner.lock');
    const second = (await store.open(first.id)).handle;
    first.close();
    assert.ok(fs.existsSync(lock), 'the newer handle still holds the session');
    first.close(); // twice is once
    assert.ok(fs.existsSync(lock), 'a handle releases only its own hold');
    second.close();
    assert.equal(fs.existsSync(lock), false, 'the last handle releases the session');
  });

  it('discards a session folder, and refuses a name that is not a session id', async () => {
    const store = new FileSessionStore(root);
    const handle = await store.create({ model: 'm' });
    handle.close();
    await store.discard(handle.id);
    assert.equal(fs.existsSync(path.join(root, 'sessions', handle.id)), false);
    assert.deepEqual(await store.list(), []);
    await assert.rejects(store.discard('../..'), /not a session id/);
    assert.ok(fs.existsSync(root), 'nothing outside the sessions folder is touched');
  });

  it('reads a missing transcript as empty', async () => {
    assert.deepEqual(await readTranscript(path.join(root, 'nope.jsonl')), { entries: [], skippedLines: 0, problems: [], tornTail: false });
  });

  it('counts compactions in meta (drops not), backfills old metas on open, and sizes a session from stat', async () => {
    const store = new FileSessionStore(root);
    const handle = await store.create({ model: 'm' });
    const boundary = (trigger: 'manual' | 'drop') => ({ type: 'compaction' as const, ts: 't', compaction: { id: trigger, trigger, keptFrom: 0, restoredFiles: [], stats: { tokensBefore: 2, tokensAfter: 1, messagesSummarized: 1, messagesKept: 0, summaryRequests: 1 } } });
    handle.append({ type: 'message', ts: 't', message: { role: 'user', content: 'hi' } });
    handle.append(boundary('manual'));
    handle.append(boundary('drop'));
    handle.append(boundary('manual'));
    await handle.flushMeta();
    handle.close();
    assert.equal((await store.readMeta(handle.id)).compactions, 2);
    // A meta written before the counter existed.
    const metaFile = path.join(root, 'sessions', handle.id, 'meta.json');
    const old = JSON.parse(fs.readFileSync(metaFile, 'utf8'));
    delete old.compactions;
    fs.writeFileSync(metaFile, JSON.stringify(old));
    assert.equal((await store.list())[0]?.compactions, undefined);
    const reopened = await store.open(handle.id);
    assert.equal(reopened.handle.meta.compactions, 2);
    reopened.handle.close();
    fs.writeFileSync(path.join(root, 'sessions', handle.id, 'tool-results', 'x.txt'), 'x'.repeat(1000));
    const expected = ['transcript.jsonl', 'meta.json', 'tool-results/x.txt'].reduce((sum, file) => sum + fs.statSync(path.join(root, 'sessions', handle.id, file)).size, 0);
    assert.equal(await store.diskUsage(handle.id), expected);
  });

  it('renders a transcript as readable markdown', async () => {
    const store = new FileSessionStore(root);
    const handle = await store.create({ model: 'claude-sonnet-4-5' });
    handle.append({ type: 'message', ts: 't1', message: { role: 'user', content: [{ type: 'text', text: 'list files' }] } });
    handle.append({ type: 'message', ts: 't2', message: { role: 'assistant', content: [{ type: 'tool_use', id: 'tu1', name: 'list_files', input: { pattern: '*.ts' } }] } });
    handle.append({ type: 'message', ts: 't3', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu1', content: 'a.ts\nb.ts' }] } });
    const { text: markdown } = await renderTranscript(handle.meta, transcriptLines(store.transcriptPath(handle.id)));
    assert.match(markdown, /^# list files/);
    assert.match(markdown, /> list files/);
    assert.match(markdown, /\*\*Tool call `list_files`\*\* \(tu1\)/);
    assert.match(markdown, /a\.ts\nb\.ts/);
  });
});
