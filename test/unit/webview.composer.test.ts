import assert from 'node:assert/strict';
import { addChip, droppedPaths, messageEstimate, pickerQueryAt, pickerRows, type Chip } from '../../src/webview/composerModel';
import { MAX_ATTACHMENTS } from '../../src/protocol';
import { parseWebviewMessage } from '../../src/extension/webviewRequests';
import { applyEvent, emptyChat, lastUserItem } from '../../src/webview/chatModel';

describe('the composer attachments (issue 17)', () => {
  it('only the newest user message offers Edit: a new message redraws the one before', () => {
    const chat = emptyChat();
    applyEvent(chat, { type: 'turn_started', turnId: 't1', userText: 'first', checkpoint: 1 });
    const first = lastUserItem(chat);
    assert.equal(first?.kind, 'user');
    const revBefore = first!.rev;
    applyEvent(chat, { type: 'turn_finished', turnId: 't1', stopReason: 'end_turn' });
    applyEvent(chat, { type: 'turn_started', turnId: 't2', userText: 'second', checkpoint: 2 });
    assert.equal(lastUserItem(chat)?.text, 'second');
    assert.ok(first!.rev > revBefore, 'the first message is drawn again, without its Edit button');
    assert.deepEqual(parseWebviewMessage({ type: 'editMessage', requestId: 9, checkpoint: 2 }), { type: 'editMessage', requestId: 9, checkpoint: 2 });
    assert.equal(parseWebviewMessage({ type: 'editMessage', requestId: 9, checkpoint: 0 }), undefined);
  });

  it('opens the picker for an @ at the start of a word only, with what follows it as the query', () => {
    assert.deepEqual(pickerQueryAt('@', 1), { start: 0, query: '' });
    assert.deepEqual(pickerQueryAt('look at @src/ap', 15), { start: 8, query: 'src/ap' });
    assert.equal(pickerQueryAt('mail me at a@b.com', 18), undefined, 'an e-mail address is no query');
    assert.equal(pickerQueryAt('@src/app.ts and more', 20), undefined, 'the caret left the word');
    assert.deepEqual(pickerQueryAt('@src/app.ts and more', 11), { start: 0, query: 'src/app.ts' });
  });

  it('offers the gathered kinds that match, then the files and folders, and a typed line range on the matching file', () => {
    const rows = pickerRows('', [{ kind: 'folder', path: 'src' }, { kind: 'file', path: 'src/app.ts', tokens: 120 }]);
    assert.deepEqual(rows.map((row) => row.label), ['@selection', '@problems', '@terminal', '@git-changes', 'src/', 'src/app.ts']);
    assert.deepEqual(pickerRows('te', []).map((row) => row.label), ['@terminal']);
    const ranged = pickerRows('src/app.ts:10-40', [{ kind: 'file', path: 'src/app.ts' }]);
    assert.deepEqual(ranged.at(-1)?.request, { kind: 'file', path: 'src/app.ts', fromLine: 10, toLine: 40 });
    assert.equal(ranged.at(-1)?.label, 'src/app.ts:10-40');
    assert.deepEqual(pickerRows('src/app.ts:40-10', [{ kind: 'file', path: 'src/app.ts' }]).at(-1)?.request, { kind: 'file', path: 'src/app.ts' }, 'a backwards range is no range');
  });

  it('keeps one chip per attachment and at most the limit, saying why', () => {
    const chips: Chip[] = [];
    assert.equal(addChip(chips, { request: { kind: 'problems' }, label: 'problems' }), undefined);
    assert.match(addChip(chips, { request: { kind: 'problems' }, label: 'problems' }) ?? '', /attached already/);
    for (let i = 1; i < MAX_ATTACHMENTS; i++) addChip(chips, { request: { kind: 'file', path: `f${i}` }, label: `f${i}` });
    assert.equal(chips.length, MAX_ATTACHMENTS);
    assert.match(addChip(chips, { request: { kind: 'file', path: 'one-more' }, label: 'one-more' }) ?? '', new RegExp(`at most ${MAX_ATTACHMENTS}`));
  });

  it('says what the message will cost before it is sent', () => {
    assert.equal(messageEstimate('x'.repeat(400), []), 'this message: ~100 tokens');
    assert.equal(messageEstimate('hi', [{ request: { kind: 'file', path: 'a' }, label: 'a', tokens: 11_999 }, { request: { kind: 'terminal' }, label: 'terminal' }]), 'this message: ~12k tokens + 1 measured when sent');
  });

  it('the host refuses a malformed Restore, Edit or @ query from the panel', () => {
    assert.deepEqual(parseWebviewMessage({ type: 'restoreCheckpoint', requestId: 9, checkpoint: 3 }), { type: 'restoreCheckpoint', requestId: 9, checkpoint: 3 });
    for (const checkpoint of [0, -1, 1.5, '3', Number.MAX_VALUE, null]) {
      assert.equal(parseWebviewMessage({ type: 'restoreCheckpoint', requestId: 9, checkpoint }), undefined, String(checkpoint));
      assert.equal(parseWebviewMessage({ type: 'editMessage', requestId: 9, checkpoint }), undefined, String(checkpoint));
    }
    assert.deepEqual(parseWebviewMessage({ type: 'attachmentQuery', requestId: 4, query: 'src/ap' }), { type: 'attachmentQuery', requestId: 4, query: 'src/ap' });
    assert.equal(parseWebviewMessage({ type: 'attachmentQuery', requestId: '4', query: 'x' }), undefined);
    assert.equal(parseWebviewMessage({ type: 'attachmentQuery', requestId: 4, query: 'x'.repeat(5000) }), undefined);
    const image = (data: unknown, name: unknown = 'shot.png') => parseWebviewMessage({ type: 'sendMessage', requestId: 1, text: 'hi', attachments: [{ kind: 'image', name, data }] });
    assert.equal(image('iVBORw0KGgo=')?.type, 'sendMessage');
    for (const [data, name] of [['not base64!', 'a.png'], [42, 'a.png'], ['iVBORw0KGgo=', ''], ['iVBORw0KGgo=', 'n'.repeat(201)]]) assert.equal(image(data, name), undefined, `${String(data)} ${String(name).slice(0, 10)}`);
  });

  it('the host refuses a send whose attachments are malformed, whole', () => {
    const send = (attachments: unknown) => parseWebviewMessage({ type: 'sendMessage', requestId: 1, text: 'hi', attachments });
    const ok = send([{ kind: 'file', path: 'a.ts', fromLine: 2, toLine: 3 }, { kind: 'folder', path: 'src' }, { kind: 'git-changes' }]);
    assert.equal(ok?.type, 'sendMessage');
    assert.deepEqual(ok?.type === 'sendMessage' ? ok.attachments : undefined, [{ kind: 'file', path: 'a.ts', fromLine: 2, toLine: 3 }, { kind: 'folder', path: 'src' }, { kind: 'git-changes' }]);
    for (const bad of [[{ kind: 'file', path: '' }], [{ kind: 'file', path: 'a', fromLine: 5, toLine: 2 }], [{ kind: 'image' }], [{ kind: 'file', path: 'a', fromLine: 0, toLine: 1 }], 'all', Array.from({ length: MAX_ATTACHMENTS + 1 }, () => ({ kind: 'problems' }))]) {
      assert.equal(send(bad), undefined, JSON.stringify(bad).slice(0, 80));
    }
  });

  it('takes files dragged from the Explorer or an editor tab, local or remote, and names the ones outside the workspace', () => {
    const root = '/home/me/project';
    const drag = (data: Record<string, string>) => droppedPaths((type) => data[type] ?? '', root);
    // The Explorer in a local window.
    assert.deepEqual(drag({ 'text/uri-list': 'file:///home/me/project/src/app.ts\r\nfile:///home/me/project/My%20Notes.md' }), { inside: ['src/app.ts', 'My Notes.md'], outside: [] });
    // A remote window (code-server): vscode-remote URIs, in VS Code's own list and the Explorer's JSON, counted once.
    assert.deepEqual(
      drag({ 'application/vnd.code.uri-list': 'vscode-remote://127.0.0.1:8080/home/me/project/src/app.ts', resourceurls: JSON.stringify(['vscode-remote://127.0.0.1:8080/home/me/project/src/app.ts', 'vscode-remote://127.0.0.1:8080/home/me/project/lib']) }),
      { inside: ['src/app.ts', 'lib'], outside: [] },
    );
    // An editor tab.
    assert.deepEqual(drag({ codeeditors: JSON.stringify([{ resource: 'file:///home/me/project/README.md' }]) }), { inside: ['README.md'], outside: [] });
    // Outside the workspace, a look-alike prefix, the root itself, web links, comments and junk.
    assert.deepEqual(drag({ 'text/uri-list': '# a comment\nfile:///etc/passwd\nfile:///home/me/project-evil/x.ts\nfile:///home/me/project\nhttps://example.com/home/me/project/a.ts', resourceurls: '{not json' }), {
      inside: [],
      outside: ['/etc/passwd', '/home/me/project-evil/x.ts', '/home/me/project'],
    });
  });
});
