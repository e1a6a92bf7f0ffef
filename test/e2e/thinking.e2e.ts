// Extended thinking in the chat panel (issue 21).
// 1. The panel alone (dist/webview.js and media/chat.css in headless Chromium, the webview
//    benchmark's page): thinking streams into a collapsed "Thinking…" section; the user's open or
//    closed choice survives the reply's redraws; interleaved thinking keeps its order with the tool
//    cards; redacted thinking reads "(redacted)"; the model's text stays text, its controls and bidi
//    characters made visible.
// 2. The real chat (code-server + Chromium) against the fake Messages API: a scripted turn thinks,
//    calls a tool and thinks again; each thinking streams collapsed and opens to its text; a
//    resumed session shows the same, its redacted block as "(redacted)". Screenshot mid-stream:
//    test-results/e2e-thinking.png (docs/screenshot-thinking.png is a copy).
//    The user settings ask for `evergreen.thinking: auto`; the fake streams scripted thinking
//    whether or not a request asks for it, so this part does not depend on that setting.
// Build first (node esbuild.mjs), then:
//   npx mocha --no-config --require tsx/cjs --extension ts --timeout 300000 test/e2e/thinking.e2e.ts
import * as assert from 'node:assert/strict';
import { mkdirSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import type { Frame, Locator, Page } from 'playwright-core';
import type { CodeServer } from '../../scripts/vscode-harness.mjs';
import { standalonePanelForSuite, type StandalonePanel } from '../support/standalonePanel';
import { runPaletteCommand, sendFromComposer, showChat, withFailureReport, openChatWorkbench, type ChatWorkbench } from '../support/e2eChat';
import { reply, type FakeAnthropic, type MessagesRequestBody } from '../fake-anthropic/server';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const RESULTS_DIR = path.join(REPO_ROOT, 'test-results');
const SCREENSHOT = path.join(RESULTS_DIR, 'e2e-thinking.png');
const FAILURE_SCREENSHOT = path.join(RESULTS_DIR, 'e2e-thinking-failure.png');

const isOpen = (details: Locator) => details.evaluate((element) => (element as HTMLDetailsElement).open);

describe('thinking in the chat panel (Chromium)', function () {
  this.timeout(120_000);
  let page: Page;
  let errors: string[] = [];
  let post: StandalonePanel['post'];
  standalonePanelForSuite((panel) => ({ page, errors, post } = panel));

  const sections = () => page.locator('details.eg-thinking');

  it('streams thinking into a collapsed section that says "Thinking…", its text there to open', async () => {
    await post({ type: 'turn_started', turnId: 't1', userText: 'Why is the clock test flaky?' }, { type: 'thinking_delta', turnId: 't1', text: 'The test reads ' });
    const first = sections().first();
    assert.equal(await isOpen(first), false, 'collapsed by default');
    assert.equal(await first.locator('summary').textContent(), 'Thinking…');
    assert.equal(await first.locator('pre').isVisible(), false);
    await post({ type: 'thinking_delta', turnId: 't1', text: 'the real clock.' });
    assert.equal(await first.locator('pre').textContent(), 'The test reads the real clock.', 'it streamed while collapsed');
    const box = await first.boundingBox();
    assert.ok(box && box.height < 30, `one line while collapsed (${box?.height}px)`);
  });

  it("keeps the user's choice: opened while streaming, it stays open as the text arrives and the reply is drawn afresh", async () => {
    const first = sections().first();
    await first.locator('summary').click();
    assert.equal(await isOpen(first), true);
    await post({ type: 'thinking_delta', turnId: 't1', text: ' A fake clock fixes it.' }, { type: 'text_delta', turnId: 't1', text: 'It reads the real clock.' });
    assert.equal(await isOpen(sections().first()), true);
    assert.equal(await sections().first().locator('summary').textContent(), 'Thinking · ~14 tokens');
    assert.equal(await sections().first().locator('pre').textContent(), 'The test reads the real clock. A fake clock fixes it.');
    // The finished reply is rebuilt (markdown rendered whole): the section is a new element, still open.
    await post({ type: 'turn_finished', turnId: 't1', stopReason: 'end_turn' });
    assert.equal(await page.locator('.eg-assistant.eg-streaming').count(), 0);
    assert.equal(await isOpen(sections().first()), true);
    // Closed again, it stays closed as the chat goes on.
    await sections().first().locator('summary').click();
    await post({ type: 'turn_started', turnId: 't1b', userText: 'And?' }, { type: 'text_delta', turnId: 't1b', text: 'That is all.' }, { type: 'turn_finished', turnId: 't1b', stopReason: 'end_turn' });
    assert.equal(await isOpen(sections().first()), false);
  });

  it('keeps interleaved thinking in order with the tool cards, and shows redacted thinking as "(redacted)"', async () => {
    await post(
      { type: 'turn_started', turnId: 't2', userText: 'Fix it.' },
      { type: 'thinking_redacted', turnId: 't2' },
      { type: 'thinking_delta', turnId: 't2', text: 'Read the test first.' },
      { type: 'tool_call_started', turnId: 't2', toolUseId: 'tu1', name: 'read_file', input: { path: 'clock.test.ts' }, headline: 'clock.test.ts' },
      { type: 'tool_call_finished', turnId: 't2', toolUseId: 'tu1', name: 'read_file', isError: false, content: '1\tit("ticks")', durationMs: 3 },
      { type: 'thinking_delta', turnId: 't2', text: 'Now inject the clock.' },
      { type: 'text_delta', turnId: 't2', text: 'Fixed.' },
      { type: 'turn_finished', turnId: 't2', stopReason: 'end_turn' },
    );
    const order = await page.locator('.eg-transcript > *').evaluateAll((items) =>
      items.slice(-4).map((item) =>
        item.classList.contains('eg-user') ? 'user' : item.classList.contains('eg-tool') ? 'tool' : `${item.querySelector(':scope > .eg-thinking > summary')?.textContent ?? ''}|${item.querySelector(':scope > .eg-markdown')?.textContent?.trim() ?? ''}`,
      ),
    );
    assert.deepEqual(order, ['user', 'Thinking · ~5 tokens · (redacted)|', 'tool', 'Thinking · ~6 tokens|Fixed.']);
    const redacted = sections().nth(1);
    assert.equal(await isOpen(redacted), false);
    await redacted.locator('summary').click();
    assert.equal(await redacted.locator('.eg-thinking-redacted').innerText(), '(redacted)');
    assert.equal(await redacted.locator('pre').textContent(), 'Read the test first.');
  });

  it("shows the model's thinking as text: no markup, controls and bidi characters visible", async () => {
    const hostile = '<img src=x onerror="window.__owned=1"><b>bold</b> \u202Eevil\u202C \u001b[31mred\u001b[0m';
    await post({ type: 'turn_started', turnId: 't3', userText: 'Again.' }, { type: 'thinking_delta', turnId: 't3', text: hostile }, { type: 'turn_finished', turnId: 't3', stopReason: 'end_turn' });
    const last = sections().last();
    await last.locator('summary').click();
    assert.equal(await last.locator('pre').textContent(), '<img src=x onerror="window.__owned=1"><b>bold</b> \\u202eevil\\u202c \\x1b[31mred\\x1b[0m');
    assert.equal(await last.locator('img, b').count(), 0);
    assert.equal(await page.evaluate(() => (window as unknown as { __owned?: number }).__owned), undefined);
    assert.deepEqual(errors, []);
  });
});

const THOUGHT_1 = [
  'The user says the clock test fails on CI but passes locally.',
  'Timing-dependent tests usually read the real clock: CI machines are slower and the assertion window is tight.',
  'I should read test/clock.test.ts before guessing.',
].join('\n\n');
const THOUGHT_2 = [
  'The test calls Date.now() twice around a setTimeout of 100 ms and expects at most 105 ms between them.',
  'On a loaded CI runner the timer can fire late by tens of milliseconds, so the upper bound fails.',
  'The fix is a fake clock (the test framework has one), so the test no longer waits on real time.',
  'I will explain that and suggest the change.',
].join('\n\n');
const ANSWER = 'The test waits on the **real clock**: `setTimeout(100)` can fire late on a busy CI runner, so the 105 ms bound fails. Use a fake clock so the test no longer depends on real time.';
const CLOCK_TEST = "import { test } from 'node:test';\n\ntest('ticks', async () => {\n  const start = Date.now();\n  await new Promise((resolve) => setTimeout(resolve, 100));\n  assert.ok(Date.now() - start <= 105);\n});\n";

describe('thinking in the real chat (code-server + Chromium)', function () {
  this.timeout(240_000);
  let bench: ChatWorkbench | undefined;
  let server: CodeServer | undefined;
  let page: Page;
  let fake: FakeAnthropic;
  let chat: Frame;
  const pageErrors: string[] = [];

  before(async function () {
    mkdirSync(RESULTS_DIR, { recursive: true });
    for (const stale of [SCREENSHOT, FAILURE_SCREENSHOT]) rmSync(stale, { force: true });
    bench = await openChatWorkbench({
      prefix: 'e2e-thinking',
      files: { 'test/clock.test.ts': CLOCK_TEST },
      settings: { 'evergreen.thinking': 'auto' },
      viewport: { width: 1400, height: 1000 },
      onPage: (opened) => opened.on('pageerror', (error) => pageErrors.push(error.message)),
    });
    ({ server, page, fake } = bench);
    chat = await showChat(page);
  });

  after(async () => {
    await bench?.close();
  });

  const step = (body: () => Promise<void>): Promise<void> => withFailureReport({ page, server, pageErrors }, FAILURE_SCREENSHOT, body);

  it('streams each thinking block collapsed, opens to its text, and keeps it in order with the tool card', async () => {
    await step(async () => {
      fake.enqueue(
        reply.message(
          [
            { type: 'thinking', thinking: THOUGHT_1 },
            { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFITthinkingE2E' },
            { type: 'tool_use', name: 'read_file', input: { path: 'test/clock.test.ts' }, id: 'toolu_clock' },
          ],
          { stream: { eventDelayMs: 60 } },
        ),
        reply.message([{ type: 'thinking', thinking: THOUGHT_2 }, { type: 'text', text: ANSWER }], { stream: { eventDelayMs: 80 } }),
      );
      await sendFromComposer(chat, 'Why does the clock test fail on CI?');

      const first = chat.locator('details.eg-thinking').first();
      await first.locator('summary', { hasText: 'Thinking…' }).waitFor({ timeout: 60_000 });
      assert.equal(await isOpen(first), false, 'collapsed while it streams');
      await first.locator('summary').click();
      const early = (await first.locator('pre').textContent()) ?? '';
      await chat.locator('.eg-tool', { hasText: 'read_file' }).waitFor({ timeout: 60_000 });
      assert.equal(await first.locator('pre').textContent(), THOUGHT_1, 'the whole thought, streamed in place');
      assert.ok(early.length < THOUGHT_1.length, `it was opened mid-stream (${early.length} of ${THOUGHT_1.length} characters)`);
      assert.equal(await isOpen(first), true, "the user's choice survived the reply's end");
      assert.match((await first.locator('summary').textContent()) ?? '', /^Thinking · ~\d+ tokens/);

      // The second thought streams below the tool card, collapsed: the screenshot shows both.
      const second = chat.locator('details.eg-thinking').nth(1);
      await second.locator('summary', { hasText: 'Thinking…' }).waitFor({ timeout: 60_000 });
      assert.equal(await isOpen(second), false);
      const order = await chat.locator('.eg-transcript > *').evaluateAll((items) => items.map((item) => (item.querySelector(':scope > .eg-thinking') ? 'thinking' : item.classList.contains('eg-tool') ? 'tool' : item.classList.contains('eg-user') ? 'user' : 'other')));
      // Notices (a sandbox that cannot run here, say) may come first: the conversation's own order is what counts.
      assert.deepEqual(order.filter((kind) => kind !== 'other'), ['user', 'thinking', 'tool', 'thinking']);
      await page.mouse.move(900, 700);
      // The conversation only, not the empty panel below it.
      const panel = await chat.locator('main.eg-transcript').boundingBox();
      const end = await chat.locator('.eg-transcript > *').last().boundingBox();
      assert.ok(panel && end);
      await page.screenshot({ path: SCREENSHOT, clip: { x: panel.x, y: panel.y, width: panel.width, height: Math.min(panel.height, end.y + end.height - panel.y + 12) } });

      await chat.locator('.eg-assistant', { hasText: 'Use a fake clock' }).waitFor({ timeout: 60_000 });
      assert.equal(await isOpen(second), false, 'never opened by itself');
      assert.match((await second.locator('summary').textContent()) ?? '', /^Thinking · ~\d+ tokens$/);
      await second.locator('summary').click();
      assert.equal(await second.locator('pre').textContent(), THOUGHT_2);
      // The signed thinking went back with the tool result, unchanged (the fake checks the signature).
      const sent = JSON.stringify((fake.messageRequests().at(-1)!.body as MessagesRequestBody).messages);
      assert.ok(sent.includes(JSON.stringify(THOUGHT_1)), 'the first thought went back');
    });
  });

  it('a resumed session shows the same thinking, its redacted block as "(redacted)"', async () => {
    await step(async () => {
      // The turn is over (its reply is drawn before it ends): the session list then shows it.
      await chat.locator('#evergreen-root[data-status="idle"]').waitFor({ timeout: 60_000 });
      await runPaletteCommand(page, 'Evergreen: Resume Session');
      const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: 'clock test' }).first();
      await row.waitFor({ timeout: 15_000 });
      await row.click();
      // The state message rebuilds the chat from the transcript (the DisplayBuilder).
      const first = chat.locator('details.eg-thinking').first();
      await first.locator('summary', { hasText: '(redacted)' }).waitFor({ timeout: 30_000 });
      assert.match((await first.locator('summary').textContent()) ?? '', /^Thinking · ~\d+ tokens · \(redacted\)$/);
      // The resumed chat may still be drawn again just after it shows (a click then lands on a
      // section that is replaced): open it until it stays open.
      for (let attempt = 1; !(await first.locator('.eg-thinking-redacted').isVisible()); attempt++) {
        assert.ok(attempt <= 5, 'the first thinking section never stayed open');
        if (!(await isOpen(first))) await first.locator('summary').click();
        await page.waitForTimeout(300);
      }
      assert.equal(await first.locator('pre').textContent(), THOUGHT_1);
      assert.equal(await first.locator('.eg-thinking-redacted').innerText(), '(redacted)');
      assert.equal(await chat.locator('details.eg-thinking').count(), 2);
      assert.equal(await chat.locator('.eg-thinking-redacted:visible').count(), 1);
      assert.deepEqual(pageErrors, []);
    });
  });
});
