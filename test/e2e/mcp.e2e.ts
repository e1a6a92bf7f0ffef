// MCP servers in the real VS Code (code-server + Chromium), issue 16: the workspace's .vscode/mcp.json
// defines @modelcontextprotocol/server-everything (run with node from node_modules, offline).
// - Declined: the consent modal shows the command line; "Not Now" leaves every MCP tool out of the
//   request, with one notice saying why and how to allow it.
// - Allowed (a New Chat asks again): the model calls mcp__everything__echo; the approval card names
//   the server and tool and shows the arguments; approved, the server's answer reaches the model, the
//   tool card names the server, the gauge's breakdown has its "MCP tools" line, "MCP Servers" in
//   the chat's title bar lists the server with its state, tool count and definition tokens, and
//   Close Chat stops the chat's server.
// Screenshot: test-results/e2e-mcp-approval-card.png (docs/screenshot-mcp-approval.png is a copy).
// Build first (node esbuild.mjs), then:
//   npx mocha --no-config --require tsx/cjs --extension ts --timeout 300000 test/e2e/mcp.e2e.ts
import * as assert from 'node:assert/strict';
import { mkdirSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import type { Frame, Page } from 'playwright-core';
import type { CodeServer } from '../../scripts/vscode-harness.mjs';
import { runPaletteCommand, sendFromComposer, showChat, withFailureReport, openChatWorkbench, type ChatWorkbench } from '../support/e2eChat';
import { processesWhoseCommandLineIncludes } from '../support/processMarkers';
import { reply, type FakeAnthropic, type MessagesRequestBody } from '../fake-anthropic/server';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const RESULTS_DIR = path.join(REPO_ROOT, 'test-results');
const SCREENSHOT = path.join(RESULTS_DIR, 'e2e-mcp-approval-card.png');
const FAILURE_SCREENSHOT = path.join(RESULTS_DIR, 'e2e-mcp-failure.png');
const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const MCP_JSON = JSON.stringify({ servers: { everything: { type: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] } } }, null, 2);

const toolNames = (body: unknown): string[] => ((body as { tools?: Array<{ name: string }> }).tools ?? []).map((tool) => tool.name);

