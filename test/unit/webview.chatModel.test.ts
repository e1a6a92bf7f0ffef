import assert from 'node:assert/strict';
import { applyEvent, dismissNotice, emptyChat, MAX_TOOL_OUTPUT_CHARS, toolCardName } from '../../src/webview/chatModel';
import { contextGauge, gaugeTooltipText } from '../../src/core/context/gauge';
import { wordGauge } from '../../src/frontends/words/wordGauge';
import { gaugeView } from '../../src/webview/gauge';
import type { AgentEvent } from '../../src/protocol';
import { describeRejectedMessage, parseWebviewMessage } from '../../src/extension/webviewRequests';

function fold(events: AgentEvent[]) {
  const model = emptyChat();
  for (const event of events) applyEvent(model, event);
  return model;
}

describe('webview chat model', () => {
  it('a dismissed notice leaves the chat and stays away when the chat is rebuilt with it (Restore, Undo, a reload)', () => {
    const notice: AgentEvent = { type: 'thinking_notice', level: 'info', message: 'Thinking uses 4,096 tokens, not 8,000.' };
    const model = fold([notice, { type: 'turn_started', turnId: 't1', userText: 'hi' }]);
    const item = model.items[0]!;
    assert.equal(item.kind, 'notice');
    dismissNotice(model, item.key);
    assert.deepEqual(model.items.map((each) => each.kind), ['user']);
    // The host restarts the session after a Restore and says its start notices again.
    const rebuilt = emptyChat(model.dismissed);
    applyEvent(rebuilt, notice);
    applyEvent(rebuilt, { type: 'thinking_notice', level: 'info', message: 'Another notice.' });
    assert.deepEqual(rebuilt.items.map((each) => each.kind === 'notice' && each.text), ['Another notice.']);
  });

  it("names the MCP tool a deferred call calls, so its card names the server; other tools keep their name", () => {
    assert.equal(toolCardName('mcp_call', { tool: 'mcp__github__get_issue', arguments: { number: 1 } }), 'mcp_call mcp__github__get_issue');
    assert.equal(toolCardName('mcp__everything__echo', { message: 'hi' }), 'mcp__everything__echo');
    assert.equal(toolCardName('read_file', { tool: 'mcp__x__y' }), 'read_file');
    // Input the core will refuse still gets a card, under the tool's own name.
    for (const input of [undefined, null, 'mcp__x__y', { tool: 42 }, { tool: '' }]) assert.equal(toolCardName('mcp_call', input), 'mcp_call');
  });

  it('folds a turn with streamed text and a tool call into ordered items', () => {
    const model = fold([
      { type: 'turn_started', turnId: 't1', userText: 'fix the bug' },
      { type: 'text_delta', turnId: 't1', text: 'Let me ' },
      { type: 'text_delta', turnId: 't1', text: 'look.' },
      { type: 'tool_call_started', turnId: 't1', toolUseId: 'tu1', name: 'read_file', input: { path: 'a.ts' } },
      { type: 'tool_call_progress', turnId: 't1', toolUseId: 'tu1', chunk: 'partial' },
      { type: 'tool_call_finished', turnId: 't1', toolUseId: 'tu1', name: 'read_file', isError: false, content: '1\tconst a = 1;', durationMs: 12 },
      { type: 'text_delta', turnId: 't1', text: 'Done.' },
      { type: 'turn_finished', turnId: 't1', stopReason: 'end_turn' },
    ]);
    assert.deepEqual(
      model.items.map((item) => item.kind),
      ['user', 'assistant', 'tool', 'assistant'],
    );
    const [, first, tool, second] = model.items;
    assert.equal(first?.kind === 'assistant' && first.text, 'Let me look.');
    assert.equal(first?.kind === 'assistant' && first.streaming, false);
    assert.equal(tool?.kind === 'tool' && tool.status, 'done');
    assert.equal(tool?.kind === 'tool' && tool.output, '1\tconst a = 1;');
    assert.equal(second?.kind === 'assistant' && second.text, 'Done.');
    assert.equal(model.busy, false);
  });

  it('tracks an approval from request to decision', () => {
    const model = fold([
      { type: 'turn_started', turnId: 't1', userText: 'run tests' },
      { type: 'tool_call_started', turnId: 't1', toolUseId: 'tu1', name: 'run_shell', input: { command: 'npm test' } },
      { type: 'approval_needed', turnId: 't1', toolUseId: 'tu1', request: { kind: 'shell', command: 'npm test' } },
    ]);
    const tool = model.items[1];
    assert.equal(tool?.kind === 'tool' && tool.status, 'awaiting-approval');
    applyEvent(model, { type: 'approval_resolved', turnId: 't1', toolUseId: 'tu1', approved: false });
    assert.equal(tool?.kind === 'tool' && tool.approval?.decided, false);
  });

  it('drops the partial text of a failed attempt when a retry starts', () => {
    const model = fold([
      { type: 'turn_started', turnId: 't1', userText: 'hi' },
      { type: 'text_delta', turnId: 't1', text: 'Hel' },
      { type: 'retrying', turnId: 't1', attempt: 1, delayMs: 500, reason: 'overloaded' },
      { type: 'text_delta', turnId: 't1', text: 'Hello!' },
    ]);
    const texts = model.items.flatMap((item) => (item.kind === 'assistant' ? [item.text] : []));
    assert.deepEqual(texts, ['Hello!']);
    assert.ok(model.items.some((item) => item.kind === 'notice' && item.text.includes('Retrying')));
  });

  it('keeps streamed tool output bounded', () => {
    const model = fold([
      { type: 'turn_started', turnId: 't1', userText: 'x' },
      { type: 'tool_call_started', turnId: 't1', toolUseId: 'tu1', name: 'run_shell', input: { command: 'yes' } },
    ]);
    for (let i = 0; i < 50; i++) applyEvent(model, { type: 'tool_call_progress', turnId: 't1', toolUseId: 'tu1', chunk: 'y\n'.repeat(1000) });
    const tool = model.items[1];
    assert.ok(tool?.kind === 'tool' && tool.output.length <= MAX_TOOL_OUTPUT_CHARS + 1);
  });

  it('shows errors with their hint and the core\'s actions, and marks cancelled turns', () => {
    const model = fold([
      { type: 'turn_started', turnId: 't1', userText: 'x' },
      { type: 'error', turnId: 't1', kind: 'authentication', message: 'The API key was rejected (401)', hint: 'Set a valid key with "Evergreen: Set API Key".', actions: ['setApiKey'] },
      { type: 'turn_finished', turnId: 't1', stopReason: 'error' },
      { type: 'turn_started', turnId: 't2', userText: 'y' },
      { type: 'turn_finished', turnId: 't2', stopReason: 'cancelled' },
    ]);
    const notices = model.items.filter((item) => item.kind === 'notice');
    assert.equal(notices[0]?.kind === 'notice' && notices[0].hint, 'Set a valid key with "Evergreen: Set API Key".');
    assert.equal(notices[1]?.kind === 'notice' && notices[1].text, 'Cancelled.');
    const first = notices[0];
    assert.ok(first?.kind === 'notice');
    assert.deepEqual(first.actions, ['setApiKey']);
  });

  it('a retry (empty user text) adds no user bubble', () => {
    const model = fold([
      { type: 'turn_started', turnId: 't1', userText: 'x' },
      { type: 'turn_finished', turnId: 't1', stopReason: 'error' },
      { type: 'turn_started', turnId: 't2', userText: '' },
      { type: 'text_delta', turnId: 't2', text: 'Done.' },
      { type: 'turn_finished', turnId: 't2', stopReason: 'end_turn' },
    ]);
    assert.deepEqual(
      model.items.map((item) => item.kind),
      ['user', 'assistant'],
    );
  });
});

