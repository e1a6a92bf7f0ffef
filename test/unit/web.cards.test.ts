/**
 * A fetched page's card (issue 30): the panel's model keeps the page's URL, status and size, the
 * saved copy tier 0 wrote and an "always" answer, and words the page's facts. (A resumed chat's
 * card: test/system/web.cards.test.ts.)
 */
import { verbatim } from '../../src/core/texts/userText';
import { worded } from '../support/said';
import assert from 'node:assert/strict';
import type { AgentEvent } from '../../src/core/agent/events';
import { applyEvent, emptyChat } from '../../src/webview/chatModel';
import { pageFacts, pageSize } from '../../src/webview/webCardView';

const web = { url: 'https://docs.example.com/guide', status: 200, contentType: 'text/html; charset=utf-8', bytes: 49_357, truncated: false, redirects: ['https://docs.example.com/old'] };

describe('a fetched page\'s card', () => {
  it('the panel keeps the page, the saved copy of its result and an "always" answer on the call\'s card', () => {
    const model = emptyChat();
    const events: AgentEvent[] = [
      { type: 'turn_started', turnId: 't', userText: 'read it' },
      { type: 'tool_call_started', turnId: 't', toolUseId: 'tu1', name: 'web_fetch', input: { url: 'https://docs.example.com/old' } },
      { type: 'approval_needed', turnId: 't', toolUseId: 'tu1', request: { kind: 'web', url: 'https://docs.example.com/old', host: 'docs.example.com' } },
      { type: 'approval_resolved', turnId: 't', toolUseId: 'tu1', approved: true, always: true },
      // Tier 0's note comes before the result, naming the call it saved.
      { type: 'tier', tier: 'persist', items: 1, tokensBefore: 12_000, tokensAfter: 900, detail: verbatim('web_fetch output tu1 saved'), savedOutput: { toolName: 'web_fetch', file: '/s/tool-results/tu1.txt', toolUseId: 'tu1' } },
      { type: 'tool_call_finished', turnId: 't', toolUseId: 'tu1', name: 'web_fetch', isError: false, content: 'URL: …', durationMs: 40, web },
    ];
    for (const event of worded(events)) applyEvent(model, event);
    const card = model.items.find((item) => item.kind === 'tool');
    assert.ok(card?.kind === 'tool');
    assert.deepEqual(card.web, web);
    assert.equal(card.savedOutput, '/s/tool-results/tu1.txt');
    assert.deepEqual(card.approval, { request: { kind: 'web', url: 'https://docs.example.com/old', host: 'docs.example.com' }, decided: true, always: true });
    const note = model.items.find((item) => item.kind === 'note');
    assert.ok(note?.kind === 'note' && note.savedOutput?.file === '/s/tool-results/tu1.txt', 'the note links it too');
  });

  it('words the facts: status, media type, size (and a cut or a cached copy)', () => {
    assert.deepEqual(pageFacts(web), ['HTTP 200', 'text/html', '48.2 KB']);
    assert.deepEqual(pageFacts({ url: 'u', status: 404, bytes: 10 * 1024 * 1024, truncated: true, fromCache: true }), ['HTTP 404', '10.0 MB read, the rest cut', "from this session's copy"]);
    assert.equal(pageSize(1), '1 byte');
    assert.equal(pageSize(1023), '1023 bytes');
  });

});