describe('MCP servers in the chat webview (code-server + Chromium)', function () {
  this.timeout(240_000);
  let bench: ChatWorkbench | undefined;
  let server: CodeServer | undefined;
  let page: Page;
  let fake: FakeAnthropic;
  let chat: Frame;

  before(async function () {
    mkdirSync(RESULTS_DIR, { recursive: true });
    for (const stale of [SCREENSHOT, FAILURE_SCREENSHOT]) rmSync(stale, { force: true });
    bench = await openChatWorkbench({ prefix: 'e2e-mcp', files: { '.vscode/mcp.json': MCP_JSON, 'README.md': '# MCP workspace\n' }, viewport: { width: 1400, height: 1000 } });
    ({ server, page, fake } = bench);
    chat = await showChat(page);
  });

  after(async () => {
    await bench?.close();
  });

  const step = (body: () => Promise<void>): Promise<void> => withFailureReport({ page, server }, FAILURE_SCREENSHOT, body);

  const send = (text: string): Promise<void> => sendFromComposer(chat, text);

  const command = (title: string): Promise<void> => runPaletteCommand(page, title);

  /** Process ids of the server-everything processes running now. */
  const everythingPids = (): Promise<number[]> => processesWhoseCommandLineIncludes(EVERYTHING);

  /** The consent modal: it names the server and shows the command line as the file wrote it. */
  async function consentModal() {
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 30_000 });
    assert.equal(await dialog.locator('.dialog-message-text').innerText(), 'Start the MCP server "everything" that this workspace defines?');
    const detail = await dialog.locator('.dialog-message-detail').innerText();
    assert.ok(detail.includes(`mcp.json asks to run:\n\n${process.execPath} ${EVERYTHING} stdio`), detail);
    return dialog;
  }

  it('declined consent: no MCP tool reaches the model, and one notice says why and how to allow it', async () => {
    await step(async () => {
      fake.enqueue(reply.text('No MCP tools here.'));
      await send('What can you reach?');
      const dialog = await consentModal();
      await dialog.getByRole('button', { name: 'Not Now' }).click();
      await chat.locator('.eg-assistant', { hasText: 'No MCP tools here.' }).waitFor({ timeout: 30_000 });
      const [request] = fake.messageRequests();
      assert.ok(request);
      const tools = toolNames(request.body);
      assert.ok(tools.includes('read_file'), tools.join(', '));
      assert.deepEqual(tools.filter((name) => name.startsWith('mcp')), []);
      const notices = chat.locator('.eg-notice', { hasText: 'everything' });
      assert.equal(await notices.count(), 1);
      assert.match(await notices.innerText(), /defines MCP servers that did not start: "everything" \(mcp\.json: .*stdio\)\. .*needs your consent: allow them when Evergreen asks at the start of a New Chat\./);
    });
  });

  it('allowed consent: the approval card shows server, tool and arguments; the tool card names the server; the gauge has its MCP line; MCP Servers lists it', async () => {
    await step(async () => {
      // A New Chat asks again ("Not Now" is not remembered).
      await command('Evergreen: New Chat');
      await chat.locator('.eg-user').first().waitFor({ state: 'detached', timeout: 30_000 });
      fake.enqueue(reply.toolUse('mcp__everything__echo', { message: 'hello from the e2e test' }, { id: 'toolu_mcp_e2e' }), reply.text('The server echoed it back.'));
      const before = fake.messageRequests().length;
      await send('Echo a greeting through the MCP server.');
      const dialog = await consentModal();
      await dialog.getByRole('button', { name: 'Allow' }).click();

      const card = chat.locator('.eg-approval').last();
      await card.waitFor({ timeout: 60_000 });
      // The arguments as the server will receive them, pretty-printed: 3 lines.
      const shown = JSON.stringify({ message: 'hello from the e2e test' }, null, 2);
      assert.equal(await card.locator('.eg-approval-title').innerText(), `Call echo on the MCP server everything? (3 lines, ${shown.length} characters)`);
      assert.equal(await card.locator('pre.eg-command').innerText(), '{ ⏎\n  "message": "hello from the e2e test" ⏎\n}');
      assert.equal(fake.messageRequests().length, before + 1, 'nothing ran before the answer');
      const toolCard = chat.locator('.eg-tool').last();
      assert.equal(await toolCard.locator('summary .eg-tool-name').innerText(), 'mcp__everything__echo');
      assert.match(await toolCard.locator('summary .eg-tool-arg').innerText(), /^everything: echo /);
      await card.scrollIntoViewIfNeeded();
      await page.mouse.move(900, 700);
      await toolCard.screenshot({ path: SCREENSHOT });
      await card.getByRole('button', { name: 'Call echo on the MCP server everything' }).click();

      await chat.locator('.eg-assistant', { hasText: 'The server echoed it back.' }).waitFor({ timeout: 30_000 });
      const requests = fake.messageRequests().slice(before);
      assert.equal(requests.length, 2);
      assert.ok(toolNames(requests[0]!.body).includes('mcp__everything__echo'));
      assert.match(JSON.stringify((requests[1]!.body as MessagesRequestBody).messages), /Echo: hello from the e2e test/, "the server's answer reached the model");
      assert.equal(await chat.locator('.eg-approval .eg-muted').last().innerText(), 'Approved');
      assert.match(await toolCard.locator('summary .eg-tool-arg').innerText(), /^everything: echo /);
      assert.equal(await chat.locator('.eg-notice', { hasText: 'did not start' }).count(), 0, 'the old chat\'s notice is gone and none is new');

      // The breakdown (the gauge's popover) has a line of its own for the definitions.
      const popover = (await chat.locator('.eg-gauge-popover').textContent()) ?? '';
      const mcpLine = /^MCP tools: ([\d.]+k?) \(\d+%\)$/m.exec(popover);
      assert.ok(mcpLine && mcpLine[1] !== '0', popover);

      // The chat's title bar: MCP Servers lists the server with state, tools and their cost.
      await page.locator('.action-item a.action-label[aria-label="MCP Servers"]').first().click();
      const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: 'everything' });
      await row.waitFor({ timeout: 15_000 });
      const description = await row.locator('.label-description').innerText();
      assert.match(description, /^ready · \d+ tools · ~[\d,]+ tokens of definitions · workspace$/);
      await row.click();
      // The second pick replaces the first's rows: read them once it shows.
      await page.locator('.quick-input-widget .quick-input-title', { hasText: 'MCP server "everything"' }).waitFor({ timeout: 15_000 });
      await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Show Output' }).waitFor({ timeout: 15_000 });
      const actions = await page.locator('.quick-input-widget .monaco-list-row').evaluateAll((rows) => rows.map((row) => row.getAttribute('aria-label')));
      assert.deepEqual(actions, ['Restart', 'Show Output', 'Disable for This Chat']);
      await page.keyboard.press('Escape');

      // Closing the chat ends its server, and what it started (a New Chat keeps it open: issue 31).
      const running = await everythingPids();
      assert.ok(running.length > 0, 'the server runs while its chat is open');
      await command('Evergreen: Close Chat');
      await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Echo a greeting through the MCP server.' }).first().click({ timeout: 15_000 });
      for (let waited = 0; (await everythingPids()).some((pid) => running.includes(pid)); waited += 100) {
        assert.ok(waited < 15_000, `still running after its chat closed: ${running.join(', ')}`);
        await page.waitForTimeout(100);
      }
    });
  });
});