describe('webview gauge', () => {
  const base = { window: 200_000, outputReserve: 16_000, autoCompactThreshold: 171_000, cacheReadShare: 0.5, sessionCostUsd: 0.1 };

  it('draws exactly the core\'s reading: widths adding up to the whole window, the marker, the label and the level', () => {
    const gauge = wordGauge(contextGauge({ ...base, usedTokens: 124_000 }));
    const view = gaugeView(gauge);
    assert.equal(view.label, '62% · 124k / 200k');
    assert.equal(view.label, gauge.reading.label);
    assert.equal(view.secondary, 'cache 50% · $0.10');
    assert.deepEqual([view.used, view.reserve, view.free], ['62.00%', '8.00%', '30.00%']);
    assert.equal(view.threshold, '85.50%');
    assert.equal(view.level, 'ok');
    assert.equal(view.ariaValueNow, 62);
    assert.ok(view.tooltip.startsWith(gaugeTooltipText(gauge.reading.tooltip)), 'the hover shows the core\'s breakdown text');
    assert.match(view.tooltip, /Click/);
  });

  it('keeps an over-limit gauge inside the bar and says so', () => {
    const view = gaugeView(wordGauge(contextGauge({ ...base, usedTokens: 230_000 })));
    assert.equal(view.level, 'over');
    assert.deepEqual([view.used, view.reserve, view.free], ['100.00%', '0.00%', '0.00%']);
    assert.equal(view.ariaValueNow, 100);
    assert.match(view.label, /^>100% · 230k \/ 200k$/);
  });

  it('shows an empty gauge before the first message', () => {
    const view = gaugeView(undefined);
    assert.equal(view.level, 'empty');
    assert.equal(view.threshold, undefined);
    assert.equal(view.label, 'No conversation yet');
  });
});

