// A multi-root workspace in the real workbench (code-server + Chromium), issue 33 item 3: a chat
// works in the folder the user picks, asked once and remembered. Folders api/ and web/ each hold
// an AGENTS.md with its own marker, so the system prompt of each request says which folder the
// session was started in. The first message asks (web chosen); a New Chat uses web again without
// asking; "Choose Chat Folder…" moves new chats to api; the gauge's insights button opens the
// open chat's charts. Build first (node esbuild.mjs), then:
//   npx mocha --no-config --require tsx/cjs --extension ts --timeout 300000 test/e2e/chatFolder.e2e.ts
import * as assert from 'node:assert/strict';
import { mkdirSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import type { Frame, Page } from 'playwright-core';
import type { CodeServer } from '../../scripts/vscode-harness.mjs';
import { reply, type FakeAnthropic, type MessagesRequestBody } from '../fake-anthropic/server';
import { openChatWorkbench, runPaletteCommand, sendFromComposer, showChat, withFailureReport, type ChatWorkbench } from '../support/e2eChat';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const RESULTS_DIR = path.join(REPO_ROOT, 'test-results');
const FAILURE_SCREENSHOT = path.join(RESULTS_DIR, 'e2e-chat-folder-failure.png');

function systemText(body: MessagesRequestBody): string {
  if (typeof body.system === 'string') return body.system;
  return (body.system ?? []).map((block) => block.text).join('\n');
}

describe('a chat’s folder in a multi-root workspace (code-server + Chromium)', function () {
  this.timeout(240_000);
  let bench: ChatWorkbench | undefined;
  let server: CodeServer | undefined;
  let page: Page;
  let fake: FakeAnthropic;
  let chat: Frame;

  before(async () => {
    mkdirSync(RESULTS_DIR, { recursive: true });
    rmSync(FAILURE_SCREENSHOT, { force: true });
    bench = await openChatWorkbench({
      prefix: 'e2e-chat-folder',
      files: {
        'api/AGENTS.md': 'Folder marker: API-FOLDER-7Q.\n',
        'web/AGENTS.md': 'Folder marker: WEB-FOLDER-3K.\n',
        'multi.code-workspace': JSON.stringify({ folders: [{ path: 'api' }, { path: 'web' }] }),
      },
      workspaceFile: 'multi.code-workspace',
      onFake: (started) => started.setResponder(() => reply.text('Done.')),
    });
    ({ server, page, fake } = bench);
    chat = await showChat(page);
  });

  after(async () => {
    await bench?.close();
  });

  const step = (body: () => Promise<void>): Promise<void> => withFailureReport({ page, server }, FAILURE_SCREENSHOT, body);
  const quickPick = () => page.locator('.quick-input-widget');

  /** Sends `text` and waits for the request it makes; the folder the request's session works in, by its marker. */
  async function sendAndReadFolder(text: string, choose?: string): Promise<string> {
    const before = fake.messageRequests().length;
    await sendFromComposer(chat, text);
    if (choose) {
      await quickPick().locator('.monaco-list-row', { hasText: choose }).first().click({ timeout: 30_000 });
    }
    for (let waited = 0; waited < 60_000 && fake.messageRequests().length === before; waited += 200) await page.waitForTimeout(200);
    const request = fake.messageRequests()[before];
    assert.ok(request, `no request after "${text}"`);
    const system = systemText(request.body as MessagesRequestBody);
    const markers = ['API-FOLDER-7Q', 'WEB-FOLDER-3K'].filter((marker) => system.includes(marker));
    assert.equal(markers.length, 1, `exactly one folder's instructions: ${markers.join(', ') || 'none'}`);
    await chat.locator('#evergreen-root[data-status="idle"]').waitFor({ timeout: 60_000 });
    return markers[0]!;
  }

  it('asks for the first chat’s folder, listing every folder, and works in the one picked', () =>
    step(async () => {
      const before = fake.messageRequests().length;
      await sendFromComposer(chat, 'Which folder is this?');
      await quickPick().locator('.quick-input-title', { hasText: 'Which folder should this chat work in?' }).waitFor({ timeout: 30_000 });
      const rows = await quickPick().locator('.monaco-list-row').evaluateAll((found) => found.map((row) => row.querySelector('.label-name')?.textContent ?? ''));
      assert.deepEqual(rows.map((row) => row.trim()), ['api', 'web'], 'the workspace’s folders, in its order');
      assert.equal(fake.messageRequests().length, before, 'no request before a folder is chosen');
      await quickPick().locator('.monaco-list-row', { hasText: 'web' }).first().click();
      for (let waited = 0; waited < 60_000 && fake.messageRequests().length === before; waited += 200) await page.waitForTimeout(200);
      assert.match(systemText(fake.messageRequests()[before]!.body as MessagesRequestBody), /WEB-FOLDER-3K/);
      assert.doesNotMatch(systemText(fake.messageRequests()[before]!.body as MessagesRequestBody), /API-FOLDER-7Q/);
      await chat.locator('#evergreen-root[data-status="idle"]').waitFor({ timeout: 60_000 });
    }));

  it('remembers it: a New Chat works in the same folder without asking', () =>
    step(async () => {
      await runPaletteCommand(page, 'Evergreen: New Chat');
      await chat.getByText('Which folder is this?').waitFor({ state: 'detached', timeout: 30_000 });
      assert.equal(await sendAndReadFolder('And now?'), 'WEB-FOLDER-3K');
    }));

  it('"Choose Chat Folder…" moves new chats to another folder', () =>
    step(async () => {
      await runPaletteCommand(page, 'Evergreen: Choose Chat Folder…');
      await quickPick().locator('.quick-input-title', { hasText: 'Which folder should new chats work in?' }).waitFor({ timeout: 30_000 });
      // The folder chosen last comes first, marked.
      assert.match((await quickPick().locator('.monaco-list-row').first().textContent()) ?? '', /^web.*last used/);
      await quickPick().locator('.monaco-list-row', { hasText: 'api' }).first().click();
      // The open chat stays where it is; the notification offers a New Chat there.
      await page.locator('.notifications-toasts .monaco-button', { hasText: 'New Chat' }).first().click({ timeout: 30_000 });
      // The new chat has replaced the old one before anything is typed into it.
      await chat.getByText('And now?').waitFor({ state: 'detached', timeout: 30_000 });
      assert.equal(await sendAndReadFolder('Which one now?'), 'API-FOLDER-7Q');
    }));

  // Issue 33 item 2: the insights are one click from the gauge, for the chat that is open.
  it('opens the open chat’s session insights from the button beside the gauge', () =>
    step(async () => {
      await chat.getByRole('button', { name: 'Show session insights' }).click();
      await page.locator('.tabs-container .tab', { hasText: 'Evergreen Insights' }).waitFor({ timeout: 30_000 });
      let subtitle = '';
      for (let waited = 0; waited < 30_000 && !subtitle; waited += 250) {
        for (const frame of page.frames()) {
          const found = await frame.locator('#insights-root .eg-sub').textContent({ timeout: 100 }).catch(() => null);
          if (found) subtitle = found;
        }
        if (!subtitle) await page.waitForTimeout(250);
      }
      // The chat that is open (the third, one request), not another saved session.
      assert.match(subtitle, /^1 request · \$/);
    }));
});
