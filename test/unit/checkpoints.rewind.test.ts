import * as assert from 'node:assert/strict';
import { foldTranscript, rewoundEntries } from '../../src/core/agent/fold';
import { transcriptEntryProblem, type TranscriptEntry } from '../../src/core/storage/transcript';

const ts = '2026-11-25T10:00:00.000Z';
const user = (text: string, checkpoint?: number): TranscriptEntry => ({ type: 'message', ts, message: { role: 'user', content: [{ type: 'text', text }] }, ...(checkpoint ? { checkpoint } : {}) });
const reply = (text: string): TranscriptEntry => ({ type: 'message', ts, message: { role: 'assistant', content: [{ type: 'text', text }] } });
const usage = (costUsd: number): TranscriptEntry => ({ type: 'usage', ts, model: 'm', usage: { inputTokens: 10, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 }, costUsd });
const texts = (entries: readonly TranscriptEntry[]) => foldTranscript(entries).canonical.map((message) => (message.content as { text: string }[])[0]!.text);

describe('rewinding the conversation to a checkpoint (issue 17)', () => {
  const session: TranscriptEntry[] = [
    { type: 'system_prompt', ts, text: 'prompt' }, // 0
    user('one', 1), // 1
    reply('r1'), // 2
    usage(0.5), // 3
    user('two', 2), // 4
    reply('r2'), // 5
    usage(0.25), // 6
  ];

  it('drops what came after the checkpoint from the conversation but keeps its cost counted', () => {
    const rewound = [...session, { type: 'rewind', ts, checkpoint: 2, toEntry: 4, files: 'kept' } as TranscriptEntry];
    assert.deepEqual(texts(rewound), ['one', 'r1']);
    assert.equal(foldTranscript(rewound).totals.costUsd, 0.75);
    assert.equal(foldTranscript(rewound).totals.requests, 2);
    const after = [...rewound, user('two again', 3), reply('r2b')];
    assert.deepEqual(texts(after), ['one', 'r1', 'two again', 'r2b']);
    // Rewinding twice: to the very start.
    assert.deepEqual(texts([...after, { type: 'rewind', ts, checkpoint: 1, toEntry: 1, files: 'restored' }]), []);
  });

  it('shows each user message with its checkpoint on resume', () => {
    const starts = foldTranscript(session).display.filter((event) => event.type === 'turn_started');
    assert.deepEqual(starts.map((event) => (event.type === 'turn_started' ? event.checkpoint : 'wrong kind')), [1, 2]);
  });

  it('an undo right after the rewind brings the conversation back; after a new message it cannot', () => {
    const rewind = { type: 'rewind', ts, checkpoint: 2, toEntry: 4, files: 'restored' } as TranscriptEntry;
    const undone = [...session, rewind, { type: 'rewind_undone', ts, rewindEntry: 7 } as TranscriptEntry];
    assert.deepEqual(texts(undone), ['one', 'r1', 'two', 'r2']);
    const tooLate = [...session, rewind, user('new'), { type: 'rewind_undone', ts, rewindEntry: 7 } as TranscriptEntry];
    assert.deepEqual(texts(tooLate), ['one', 'r1', 'new']);
    assert.equal(rewoundEntries(tooLate).discardedUsage.length, 1);
  });

  it('refuses malformed rewind entries on read', () => {
    assert.match(transcriptEntryProblem({ type: 'rewind', ts, checkpoint: 1, toEntry: -1, files: 'kept' }) ?? '', /malformed rewind/);
    assert.match(transcriptEntryProblem({ type: 'rewind', ts, checkpoint: 1, toEntry: 2, files: 'some' }) ?? '', /malformed rewind/);
    assert.match(transcriptEntryProblem({ type: 'rewind_undone', ts, rewindEntry: 'x' }) ?? '', /malformed rewind-undone/);
    assert.equal(transcriptEntryProblem({ type: 'rewind', ts, checkpoint: 1, toEntry: 2, files: 'kept' }), undefined);
  });
});
