// The chat webview's bundle alone in Chromium (no VS Code): bench/webview/page.ts's page stands in
// for the host, and agent events are posted to it as the host would. For e2e tests of what the
// panel draws from events, without starting code-server.
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../../scripts/vscode-harness.mjs';
import { BENCH_JS, INDEX_HTML, ORIGIN, THEME_CSS, type BenchWindow } from '../../bench/webview/page';
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
  const files: Record<string, { body: string; contentType: string }> = {
    '/index.html': { body: INDEX_HTML, contentType: 'text/html' },
    '/bench.js': { body: BENCH_JS, contentType: 'text/javascript' },
    '/webview.js': { body: readFileSync(bundle, 'utf8'), contentType: 'text/javascript' },
    '/chat.css': { body: readFileSync(path.join(REPO_ROOT, 'media', 'chat.css'), 'utf8'), contentType: 'text/css' },
    '/theme.css': { body: THEME_CSS, contentType: 'text/css' },
  };
  await context.route(`${ORIGIN}/**`, (route) => {
    const file = files[new URL(route.request().url()).pathname];
    return file ? route.fulfill({ status: 200, body: file.body, contentType: file.contentType }) : route.fulfill({ status: 404, body: '' });
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${ORIGIN}/index.html`);
  await page.waitForFunction(() => (window as unknown as BenchWindow).__bench.posted.some((message) => message.type === 'ready'));
  const post = async (...events: AgentEvent[]): Promise<void> => {
    await page.evaluate((list) => {
      for (const event of list) window.postMessage({ type: 'agentEvent', event }, '*');
    }, events);
    // One render per animation frame: wait for the frame after the messages.
    await page.evaluate(() => new Promise<void>((resolve) => setTimeout(() => requestAnimationFrame(() => resolve()), 0)));
  };
  return { browser, page, errors, post };
}
