// End-to-end: the built extension loaded into a real VS Code 1.100.3 (code-server) and driven
// by headless Chromium. Build first (node esbuild.mjs), then:
//   npx mocha --no-config --require tsx/cjs 'test/e2e/*.e2e.ts'
// (--no-config: .mocharc.json's spec would add the unit suite to the run.)
//
// The extension is loaded the way F5 does it, through the workbench URL's
// extensionDevelopmentPath payload, so the current build is always what runs. A webview view
// is two nested iframes: iframe.webview (tagged with the extension id) > iframe#active-frame.
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import type Anthropic from '@anthropic-ai/sdk';
import type { Page } from 'playwright-core';
import { findExtensionHostLog, type CodeServer } from '../../scripts/vscode-harness.mjs';
import { WEBVIEW_STRINGS, WEBVIEW_STRINGS_ELEMENT_ID } from '../../src/protocol';
import { reply, type FakeAnthropic, type MessagesRequestBody } from '../fake-anthropic/server';
import { openChatWorkbench, sendFromComposer, type ChatWorkbench } from '../support/e2eChat';
import { findTranscriptFrame } from '../support/e2eTranscript';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const RESULTS_DIR = path.join(REPO_ROOT, 'test-results');
const SCREENSHOT = path.join(RESULTS_DIR, 'evergreen-panel.png');
const FAILURE_SCREENSHOT = path.join(RESULTS_DIR, 'evergreen-panel-failure.png');
const CHAT_SCREENSHOT = path.join(RESULTS_DIR, 'evergreen-chat.png');
const APPROVAL_SCREENSHOT = path.join(RESULTS_DIR, 'evergreen-approval.png');
const SUBAGENT_SCREENSHOT = path.join(RESULTS_DIR, 'e2e-subagent-card.png');
const EXTENSION_ID = 'evergreen.evergreen-agent';

/** The system prompt of a Messages request, whichever form it was sent in. */
function systemText(body: MessagesRequestBody): string {
  if (typeof body.system === 'string') return body.system;
  return (body.system ?? []).map((block) => block.text).join('\n');
}

/** The tool_result blocks of the request's last message (what the model is answering). */
function lastToolResults(body: MessagesRequestBody): Anthropic.ToolResultBlockParam[] {
  const last = body.messages.at(-1);
  if (!last || last.role !== 'user' || typeof last.content === 'string') return [];
  return last.content.filter((block): block is Anthropic.ToolResultBlockParam => block.type === 'tool_result');
}

