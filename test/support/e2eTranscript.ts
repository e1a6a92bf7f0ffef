// The rendered archived transcript in the real workbench (issue 33): finding its page, and its
// source one click away on the tab's title bar.
import type { Frame, Page } from 'playwright-core';

/** The rendered transcript's own document (the webview's inner frame), once `text` shows in it. */
export async function findTranscriptFrame(page: Page, text: string | RegExp, timeoutMs = 30_000): Promise<Frame> {
  // Frames queried while a new webview tab sets its page up can lose it (code-server then closes the
  // tab: seen on this machine from one day to the next, never by a user's hand): the tab settles first.
  await page.waitForTimeout(2_000);
  for (let waited = 0; waited < timeoutMs; waited += 200) {
    for (const frame of page.frames()) {
      if (await frame.locator('#transcript-root', { hasText: text }).count().catch(() => 0)) return frame;
    }
    await page.waitForTimeout(200);
  }
  throw new Error(`no rendered transcript showing ${String(text)}`);
}

/** Clicks the rendered tab's "Open Transcript Source" on the editor's title bar (shown only on that tab). */
export async function openSourceFromTitleBar(page: Page): Promise<void> {
  await page.locator('.editor-actions a.action-label[aria-label^="Open Transcript Source"] >> visible=true').first().click({ timeout: 15_000 });
}
