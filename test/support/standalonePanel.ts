// The chat webview's bundle alone in Chromium (no VS Code): bench/webview/page.ts's page stands in
// for the host, and agent events are posted to it as the host would. For e2e tests of what the
// panel draws from events, without starting code-server.
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../../scripts/vscode-harness.mjs';
import { loadPanelPage, type BenchWindow } from '../../bench/webview/page';
import type { AgentEvent } from '../../src/protocol';

const REPO_ROOT = path.resolve(__dirname, '..', '..');

export interface StandalonePanel {
  browser: Browser;
  page: Page;
  /** Uncaught errors of the page. */
  errors: string[];
  /** Posts the events as the host would and waits for the frame that draws them. */
  post(...events: AgentEvent[]): Promise<void>;
}

/** Opens the built panel (dist/webview.js, media/chat.css) at 420x900 and waits for its `ready`. */
export async function openStandalonePanel(): Promise<StandalonePanel> {
  const bundle = path.join(REPO_ROOT, 'dist', 'webview.js');
  assert.ok(existsSync(bundle), 'dist/webview.js is missing: build first with `node esbuild.mjs`');
  const browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 420, height: 900 } });
  const { page, errors } = await loadPanelPage(context, { bundle: readFileSync(bundle, 'utf8'), chatCss: readFileSync(path.join(REPO_ROOT, 'media', 'chat.css'), 'utf8') });
  const post = async (...events: AgentEvent[]): Promise<void> => {
    await page.evaluate((list) => {
      for (const event of list) window.postMessage({ type: 'agentEvent', event }, '*');
    }, events);
    // One render per animation frame: wait for the frame after the messages.
    await page.evaluate(() => new Promise<void>((resolve) => setTimeout(() => requestAnimationFrame(() => resolve()), 0)));
  };
  return { browser, page, errors, post };
}

/**
 * The suite's panel: opened before its tests, closed after them. `onOpen` takes its parts (the
 * tests' variables); three suites of panel-only tests share this.
 */
export function standalonePanelForSuite(onOpen: (panel: StandalonePanel) => void): void {
  let panel: StandalonePanel | undefined;
  before(async () => {
    panel = await openStandalonePanel();
    onOpen(panel);
  });
  after(async () => {
    await panel?.browser.close().catch(() => {});
  });
}

/** The panel's last request to the host, without its id (a number every request carries for its reply). */
/** What the panel posted to the host so far (its requests carry a numeric requestId). */
export function panelPosted(page: Page): Promise<Array<Record<string, unknown>>> {
  return page.evaluate(() => (window as unknown as BenchWindow).__bench.posted as unknown as Array<Record<string, unknown>>);
}

export async function lastPanelRequest(page: Page): Promise<Record<string, unknown>> {
  const posted = await panelPosted(page);
  const { requestId, ...request } = posted.at(-1) ?? {};
  assert.equal(typeof requestId, 'number');
  return request;
}
