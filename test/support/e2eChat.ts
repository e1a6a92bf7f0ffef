// What the browser tests share about the chat in the real VS Code webview: finding its frame and
// reading the extension's own log for a failure's message.
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Frame, Page } from 'playwright-core';

/** The chat's own document: the inner iframe of the webview view that holds the composer. */
export async function findChatFrame(page: Page, tries = 600): Promise<Frame> {
  for (let attempt = 0; attempt < tries; attempt++) {
    for (const frame of page.frames()) {
      if (await frame.locator('#evergreen-root textarea.eg-input').count().catch(() => 0)) return frame;
    }
    await page.waitForTimeout(100);
  }
  throw new Error('the chat webview never rendered');
}

/** The last lines of the extension's output channel (requests, refused links, swallowed errors). */
export function evergreenLogTail(userDataDir: string | undefined, lines = 30): string {
  if (!userDataDir) return '';
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/Evergreen\.log$/.test(entry.name)) found.push(readFileSync(full, 'utf8').split('\n').slice(-lines).join('\n'));
    }
  };
  walk(userDataDir);
  return found.join('\n');
}
