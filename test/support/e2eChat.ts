// What the browser tests share about the chat in the real VS Code webview: finding its frame and
// reading the extension's own log for a failure's message.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Browser, Frame, FrameLocator, Locator, Page } from 'playwright-core';
import { launchChromium, makeTempDir, startCodeServer, workbenchUrl, type CodeServer } from '../../scripts/vscode-harness.mjs';
import { startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic/server';

const REPO_ROOT = path.resolve(__dirname, '..', '..');

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

const EXTENSION_ID = 'evergreen.evergreen-agent';

/** Clicks Evergreen's activity-bar icon (unless its view is showing already). */
export async function showEvergreenView(page: Page): Promise<void> {
  const icon = page.locator('.activitybar .action-item a[aria-label="Evergreen"]');
  await icon.waitFor({ timeout: 90_000 });
  if (!(await page.locator('.activitybar .action-item.checked a[aria-label="Evergreen"]').count())) await icon.click();
}

/** Shows the Evergreen view and returns its chat's document, the pointer moved off the activity bar (its hover label would cover the chat). */
export async function showChat(page: Page): Promise<Frame> {
  // Right after a reload the workbench may still restore its layout and close the sidebar a click
  // opened (seen on a loaded machine): look again, and click again if the view is not showing.
  for (let round = 0; ; round++) {
    await showEvergreenView(page);
    await page.mouse.move(900, 700);
    try {
      return await findChatFrame(page, 200);
    } catch (error) {
      if (round === 2) throw error;
    }
  }
}

/** Shows the Evergreen view and waits for its chat: the webview's document and its message box. */
export async function openChatPanel(page: Page): Promise<{ webview: FrameLocator; input: Locator }> {
  await showEvergreenView(page);
  const webview = page.frameLocator(`iframe.webview[src*="extensionId=${EXTENSION_ID}"]`).frameLocator('iframe#active-frame');
  const input = webview.locator('textarea.eg-input');
  await input.waitFor({ timeout: 60_000 });
  return { webview, input };
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

/**
 * Runs a command from the palette by its full title. Keys typed before the palette's box has focus
 * are lost (a clean-clone run typed "eate New Terminal"), so the title is filled into the box once
 * it shows, and Enter waits for the title's row to be the chosen one.
 */
export async function runPaletteCommand(page: Page, title: string): Promise<void> {
  await page.keyboard.press('F1');
  const box = page.locator('.quick-input-widget .quick-input-box input');
  await box.waitFor({ timeout: 15_000 });
  await box.fill(`>${title}`);
  // The row whose label is the title itself (an ellipsis may follow): another command may rank first ("New Background Chat…" for "New Chat").
  const exact = new RegExp(`^${title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(…|\\.\\.\\.)?$`);
  const row = page.locator('.quick-input-widget .monaco-list-row').filter({ has: page.locator('.label-name', { hasText: exact }) }).first();
  await row.waitFor({ timeout: 15_000 });
  await row.click();
}

/**
 * Waits until the command palette lists `title` (its full "Category: Title") or, `offered` false,
 * does not: a context key set a moment ago may still be on its way. Each look opens the palette
 * afresh and closes it again.
 */
export async function expectInPalette(page: Page, title: string, offered: boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await page.keyboard.press('F1');
    const box = page.locator('.quick-input-widget .quick-input-box input');
    await box.waitFor({ timeout: 15_000 });
    await box.fill(`>${title}`);
    // Without the command the palette shows "similar commands" or "No matching commands": read
    // the rows once they stop changing, and look for one that is the command itself.
    const rows = page.locator('.quick-input-widget .monaco-list-row');
    await rows.first().waitFor({ timeout: 15_000 });
    let seen = '';
    for (let settled = 0; settled < 3; ) {
      await page.waitForTimeout(150);
      const now = (await rows.allTextContents()).join('\n');
      settled = now === seen ? settled + 1 : 0;
      seen = now;
    }
    const listed = seen.split('\n').some((text) => text.trim().startsWith(title));
    await page.keyboard.press('Escape');
    await box.waitFor({ state: 'hidden', timeout: 15_000 });
    if (listed === offered) return;
    if (Date.now() > deadline) throw new Error(`the command palette ${listed ? 'still lists' : 'does not list'} "${title}"`);
    await page.waitForTimeout(250);
  }
}

/**
 * Sends `text` from the chat's composer as a user would: once the chat is idle (a turn's reply is
 * drawn before the turn ends, and the composer ignores Enter until it has), and Enter again if the
 * key went elsewhere (focus still moving after a command). The panel empties the box the moment it
 * takes a message, so a second Enter can never send twice; a message refused comes back to the box
 * and fails here.
 */
export async function sendFromComposer(chat: { locator(selector: string): Locator }, text: string): Promise<void> {
  await chat.locator('#evergreen-root[data-status="idle"]').waitFor({ timeout: 60_000 });
  const input = chat.locator('textarea.eg-input');
  await input.fill(text);
  for (let attempt = 1; ; attempt++) {
    await input.press('Enter');
    for (let waited = 0; waited < 5_000; waited += 100) {
      if ((await input.inputValue()) === '') return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    if (attempt === 3) throw new Error(`the chat did not take the message "${text.slice(0, 60)}": it is still in the box after three presses of Enter`);
  }
}

/**
 * Runs one step of a workbench test; a failure saves a screenshot and its message adds what the
 * page threw, the extension's log and code-server's, so a CI log alone says what went wrong.
 */
export async function withFailureReport(bench: { page: Page; server: CodeServer | undefined; pageErrors?: readonly string[] }, screenshot: string, body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (error) {
    await bench.page.screenshot({ path: screenshot }).catch(() => {});
    const thrown = bench.pageErrors?.length ? `\n${bench.pageErrors.join('\n')}` : '';
    throw new Error(`${(error as Error).message}\nscreenshot: ${path.relative(REPO_ROOT, screenshot)}${thrown}\n${evergreenLogTail(bench.server?.userDataDir, 30)}\n${bench.server?.logTail() ?? ''}`);
  }
}

export interface ChatWorkbench {
  tmp: string;
  workspace: string;
  server: CodeServer;
  browser: Browser;
  page: Page;
  fake: FakeAnthropic;
  /** What the page threw (uncaught errors in the workbench or a webview). */
  pageErrors: string[];
  /** Closes the browser, code-server and the fake, and removes the temp folder (kept with KEEP_E2E_TMP). */
  close(): Promise<void>;
}

/**
 * code-server with Evergreen from this repository, a workspace holding `files`, the fake API as the
 * model (plus `settings` in the user's settings.json), and Chromium on the workbench. The one setup
 * of every browser test.
 */
export async function openChatWorkbench(options: {
  prefix: string;
  files: Record<string, string>;
  /** One of `files`, a .code-workspace file, opened instead of the folder (a multi-root workspace). */
  workspaceFile?: string;
  settings?: Record<string, unknown>;
  /** The model in the user's settings (default claude-sonnet-4-6). */
  model?: string;
  /** Scripts the fake before VS Code starts (models, a responder). */
  onFake?: (fake: FakeAnthropic) => void;
  /**
   * Installs the extension (a link to this checkout in the profile's extensions) instead of loading
   * it as in development: in extension-development mode code-server's workbench registers no
   * built-in color theme and ignores workbench.colorTheme.
   */
  installed?: boolean;
  viewport?: { width: number; height: number };
  /** Browser permissions the user granted code-server (e.g. the clipboard). */
  permissions?: string[];
  onPage?: (page: Page) => void;
  /** A new user's first start: no API key anywhere (the fake's key is what they will type). */
  withoutApiKey?: boolean;
}): Promise<ChatWorkbench> {
  for (const file of ['dist/extension.js', 'dist/webview.js']) {
    if (!existsSync(path.join(REPO_ROOT, file))) throw new Error(`${file} is missing: build first with \`node esbuild.mjs\``);
  }
  const tmp = makeTempDir(options.prefix);
  const workspace = path.join(tmp, 'workspace');
  mkdirSync(workspace);
  for (const [name, content] of Object.entries(options.files)) {
    mkdirSync(path.dirname(path.join(workspace, name)), { recursive: true });
    writeFileSync(path.join(workspace, name), content);
  }
  const fake = await startFakeAnthropic();
  options.onFake?.(fake);
  const userDataDir = path.join(tmp, 'user-data');
  mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
  // The workbench's terminals start in a home folder of their own: the machine's shell startup
  // files (root's ~/.bashrc here waits 60 s on a stale pyenv lock) must not decide a test.
  const terminalHome = path.join(tmp, 'terminal-home');
  mkdirSync(terminalHome);
  writeFileSync(
    path.join(userDataDir, 'User', 'settings.json'),
    JSON.stringify({ 'evergreen.baseUrl': fake.url, 'evergreen.model': options.model ?? 'claude-sonnet-4-6', 'terminal.integrated.env.linux': { HOME: terminalHome }, ...options.settings }),
  );
  if (options.installed) {
    const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { publisher: string; name: string; version: string };
    mkdirSync(path.join(userDataDir, 'extensions'), { recursive: true });
    symlinkSync(REPO_ROOT, path.join(userDataDir, 'extensions', `${manifest.publisher}.${manifest.name}-${manifest.version}`), 'dir');
  }
  const server = await startCodeServer({ folder: workspace, userDataDir, env: { XDG_DATA_HOME: path.join(tmp, 'xdg-data'), ...(options.withoutApiKey ? {} : { ANTHROPIC_API_KEY: fake.apiKey }) } });
  const browser = await launchChromium();
  const page = await browser.newPage({ viewport: options.viewport ?? { width: 1400, height: 900 }, permissions: options.permissions ?? [] });
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  options.onPage?.(page);
  const opened = options.workspaceFile ? { workspace: path.join(workspace, options.workspaceFile) } : { folder: workspace };
  await page.goto(workbenchUrl(server.url, options.installed ? opened : { ...opened, extensionDevelopmentPath: REPO_ROOT }));
  return {
    tmp,
    workspace,
    server,
    browser,
    page,
    fake,
    pageErrors,
    async close() {
      await browser.close().catch(() => {});
      await server.stop();
      await fake.close();
      if (!process.env.KEEP_E2E_TMP) rmSync(tmp, { recursive: true, force: true });
    },
  };
}
