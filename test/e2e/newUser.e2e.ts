// What a new user tripped over in the panel (issue 33, item 5), checked on the panel alone
// (dist/webview.js and media/chat.css in headless Chromium, the webview benchmark's page).
// Build first (node esbuild.mjs), then:
//   npx mocha --no-config --require tsx/cjs --extension ts --timeout 300000 test/e2e/newUser.e2e.ts
import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { AgentEvent, HostToWebview, ViewState } from '../../src/protocol';
import { contextGauge } from '../../src/core/context/gauge';
import { wordGauge } from '../../src/frontends/words/wordGauge';
import { standalonePanelForSuite, type StandalonePanel } from '../support/standalonePanel';

function viewState(history: AgentEvent[], overrides: Partial<ViewState> = {}): ViewState {
  return { sessionId: 's1', model: 'claude-sonnet-5-5', providerLabel: 'Anthropic', status: 'idle', hasApiKey: true, trusted: true, gauge: undefined, history, modes: { current: 'agent', options: [{ name: 'agent', description: 'Works on the task.' }] }, ...overrides };
}

/** Posts host messages as the host would and waits for the frame that draws them. */
async function postHost(page: Page, ...messages: HostToWebview[]): Promise<void> {
  await page.evaluate((list) => {
    for (const message of list) window.postMessage(message, '*');
  }, messages);
  await page.evaluate(() => new Promise<void>((resolve) => setTimeout(() => requestAnimationFrame(() => resolve()), 0)));
}