describe('Evergreen panel in VS Code (code-server + Chromium)', function () {
  this.timeout(180_000);

  let bench: ChatWorkbench | undefined;
  let server: CodeServer | undefined;
  let page: Page;
  let fake: FakeAnthropic;
  let workspace: string;
  let pageErrors: string[] = [];

  before(async function () {
    // The chat talks to the fake Messages API: base URL in user settings, key from the environment.
    bench = await openChatWorkbench({ prefix: 'e2e', files: { 'README.md': '# Evergreen e2e workspace\n', 'subagent-notes.txt': 'The notes say CHILD-SAW-THIS.\n' } });
    ({ server, page, fake, workspace, pageErrors } = bench);
  });

  after(async function () {
    await bench?.close();
  });

  /** The extension host log's report of a failed activation, the usual cause of a blank panel. */
  function activationErrors(): string[] {
    const log = server && findExtensionHostLog(server.userDataDir);
    if (!log) return [];
    const lines = readFileSync(log, 'utf8').split('\n');
    const at = lines.findIndex((l) => l.includes(`Activating extension ${EXTENSION_ID} failed`));
    return at < 0 ? [] : lines.slice(at, at + 3);
  }

  it('opens from the activity bar and renders the chat webview', async function () {
    mkdirSync(RESULTS_DIR, { recursive: true });
    for (const stale of [SCREENSHOT, FAILURE_SCREENSHOT]) rmSync(stale, { force: true });
    try {
      const icon = page.locator('.activitybar .action-item a[aria-label="Evergreen"]');
      await icon.waitFor({ timeout: 90_000 }).catch(() => {
        throw new Error('no "Evergreen" activity-bar icon: the extension did not load (see the extension host log below)');
      });
      // Clicking the icon of the already-open container would close it.
      const isOpen = await page.locator('.activitybar .action-item.checked a[aria-label="Evergreen"]').count();
      if (!isOpen) await icon.click();

      const webview = page
        .frameLocator(`iframe.webview[src*="extensionId=${EXTENSION_ID}"]`)
        .frameLocator('iframe#active-frame');
      // The composer is built by dist/webview.js: seeing it proves the script ran under the CSP.
      await webview.locator('#evergreen-root textarea.eg-input').waitFor({ timeout: 60_000 }).catch(() => {
        throw new Error('the evergreen.chat webview never rendered its composer (not registered, or its script failed)');
      });
      // The panel's words came from the host (vscode.l10n.t over every key; English here), in the page
      // as a data block: a broken hand-over would go unseen otherwise, the panel falling back to the same English.
      const table = JSON.parse((await webview.locator(`script#${WEBVIEW_STRINGS_ELEMENT_ID}`).textContent()) ?? 'null') as unknown;
      assert.deepEqual(table, WEBVIEW_STRINGS, "the host's table of the panel's words, in English");
      assert.equal(await webview.locator('html').getAttribute('lang'), 'en', "the page's language is VS Code's");
      // The panel says which model and provider will answer (the provider is a setting that can change).
      await webview.locator('.eg-welcome .eg-model', { hasText: 'Model: claude-sonnet-4-6 via Anthropic' }).waitFor({ timeout: 15_000 });
      // Move the pointer off the activity bar so its hover tooltip is not in the screenshot.
      await page.mouse.move(900, 450);
      await page.waitForTimeout(500);
      await page.screenshot({ path: SCREENSHOT });
    } catch (err) {
      await page.screenshot({ path: FAILURE_SCREENSHOT }).catch(() => {});
      const details = [
        ...activationErrors(),
        `screenshot: ${FAILURE_SCREENSHOT}`,
        ...pageErrors.map((e) => `page error: ${e}`),
        server?.logTail() ?? '',
      ];
      throw new Error(`${(err as Error).message}\n${details.join('\n')}`);
    }
  });
  it('chats: streams a reply, asks before a write, applies it on approval', async function () {
    const webview = page.frameLocator(`iframe.webview[src*="extensionId=${EXTENSION_ID}"]`).frameLocator('iframe#active-frame');
    fake.enqueue(
      reply.toolUse('write_file', { path: 'notes.txt', content: 'remember the milk\n' }, { preamble: 'I will write the note.' }),
      reply.text('Created **notes.txt** with your note.'),
    );
    try {
      await sendFromComposer(webview, 'Write "remember the milk" to notes.txt');
      // The approval card shows the diff; nothing is written before the click.
      const approve = webview.locator('.eg-approval button', { hasText: 'Apply' });
      await approve.waitFor({ timeout: 30_000 });
      assert.match(await webview.locator('.eg-approval .eg-diff').innerText(), /\+remember the milk/);
      assert.equal(existsSync(path.join(workspace, 'notes.txt')), false);
      // The proposed file is also open in VS Code's diff editor while the approval is pending.
      const diffTab = page.locator('.tabs-container .tab', { hasText: 'notes.txt (proposed by Evergreen)' });
      await diffTab.waitFor({ timeout: 15_000 });
      await page.mouse.move(900, 450);
      await page.screenshot({ path: APPROVAL_SCREENSHOT });
      await approve.click();
      await diffTab.waitFor({ state: 'detached', timeout: 15_000 });
      // Model markdown is rendered (and sanitized) into real elements.
      await webview.locator('.eg-assistant strong', { hasText: 'notes.txt' }).waitFor({ timeout: 30_000 });
      assert.equal(readFileSync(path.join(workspace, 'notes.txt'), 'utf8'), 'remember the milk\n');
      // Screen readers hear the finished reply once (status region), not every streamed word.
      await webview.locator('[role="status"]', { hasText: 'Evergreen finished replying.' }).waitFor({ state: 'attached', timeout: 15_000 });
      assert.equal(await webview.locator('main.eg-transcript').getAttribute('aria-live'), 'off');
      // The label holds percent and tokens; the cache share and cost are the secondary text beside it.
      assert.match(await webview.locator('.eg-gauge-text').innerText(), /%[\s\S]*cache/);
      await page.mouse.move(900, 450);
      await page.screenshot({ path: CHAT_SCREENSHOT });
    } catch (err) {
      await page.screenshot({ path: FAILURE_SCREENSHOT }).catch(() => {});
      throw new Error(`${(err as Error).message}\nscreenshot: ${FAILURE_SCREENSHOT}\n${pageErrors.join('\n')}\n${server?.logTail() ?? ''}`);
    }
  });
  it('shows a subagent card with its report and opens the child transcript from it (issue 10)', async function () {
    const webview = page.frameLocator(`iframe.webview[src*="extensionId=${EXTENSION_ID}"]`).frameLocator('iframe#active-frame');
    rmSync(SUBAGENT_SCREENSHOT, { force: true });
    const before = fake.messageRequests().length;
    // Requests are told apart by who sends them (the child's system prompt) and by what they answer,
    // so the script holds whatever order the parent and child requests come in.
    fake.setResponder((body) => {
      const answered = lastToolResults(body).map((result) => result.tool_use_id);
      if (systemText(body).includes('You are a subagent')) {
        return answered.includes('toolu_child_read')
          ? reply.text('Report: the notes say CHILD-SAW-THIS.')
          : reply.toolUse('read_file', { path: 'subagent-notes.txt' }, { id: 'toolu_child_read' });
      }
      return answered.includes('toolu_task_notes')
        ? reply.text('The subagent found that the notes say **CHILD-SAW-THIS**.')
        : reply.toolUse('task', { description: 'Read the notes', prompt: 'Read subagent-notes.txt and report what it says.', agent_type: 'explore' }, { id: 'toolu_task_notes', preamble: 'Asking a subagent.' });
    });
    try {
      await sendFromComposer(webview, 'What do the notes say? Use a subagent.');
      // The parent's answer comes after the child reported: the whole turn has run.
      await webview.locator('.eg-assistant strong', { hasText: 'CHILD-SAW-THIS' }).waitFor({ timeout: 60_000 });
      const requests = fake.messageRequests().slice(before);
      assert.equal(requests.length, 4, JSON.stringify(requests.map((request) => request.reply)));
      const childRequests = requests.filter((request) => systemText(request.body as MessagesRequestBody).includes('You are a subagent'));
      assert.equal(childRequests.length, 2, 'the child asked twice: the read, then its report');
      // The child's second request carries what read_file returned from the workspace.
      assert.match(JSON.stringify(lastToolResults(childRequests[1]!.body as MessagesRequestBody)), /The notes say CHILD-SAW-THIS/);

      const card = webview.locator('.eg-subagent');
      assert.equal(await card.count(), 1, 'one subagent card');
      const classes = (await card.getAttribute('class')) ?? '';
      assert.ok(classes.split(' ').includes('eg-subagent-done'), `card classes: ${classes}`);
      assert.equal(await card.locator('.eg-subagent-description').innerText(), 'Read the notes');
      assert.equal(await card.locator('.eg-subagent-type').innerText(), 'explore');
      assert.equal(await card.locator('.eg-subagent-status').innerText(), WEBVIEW_STRINGS['subagent.done']);
      assert.match(await card.locator('.eg-subagent-report').innerText(), /Report: the notes say CHILD-SAW-THIS\./);
      // Screen readers hear what the card is and how it ended.
      assert.equal(await card.getAttribute('role'), 'group');
      assert.equal(await card.getAttribute('aria-label'), `Subagent (explore): Read the notes. ${WEBVIEW_STRINGS['subagent.done']}`);
      const childId = await card.getAttribute('data-child-id');
      assert.ok(childId, 'the card names no child');

      const open = card.getByRole('button', { name: 'Open the transcript of the subagent: Read the notes' });
      assert.equal(await open.innerText(), 'Open transcript');
      await open.click();
      // It opens rendered, in a tab named by the child's description: what the child did, not the parent.
      await page.locator('.tabs-container .tab.active', { hasText: 'Read the notes' }).waitFor({ timeout: 30_000 });
      const childText = /The notes say CHILD-SAW-THIS\./;
      let rendered = await findTranscriptFrame(page, childText);
      await rendered.locator('#transcript-root p', { hasText: /^Tool call read_file \(toolu_child_read\)/ }).first().waitFor({ timeout: 15_000 });
      assert.equal(await rendered.locator('#transcript-root strong', { hasText: 'Tool call read_file' }).count(), 1, 'the markdown was rendered');
      await page.screenshot({ path: path.join(RESULTS_DIR, 'e2e-subagent-transcript-rendered.png') });
      // A link in the page, through the host: the parent's transcript, rendered in a tab of its own.
      const sessionId = sessionOf(childId);
      await rendered.locator('#transcript-root a', { hasText: `session ${sessionId}` }).click();
      const parentPage = await findTranscriptFrame(page, 'Asking a subagent.');
      await parentPage.locator('#transcript-root strong', { hasText: 'Tool call task' }).first().waitFor({ timeout: 15_000 });
      // Back on the child's tab, its source from the page's own button: the child's transcript document,
      // evergreen-transcript:/<sessionId>/subagents/<childId>/<description>.md (its label's aria-label is the URI path).
      await page.locator('.tabs-container .tab', { hasText: 'Read the notes' }).first().click();
      rendered = await findTranscriptFrame(page, childText);
      await rendered.getByRole('button', { name: 'Open Source' }).click();
      const tab = page.locator('.tabs-container .tab.active', { hasText: 'Read the notes.md' });
      await tab.waitFor({ timeout: 30_000 });
      assert.equal(await tab.locator('.monaco-icon-label').getAttribute('aria-label'), `/${sessionId}/subagents/${childId}/Read the notes.md`);
      // (Monaco renders spaces as no-break spaces: \s matches both.)
      const lines = page.locator('.editor-instance .view-lines');
      await lines.filter({ hasText: /\*\*Tool\s+call\s+`read_file`\*\*\s+\(toolu_child_read\)/ }).waitFor({ timeout: 15_000 });
      await lines.filter({ hasText: /The\s+notes\s+say\s+CHILD-SAW-THIS\./ }).waitFor({ timeout: 15_000 });
      await page.mouse.move(900, 880);
      await page.waitForTimeout(300);
      await page.screenshot({ path: SUBAGENT_SCREENSHOT });
      // The window reloaded: the rendered tab comes back showing its transcript (its page kept which one).
      await page.reload();
      const renderedTab = page.locator('.tabs-container .tab').filter({ hasText: 'Read the notes' }).filter({ hasNotText: '.md' });
      await renderedTab.waitFor({ timeout: 90_000 });
      await renderedTab.click();
      await (await findTranscriptFrame(page, childText, 60_000)).locator('#transcript-root h1', { hasText: 'Read the notes' }).waitFor({ timeout: 15_000 });
    } catch (err) {
      await page.screenshot({ path: FAILURE_SCREENSHOT }).catch(() => {});
      throw new Error(`${(err as Error).message}\nscreenshot: ${FAILURE_SCREENSHOT}\n${pageErrors.join('\n')}\n${server?.logTail() ?? ''}`);
    } finally {
      fake.setResponder(undefined);
    }
  });

  /** The session that owns a subagent: the folder in the workspace storage whose subagents/ holds it. */
  function sessionOf(childId: string): string {
    const owners: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (!entry.isDirectory()) continue;
        const full = path.join(dir, entry.name);
        if (entry.name === childId && path.basename(dir) === 'subagents') owners.push(path.basename(path.dirname(dir)));
        else walk(full);
      }
    };
    if (server) walk(path.join(server.userDataDir, 'User', 'workspaceStorage'));
    assert.equal(owners.length, 1, `one session holds subagent ${childId}: ${owners.join(', ')}`);
    return owners[0]!;
  }
});
