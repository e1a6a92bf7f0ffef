// The subagent cards as the panel draws them: the real bundle (dist/webview.js) and media/chat.css
// in headless Chromium, in the page the webview benchmark uses (bench/webview/page.ts: the panel's
// root element and a stubbed acquireVsCodeApi that records what the panel posts to the host).
// Build first (node esbuild.mjs). Three children at once, a child's approval, live figures that
// leave focus alone, the report sanitized, the outcome in words, and "Open transcript".
import * as assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { lastPanelRequest, standalonePanelForSuite, type StandalonePanel } from '../support/standalonePanel';
import type { AgentEvent } from '../../src/protocol';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const RESULTS_DIR = path.join(REPO_ROOT, 'test-results');
const usage = { inputTokens: 1200, outputTokens: 300, cacheReadTokens: 0, cacheWriteTokens: 0 };

describe('subagent cards in the chat panel (Chromium)', function () {
  this.timeout(120_000);
  let page: Page;
  let errors: string[] = [];
  let post: StandalonePanel['post'];
  standalonePanelForSuite((panel) => ({ page, errors, post } = panel));

  const lastRequest = () => lastPanelRequest(page);
  const card = (childId: string) => page.locator(`.eg-subagent[data-child-id="${childId}"]`);

  function started(toolUseId: string, childId: string, description: string, agentType: 'explore' | 'general'): AgentEvent[] {
    return [
      { type: 'tool_call_started', turnId: 't1', toolUseId, name: 'task', input: { description, prompt: 'p', agent_type: agentType }, headline: `${agentType}: ${description}` },
      { type: 'subagent_started', turnId: 't1', toolUseId, childId, description, agentType, transcriptPath: `/s/p/subagents/${childId}/transcript.jsonl` },
    ];
  }

  it('draws three concurrent children as three cards that update independently, and keeps focus through live updates', async () => {
    await post({ type: 'turn_started', turnId: 't1', userText: 'Survey three folders at once.' }, ...started('tu1', 'c1', 'Survey src/', 'explore'), ...started('tu2', 'c2', 'Fix the config', 'general'), ...started('tu3', 'c3', 'Survey test/', 'explore'));
    assert.equal(await page.locator('.eg-subagent').count(), 3);
    assert.equal(await page.locator('.eg-tool:not(.eg-subagent)').count(), 0, 'the task call is the card, not a second item');
    assert.equal(await card('c1').getAttribute('role'), 'group');
    assert.equal(await card('c1').getAttribute('aria-label'), 'Subagent (explore): Survey src/. running');
    assert.equal(await card('c2').locator('.eg-subagent-type').textContent(), 'general');

    await post(
      { type: 'subagent_progress', turnId: 't1', toolUseId: 'tu1', childId: 'c1', toolCalls: 4, tokens: 12_345, elapsedMs: 4_200, lastTool: 'read_file' },
      { type: 'subagent_progress', turnId: 't1', toolUseId: 'tu3', childId: 'c3', toolCalls: 1, tokens: 900, elapsedMs: 300, lastTool: 'list_files' },
    );
    assert.equal(await card('c1').locator('.eg-subagent-figures').textContent(), '4 tool calls · 12,345 tokens in context · 4.2 s · last: read_file');
    assert.equal(await card('c3').locator('.eg-subagent-figures').textContent(), '1 tool call · 900 tokens in context · 0.3 s · last: list_files');
    assert.equal(await card('c2').locator('.eg-subagent-figures').textContent(), '0 tool calls');

    // A keyboard user on "Open transcript" stays there while the figures change under it.
    const open = card('c1').getByRole('button', { name: /Open the transcript of the subagent: Survey src\// });
    await open.focus();
    await post({ type: 'subagent_progress', turnId: 't1', toolUseId: 'tu1', childId: 'c1', toolCalls: 5, tokens: 13_000, elapsedMs: 5_000, lastTool: 'grep_search' });
    assert.equal(await card('c1').locator('.eg-subagent-figures').textContent(), '5 tool calls · 13,000 tokens in context · 5.0 s · last: grep_search');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Open transcript');
    assert.equal(await page.evaluate(() => document.activeElement?.closest('.eg-subagent')?.getAttribute('data-child-id')), 'c1');
    await page.keyboard.press('Enter');
    assert.deepEqual(await lastRequest(), { type: 'openSubagentTranscript', childId: 'c1' });
  });

  it('asks a child\'s approval inside its card and answers it by the child\'s own tool-use id', async () => {
    await post({ type: 'approval_needed', turnId: 't1', toolUseId: 'toolu_child_write', childId: 'c2', parentToolUseId: 'tu2', request: { kind: 'write', path: 'config.json', diff: '+{"debug": true}', isNew: false } });
    assert.equal(await card('c2').locator('.eg-subagent-status').textContent(), 'needs approval');
    assert.equal(await card('c2').locator('.eg-approval-title').textContent(), 'Change config.json?');
    assert.equal(await card('c1').locator('.eg-approval').count(), 0, 'the other cards are untouched');
    await card('c2').getByRole('button', { name: 'Apply the change to config.json' }).click();
    assert.deepEqual(await lastRequest(), { type: 'approvalDecision', toolUseId: 'toolu_child_write', approved: true });
    await post({ type: 'approval_resolved', turnId: 't1', toolUseId: 'toolu_child_write', childId: 'c2', parentToolUseId: 'tu2', approved: true });
    assert.equal(await card('c2').locator('.eg-subagent-status').textContent(), 'running');
    assert.equal(await card('c2').locator('.eg-approval .eg-muted').textContent(), 'Approved');
  });

  it('ends each card with its outcome in words and its report, sanitized like all model text', async () => {
    const hostile = 'Found it in **src/config.ts**. <img src=x onerror="document.title=\'pwned\'"> [bad](javascript:alert(1))';
    await post(
      { type: 'subagent_finished', turnId: 't1', toolUseId: 'tu1', childId: 'c1', status: 'done', report: hostile, usage, costUsd: 0.0123, toolCalls: 6, elapsedMs: 6_100 },
      { type: 'subagent_finished', turnId: 't1', toolUseId: 'tu2', childId: 'c2', status: 'error', report: 'The subagent failed: overloaded.', usage, costUsd: 0.002, toolCalls: 1, elapsedMs: 900 },
      { type: 'subagent_finished', turnId: 't1', toolUseId: 'tu3', childId: 'c3', status: 'limit', report: 'Partial survey.\n\n[Note: the subagent was stopped at its limit]', usage, costUsd: 0.004, toolCalls: 100, elapsedMs: 61_000 },
    );
    assert.deepEqual(await page.locator('.eg-subagent .eg-subagent-status').allTextContents(), ['done', 'failed', 'hit a limit']);
    assert.equal(await card('c1').locator('.eg-subagent-figures').textContent(), '6 tool calls · 6.1 s · $0.0123');
    assert.equal(await card('c3').locator('.eg-subagent-figures').textContent(), '100 tool calls · 1 min 1 s · $0.0040');
    assert.equal(await card('c1').locator('.eg-subagent-report strong').textContent(), 'src/config.ts');
    assert.equal(await card('c1').locator('.eg-subagent-report img').count(), 0, 'raw HTML in the report is not rendered');
    assert.equal(await card('c1').locator('.eg-subagent-report a[href^="javascript:"]').count(), 0);
    assert.notEqual(await page.title(), 'pwned');
    assert.equal(await card('c3').getAttribute('aria-label'), 'Subagent (explore): Survey test/. hit a limit');
    await post({ type: 'tool_call_finished', turnId: 't1', toolUseId: 'tu1', name: 'task', isError: false, content: 'Subagent transcript (everything it did): /s/p/subagents/c1/transcript.jsonl\n\nFound it.', durationMs: 6_200 }, { type: 'text_delta', turnId: 't1', text: 'All three are back.' }, { type: 'turn_finished', turnId: 't1', stopReason: 'end_turn' });
    assert.equal(await page.locator('.eg-subagent').count(), 3, 'the result does not add a second card');
    assert.equal(await card('c1').locator('.eg-tool-output').count(), 0, 'the report is shown once, not again as raw output');
    await card('c3').getByRole('button', { name: /Open the transcript of the subagent: Survey test\// }).click();
    assert.deepEqual(await lastRequest(), { type: 'openSubagentTranscript', childId: 'c3' });
    mkdirSync(RESULTS_DIR, { recursive: true });
    await page.screenshot({ path: path.join(RESULTS_DIR, 'subagent-cards.png'), fullPage: true });
    assert.deepEqual(errors, []);
  });
});
