// A long chat restored into the panel (a `state` message, as when the view is opened again): the
// real bundle (dist/webview.js) and media/chat.css in headless Chromium, in the webview benchmark's
// page (bench/webview/page.ts). Build first (node esbuild.mjs). The first frame shows the bottom of
// the chat with the view full; the older items come in above without moving the view; every item
// is there, in order, the newest laid out and the older ones skipped until scrolled to (eg-far).
import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { LAST_ITEM_MARKER, benchGauge, restoredHistory } from '../../bench/webview/fixtures';
import type { ViewState } from '../../src/protocol';
import { applyEvent, emptyChat } from '../../src/webview/chatModel';
import { standalonePanelForSuite } from '../support/standalonePanel';

const ITEMS = 600;
/** main.ts's TAIL_ITEMS: the newest items are always laid out. */
const TAIL_ITEMS = 40;

describe('a long chat restored in the panel (Chromium)', function () {
  this.timeout(120_000);
  let page: Page;
  let errors: string[] = [];
  standalonePanelForSuite((panel) => ({ page, errors } = panel));

  it('paints the bottom of the chat full first, then has every item in order, the view still at the bottom', async () => {
    const history = restoredHistory(ITEMS);
    const state: ViewState = { sessionId: 's', model: 'claude-sonnet-4-6', providerLabel: 'Anthropic', status: 'idle', hasApiKey: true, trusted: true, gauge: benchGauge(), history, modes: { current: 'agent', options: [{ name: 'agent', description: 'Works on the task.' }] } };
    const first = await page.evaluate(
      (message) =>
        new Promise<{ count: number; lastText: string; scrollHeight: number; clientHeight: number; bottomGap: number }>((resolve) => {
          // After the panel's own listener (added first): the frame it asked for draws the state, then what it drew is read.
          window.addEventListener(
            'message',
            () =>
              requestAnimationFrame(() =>
                setTimeout(() => {
                  const list = document.querySelector('.eg-transcript')!;
                  resolve({ count: list.childElementCount, lastText: list.lastElementChild?.textContent ?? '', scrollHeight: list.scrollHeight, clientHeight: list.clientHeight, bottomGap: list.scrollHeight - list.scrollTop - list.clientHeight });
                }, 0),
              ),
            { once: true },
          );
          window.postMessage(message, '*');
        }),
      { type: 'state', state },
    );
    assert.ok(first.lastText.includes(LAST_ITEM_MARKER), 'the newest item is drawn first');
    assert.ok(first.scrollHeight >= first.clientHeight, `the view is full (${first.scrollHeight} of ${first.clientHeight} px)`);
    assert.ok(first.bottomGap <= 40, `at the bottom (${first.bottomGap} px below)`);
    assert.ok(first.count < ITEMS, 'the older items come after the first paint');

    await page.waitForFunction((items) => document.querySelector('.eg-transcript')!.childElementCount === items, ITEMS, { timeout: 60_000 });
    const done = await page.evaluate(() => {
      const list = document.querySelector('.eg-transcript')!;
      const children = [...list.children];
      return {
        bottomGap: list.scrollHeight - list.scrollTop - list.clientHeight,
        far: children.map((child) => child.classList.contains('eg-far')),
        users: children.filter((child) => child.classList.contains('eg-user')).map((child) => child.querySelector('.eg-user-text')?.textContent ?? child.textContent ?? ''),
      };
    });
    assert.ok(done.bottomGap <= 40, `still at the bottom once complete (${done.bottomGap} px below)`);
    assert.deepEqual(done.far, Array.from({ length: ITEMS }, (_, index) => index < ITEMS - TAIL_ITEMS), 'the newest are laid out, the older skipped until seen');
    const model = emptyChat();
    for (const event of history) applyEvent(model, event);
    const userTexts = model.items.flatMap((item) => (item.kind === 'user' ? [item.text] : []));
    assert.equal(done.users.length, userTexts.length);
    done.users.forEach((text, index) => assert.ok(text.includes(userTexts[index]!.split('\n')[0]!), `user message ${index} in its place`));
    assert.deepEqual(errors, []);
  });
});