describe('what a new user tripped over, in the panel (Chromium)', function () {
  this.timeout(120_000);
  let page: Page;
  let errors: string[] = [];
  let post: StandalonePanel['post'];
  standalonePanelForSuite((panel) => ({ page, errors, post } = panel));

  afterEach(() => assert.deepEqual(errors, [], 'no uncaught errors in the panel'));

  it('a thinking notice is quiet, can be dismissed, and stays dismissed when the chat is rebuilt (a Restore)', async () => {
    const notice: AgentEvent = { type: 'thinking_notice', level: 'info', message: 'Thinking uses 4,096 tokens, not 8,000: the model writes at most 8,192 tokens a reply.' };
    await postHost(page, { type: 'state', state: viewState([notice]) });
    const shown = page.locator('.eg-notice', { hasText: 'Thinking uses' });
    await shown.waitFor();
    assert.equal(await shown.evaluate((element) => element.classList.contains('eg-error')), false, 'not drawn as an error');
    await shown.getByRole('button', { name: 'Dismiss this notice' }).click();
    await shown.waitFor({ state: 'detached' });
    assert.equal(await page.evaluate(() => document.activeElement?.classList.contains('eg-input')), true, 'focus goes back to the message box');
    // A Restore rebuilds the chat, and the session start says the notice again.
    await postHost(page, { type: 'state', state: viewState([notice, { type: 'turn_started', turnId: 't1', userText: 'hello' }]) });
    await page.locator('.eg-message', { hasText: 'hello' }).first().waitFor();
    assert.equal(await page.locator('.eg-notice').count(), 0);
    await post({ type: 'thinking_notice', level: 'info', message: notice.message });
    assert.equal(await page.locator('.eg-notice').count(), 0);
  });

  it('at 280 px the gauge shows its numbers, cache and cost whole beside Compact', async () => {
    await page.setViewportSize({ width: 280, height: 700 });
    const gauge = wordGauge(contextGauge({ window: 200_000, outputReserve: 16_000, usedTokens: 123_456, autoCompactThreshold: 171_000, cacheReadShare: 0.95, sessionCostUsd: 12.34 }));
    await postHost(page, { type: 'gauge', gauge });
    const texts = await page.evaluate(() =>
      ['.eg-gauge-label', '.eg-gauge-secondary'].map((selector) => {
        const element = document.querySelector<HTMLElement>(selector)!;
        return { text: element.textContent, cut: element.scrollWidth > element.clientWidth };
      }),
    );
    assert.deepEqual(texts, [
      { text: gauge.reading.label, cut: false },
      { text: gauge.reading.secondary, cut: false },
    ]);
    assert.ok(await page.locator('.eg-header button', { hasText: 'Compact' }).isVisible());
    await page.setViewportSize({ width: 420, height: 900 });
  });

  it('an approval waiting is one key away (Ctrl+Enter from the message box), and after Apply the focus is back in the box', async () => {
    await postHost(page, { type: 'state', state: viewState([]) });
    await post(
      { type: 'turn_started', turnId: 't2', userText: 'Change the config' },
      { type: 'tool_call_started', turnId: 't2', toolUseId: 'tu_write', name: 'write_file', input: { path: 'config.json' } },
      { type: 'approval_needed', turnId: 't2', toolUseId: 'tu_write', request: { kind: 'write', path: 'config.json', diff: '--- a/config.json\n+++ b/config.json\n@@ -1 +1 @@\n-{}\n+{"debug": true}\n', isNew: false } },
    );
    const apply = page.getByRole('button', { name: 'Apply the change to config.json' });
    await apply.waitFor();
    await page.locator('textarea.eg-input').focus();
    await page.keyboard.press('Control+Enter');
    assert.equal(await apply.evaluate((button) => button === document.activeElement), true, 'Ctrl+Enter reaches the approval');
    await page.keyboard.press('Enter');
    const decisions = await page.evaluate(() =>
      (window as unknown as { __bench: { posted: Array<{ type: string; toolUseId?: string; approved?: boolean }> } }).__bench.posted
        .filter((message) => message.type === 'approvalDecision')
        .map(({ toolUseId, approved }) => ({ toolUseId, approved })),
    );
    assert.deepEqual(decisions, [{ toolUseId: 'tu_write', approved: true }]);
    assert.equal(await page.evaluate(() => document.activeElement?.classList.contains('eg-input')), true, 'the focus is back in the message box');
  });

  it('a file reference in a reply is a link that asks the host to open the file at that line', async () => {
    await postHost(page, { type: 'state', state: viewState([]) });
    await post(
      { type: 'turn_started', turnId: 't3', userText: 'Where does it crash?' },
      { type: 'text_delta', turnId: 't3', text: 'It crashes in `src/app.ts:4`, called from lib/run.ts:12.' },
      { type: 'turn_finished', turnId: 't3', stopReason: 'end_turn' },
    );
    const link = page.locator('.eg-assistant a', { hasText: 'src/app.ts:4' });
    await link.click();
    await page.locator('.eg-assistant a', { hasText: 'lib/run.ts:12' }).click();
    const opened = await page.evaluate(() =>
      (window as unknown as { __bench: { posted: Array<{ type: string; href?: string }> } }).__bench.posted.filter((message) => message.type === 'openLink').map((message) => message.href),
    );
    assert.deepEqual(opened, ['src/app.ts:4', 'lib/run.ts:12']);
  });

  it("an approval's diff is coloured as VS Code's diff editor colours it, without the patch header", async () => {
    await postHost(page, { type: 'state', state: viewState([]) });
    const diff = 'Index: config.json\n===================================================================\n--- config.json\n+++ config.json\n@@ -1,3 +1,3 @@\n {\n-  "debug": false\n+  "debug": true\n }\n';
    await post(
      { type: 'turn_started', turnId: 't4', userText: 'Turn debugging on' },
      { type: 'tool_call_started', turnId: 't4', toolUseId: 'tu_diff', name: 'edit_file', input: { path: 'config.json' } },
      { type: 'approval_needed', turnId: 't4', toolUseId: 'tu_diff', request: { kind: 'write', path: 'config.json', diff, isNew: false } },
    );
    const block = page.locator('pre.eg-diff');
    await block.waitFor();
    const lines = await block.locator('.eg-diff-line').evaluateAll((spans) => spans.map((span) => ({ text: span.textContent, kind: span.className.replace('eg-diff-line ', ''), background: getComputedStyle(span).backgroundColor })));
    assert.deepEqual(lines.map(({ text, kind }) => [kind, text]), [
      ['eg-diff-hunk', '@@ -1,3 +1,3 @@'],
      ['eg-diff-same', ' {'],
      ['eg-diff-del', '-  "debug": false'],
      ['eg-diff-add', '+  "debug": true'],
      ['eg-diff-same', ' }'],
    ]);
    const background = (kind: string) => lines.find((line) => line.kind === kind)!.background;
    assert.equal(background('eg-diff-add'), 'rgba(155, 185, 85, 0.2)', "the inserted lines' background");
    assert.equal(background('eg-diff-del'), 'rgba(255, 0, 0, 0.2)', "the removed lines' background");
    assert.equal(background('eg-diff-same'), 'rgba(0, 0, 0, 0)');
  });
});