describe('protocol guard', () => {
  it('accepts well-formed webview messages and rejects everything else', () => {
    assert.deepEqual(parseWebviewMessage({ type: 'sendMessage', requestId: 1, text: 'hi' }), { type: 'sendMessage', requestId: 1, text: 'hi' });
    assert.deepEqual(parseWebviewMessage({ type: 'runCommand', requestId: 2, command: 'cancel' }), { type: 'runCommand', requestId: 2, command: 'cancel' });
    assert.equal(parseWebviewMessage({ type: 'runCommand', requestId: 2, command: 'workbench.action.quit' }), undefined);
    assert.equal(parseWebviewMessage({ type: 'sendMessage', text: 'no id' }), undefined);
    assert.equal(parseWebviewMessage('ready'), undefined);
    assert.equal(parseWebviewMessage(null), undefined);
  });

  it('describes a refused message for the log by its type only, printable and short', () => {
    const secretText = 'my password is hunter2';
    const described = describeRejectedMessage({ type: 'sendMessage', text: secretText });
    assert.match(described, /"sendMessage" message/);
    assert.ok(!described.includes('hunter2'), 'the text of a refused message is never logged');
    assert.equal(describeRejectedMessage({ type: `evil\u001b[2J${'x'.repeat(100)}` }).includes('\u001b'), false, 'escape sequences are not logged');
    assert.ok(describeRejectedMessage({ type: 'x'.repeat(500) }).length < 120);
    assert.match(describeRejectedMessage('ready'), /a string instead of a message object/);
    assert.match(describeRejectedMessage(null), /a null instead/);
    assert.match(describeRejectedMessage({ kind: 'ready' }), /without a string "type"/);
  });
});

