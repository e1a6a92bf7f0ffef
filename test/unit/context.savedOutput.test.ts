/**
 * A persisted tool result's note (issue: rough edges): the file travels as data, the chat shows a
 * short "saved output" link instead of the long path, resume rebuilds the same link, and the host
 * opens only files in the session's own tool-results folder.
 */
import { said, worded } from '../support/said';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { foldTranscript } from '../../src/core/agent/fold';
import { savedOutputFile } from '../../src/core/context/tier0';
import type { MessageParam } from '../../src/core/model/messages';
import type { TranscriptEntry } from '../../src/core/storage/transcript';
import type { AgentEvent } from '../../src/protocol';
import type { AgentEvent as CoreAgentEvent } from '../../src/core/agent/events';
import { parseWebviewMessage } from '../../src/extension/webviewRequests';
import { applyEvent, emptyChat } from '../../src/webview/chatModel';
import { Rig } from './context.harness';
import { useTempDirs } from '../support/tempDirs';

const bigOutput = Array.from({ length: 2_000 }, (_, i) => `line ${i + 1} `.padEnd(60, '=')).join('\n');

function chatOf(events: readonly AgentEvent[]) {
  const model = emptyChat();
  for (const event of events) applyEvent(model, event);
  return model;
}

describe('saved output links (persist notes)', () => {
  const temp = useTempDirs();
  let root: string;
  let toolResultsDir: string;
  beforeEach(() => {
    root = temp.make('evergreen-saved-');
    toolResultsDir = path.join(root, 'sessions', 's1', 'tool-results');
    fs.mkdirSync(toolResultsDir, { recursive: true });
  });

  it('the engine carries the file as data; the chat note is short and links it; the model and CLI detail keep the full path', async () => {
    const rig = new Rig({ window: 200_000, toolResultsDir });
    const shown = await rig.engine.onToolResult({ toolUseId: 'toolu_big', toolName: 'run_shell', content: bigOutput });
    const [event] = rig.eventsOf('tier');
    assert.ok(event);
    assert.equal(event.tier, 'persist');
    assert.ok(event.savedOutput, 'the file is data on the event');
    assert.equal(event.savedOutput.toolName, 'run_shell');
    assert.equal(path.dirname(event.savedOutput.file), toolResultsDir);
    assert.equal(fs.readFileSync(event.savedOutput.file, 'utf8'), bigOutput);
    assert.ok(shown.includes(event.savedOutput.file), 'the model sees the full path');
    assert.ok(said(event.detail).includes(event.savedOutput.file), 'the CLI and logs print the full path');

    const [note] = chatOf(worded([event])).items;
    assert.ok(note);
    assert.equal(note.kind, 'note');
    assert.ok(note.kind === 'note');
    assert.deepEqual(note.savedOutput, { toolName: 'run_shell', file: event.savedOutput.file });
    assert.ok(!note.text.includes(toolResultsDir) && !note.text.includes('/'), `no path in the chat text: ${note.text}`);
    assert.match(note.text, /^Context persist: run_shell output moved out of the context — saved ~[\d,.k]+ tokens \(~[\d,.k]+ → ~[\d,.k]+\)$/);
  });

  it('a truncation or a later tier keeps its detail and has no link', () => {
    const chat = chatOf([
      { type: 'tier', tier: 'truncate', items: 1, tokensBefore: 20_000, tokensAfter: 12_500, detail: 'run_shell output cut to its head and tail' },
      { type: 'tier', tier: 'microcompact', items: 3, tokensBefore: 9_000, tokensAfter: 3_000, detail: 'cleared 3 old tool result(s) because the cache is cold' },
    ]);
    assert.deepEqual(
      chat.items.map((item) => (item.kind === 'note' ? [item.text, item.savedOutput] : item.kind)),
      [
        ['Context truncate: run_shell output cut to its head and tail — saved ~7,500 tokens (~20k → ~13k)', undefined],
        ['Context microcompact: cleared 3 old tool result(s) because the cache is cold — saved ~6,000 tokens (~9,000 → ~3,000)', undefined],
      ],
    );
  });

  it('a resumed chat (the fold) shows the same note and link, where the live chat showed it', async () => {
    const rig = new Rig({ window: 200_000, toolResultsDir });
    const call: MessageParam = { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_big', name: 'run_shell', input: { command: 'make' } }] };
    rig.user('build it');
    rig.push(call);
    const shown = await rig.engine.onToolResult({ toolUseId: 'toolu_big', toolName: 'run_shell', content: bigOutput });
    rig.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_big', content: shown }] });
    const live = rig.eventsOf('tier');
    assert.equal(live.length, 1);

    const folded = foldTranscript(rig.entries).display;
    const replayed = folded.filter((event) => event.type === 'tier');
    assert.equal(replayed.length, 1);
    const { turnId: _turn, ...withoutTurn } = replayed[0] as Extract<CoreAgentEvent, { type: 'tier' }>;
    assert.deepEqual(withoutTurn, live[0], 'the same event, figures and file included');
    // Between the call's card and its result, as live.
    const order = folded.map((event) => event.type).filter((type) => type.startsWith('tool_call') || type === 'tier');
    assert.deepEqual(order, ['tool_call_started', 'tier', 'tool_call_finished']);
    assert.deepEqual(chatOf(worded(folded)).items.find((item) => item.kind === 'note'), chatOf(worded(live)).items[0], 'the chat item is the live one');
  });

  it('a transcript written before the figures were recorded still gets the link, with estimated figures', () => {
    const file = path.join(toolResultsDir, 'toolu_old.txt');
    const entries: TranscriptEntry[] = [
      { type: 'message', ts: 't1', message: { role: 'user', content: [{ type: 'text', text: 'go' }] } },
      { type: 'message', ts: 't2', message: { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_old', name: 'grep_search', input: {} }] } },
      { type: 'persisted_output', ts: 't3', toolUseId: 'toolu_old', toolName: 'grep_search', file, bytes: 40_000, lines: 800 },
      { type: 'message', ts: 't4', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_old', content: 'p'.repeat(4_000) }] } },
    ];
    const display = foldTranscript(entries).display;
    assert.deepEqual(
      display.map((event) => event.type),
      ['turn_started', 'tool_call_started', 'tier', 'tool_call_finished', 'turn_finished'],
    );
    const note = display[2];
    assert.ok(note?.type === 'tier');
    assert.deepEqual(note.savedOutput, { toolName: 'grep_search', file, toolUseId: 'toolu_old' });
    assert.equal(note.tokensBefore, 10_000);
    assert.equal(note.tokensAfter, 1_000);
  });

  it('the protocol passes a saved-output request as a string path only', () => {
    assert.deepEqual(parseWebviewMessage({ type: 'openSavedOutput', requestId: 9, file: '/x/tool-results/a.txt' }), { type: 'openSavedOutput', requestId: 9, file: '/x/tool-results/a.txt' });
    assert.equal(parseWebviewMessage({ type: 'openSavedOutput', requestId: 9, file: 42 }), undefined);
    assert.equal(parseWebviewMessage({ type: 'openSavedOutput', requestId: 9, file: '' }), undefined);
    assert.equal(parseWebviewMessage({ type: 'openSavedOutput', requestId: 9, file: `/${'a'.repeat(5_000)}` }), undefined);
  });

  describe('savedOutputFile (what the host agrees to open)', () => {
    it('accepts a file directly in the session\'s tool-results folder', async () => {
      const file = path.join(toolResultsDir, 'toolu_1.txt');
      fs.writeFileSync(file, 'out');
      assert.equal(await savedOutputFile(file, toolResultsDir), fs.realpathSync(file));
    });

    it('refuses anything else: another session, a climb out with "..", a relative path, a folder, a missing file, a symlink out', async () => {
      const other = path.join(root, 'sessions', 's2', 'tool-results');
      fs.mkdirSync(other, { recursive: true });
      fs.writeFileSync(path.join(other, 'toolu_2.txt'), 'theirs');
      const secret = path.join(root, 'secret.txt');
      fs.writeFileSync(secret, 'secret');
      fs.mkdirSync(path.join(toolResultsDir, 'sub'));
      fs.writeFileSync(path.join(toolResultsDir, 'sub', 'deeper.txt'), 'deeper');
      fs.symlinkSync(secret, path.join(toolResultsDir, 'link.txt'));
      const refused = [
        path.join(other, 'toolu_2.txt'),
        path.join(toolResultsDir, '..', '..', '..', 'secret.txt'),
        'toolu_1.txt',
        path.join(toolResultsDir, 'sub'),
        path.join(toolResultsDir, 'sub', 'deeper.txt'),
        path.join(toolResultsDir, 'missing.txt'),
        path.join(toolResultsDir, 'link.txt'),
        toolResultsDir,
      ];
      for (const file of refused) assert.equal(await savedOutputFile(file, toolResultsDir), undefined, file);
      // The same request is fine for the session that owns it: the check is by folder, not by name.
      assert.ok(await savedOutputFile(path.join(other, 'toolu_2.txt'), other));
    });
  });
});