describe('webview chat model: the context engine in the chat', () => {
  it('leaves a divider with tokens before and after and the summary; failures and tier actions as notices', () => {
    const model = emptyChat();
    applyEvent(model, { type: 'turn_started', turnId: 't', userText: 'go' });
    applyEvent(model, { type: 'text_delta', turnId: 't', text: 'Working.' });
    applyEvent(model, { type: 'context', gauge: wordGauge(contextGauge({ window: 40_000, outputReserve: 8_000, usedTokens: 30_000, autoCompactThreshold: 29_200, cacheReadShare: 0.9, sessionCostUsd: 0.01 })) });
    assert.equal(model.items.length, 2, 'gauge updates add no chat item');
    applyEvent(model, { type: 'compaction', turnId: 't', compactionId: 'c1', trigger: 'auto', tokensBefore: 30_123, tokensAfter: 6_000, messagesSummarized: 40, messagesKept: 4, summary: '1. Primary request: go', restoredFiles: ['a.ts'] });
    const divider = model.items.at(-1);
    assert.equal(divider?.kind, 'divider');
    assert.ok(divider?.kind === 'divider');
    assert.match(divider.text, /auto summary\): ~30k → ~6,000 tokens; 40 message\(s\) summarized, 4 kept, 1 file\(s\) restored/);
    assert.equal(divider.summary, '1. Primary request: go');
    const assistant = model.items[1];
    assert.ok(assistant?.kind === 'assistant');
    assert.equal(assistant.streaming, false, 'the divider closes the streaming reply');
    applyEvent(model, { type: 'compaction_failed', trigger: 'auto', message: 'Compaction (auto) failed: empty summary', consecutiveFailures: 3, breakerOpen: true, hint: 'Run Compact Conversation', actions: ['compact', 'newChat'] });
    const failure = model.items.at(-1);
    assert.equal(failure?.kind, 'notice');
    assert.ok(failure?.kind === 'notice');
    assert.equal(failure.level, 'error');
    assert.equal(failure.hint, 'Run Compact Conversation');
    assert.deepEqual(failure.actions, ['compact', 'newChat'], 'the buttons are the core\'s actions');
    applyEvent(model, { type: 'tier', tier: 'snip', items: 3, tokensBefore: 20_000, tokensAfter: 15_000, detail: 'snipped 3 old tool result(s)' });
    const note = model.items.at(-1);
    assert.equal(note?.kind, 'note', 'a lighter tier is a quiet note, not a notice');
    assert.ok(note?.kind === 'note');
    assert.match(note.text, /Context snip: snipped 3 old tool result\(s\) — saved ~5,000 tokens \(~20k → ~15k\)/);
  });

  it('a full context window offers exactly the actions the core sent, live or replayed without them', () => {
    const model = emptyChat();
    applyEvent(model, { type: 'turn_started', turnId: 't', userText: 'go' });
    applyEvent(model, { type: 'turn_finished', turnId: 't', stopReason: 'context_window_exceeded', actions: ['compact', 'newChat'] });
    const notice = model.items.at(-1);
    assert.equal(notice?.kind, 'notice');
    assert.ok(notice?.kind === 'notice');
    assert.deepEqual(notice.actions, ['compact', 'newChat']);
    applyEvent(model, { type: 'turn_started', turnId: 'u', userText: 'again' });
    applyEvent(model, { type: 'turn_finished', turnId: 'u', stopReason: 'context_window_exceeded' });
    const bare = model.items.at(-1);
    assert.ok(bare?.kind === 'notice');
    assert.deepEqual(bare.actions, [], 'no actions are invented in the webview');
  });

  const compaction = (id: string, trigger: 'auto' | 'manual' | 'tool' | 'reactive' | 'drop', focus?: string): AgentEvent => ({
    type: 'compaction',
    compactionId: id,
    trigger,
    ...(focus ? { focus } : {}),
    tokensBefore: 120_000,
    tokensAfter: 9_000,
    messagesSummarized: 30,
    messagesKept: 0,
    summary: trigger === 'drop' ? undefined : `summary ${id}`,
    restoredFiles: [],
  });

  it('offers no Undo after an automatic or reactive compaction: the old view did not fit', () => {
    for (const trigger of ['auto', 'reactive'] as const) {
      const model = fold([compaction('c1', trigger)]);
      const divider = model.items.find((item) => item.kind === 'divider');
      assert.ok(divider?.kind === 'divider');
      assert.equal(divider.undoable, false, trigger);
    }
    const asked = fold([compaction('c1', 'tool')]).items.find((item) => item.kind === 'divider');
    assert.ok(asked?.kind === 'divider' && asked.undoable);
  });

  it('numbers the dividers for the archived transcript and offers Undo on the newest only', () => {
    const model = fold([compaction('c1', 'manual'), compaction('c2', 'manual', 'the parser')]);
    const dividers = model.items.filter((item) => item.kind === 'divider');
    assert.equal(dividers.length, 2);
    const [first, second] = dividers;
    assert.ok(first?.kind === 'divider' && second?.kind === 'divider');
    assert.deepEqual([first.compactionIndex, second.compactionIndex], [0, 1]);
    assert.deepEqual([first.compactionId, second.compactionId], ['c1', 'c2']);
    assert.deepEqual([first.undoable, second.undoable], [false, true], 'only the newest compaction can be undone');
    assert.ok(first.rev > 0, 'the older divider re-renders without its Undo button');
    assert.match(second.text, /manual summary\): ~120k → ~9,000 tokens; .*; focus: the parser$/);
    assert.equal(second.summary, 'summary c2');
    applyEvent(model, compaction('c3', 'drop'));
    const drop = model.items.at(-1);
    assert.ok(drop?.kind === 'divider');
    assert.equal(drop.compactionIndex, 2, 'drops count: the transcript numbers every boundary');
    assert.equal(drop.undoable, false, 'a drop cannot be undone');
    assert.equal(second.undoable, false, 'nor the compaction before it');
  });

  it('marks the undone divider and leaves a note, live and replayed alike', () => {
    const model = fold([compaction('c1', 'manual'), { type: 'compaction_undone', compactionId: 'c1', tokensBefore: 9_000, tokensAfter: 118_000 }]);
    const divider = model.items[0];
    assert.ok(divider?.kind === 'divider');
    assert.equal(divider.undone, true);
    assert.equal(divider.undoable, false, 'undone once: no second Undo');
    const note = model.items.at(-1);
    assert.ok(note?.kind === 'note');
    assert.match(note.text, /Compaction undone: ~9,000 → ~118k tokens/);
  });

  it('accepts only a well-formed transcript link from the panel', () => {
    assert.deepEqual(parseWebviewMessage({ type: 'openTranscriptAt', requestId: 9, compactionIndex: 2 }), { type: 'openTranscriptAt', requestId: 9, compactionIndex: 2 });
    assert.equal(parseWebviewMessage({ type: 'openTranscriptAt', requestId: 9, compactionIndex: -1 }), undefined);
    assert.equal(parseWebviewMessage({ type: 'openTranscriptAt', requestId: 9, compactionIndex: 1.5 }), undefined);
    assert.equal(parseWebviewMessage({ type: 'openTranscriptAt', requestId: 9, compactionIndex: '1' }), undefined);
    assert.deepEqual(parseWebviewMessage({ type: 'runCommand', requestId: 3, command: 'undoLastCompaction' }), { type: 'runCommand', requestId: 3, command: 'undoLastCompaction' });
  });
});
