// The issue-8 scenario end to end, once in a dark and once in a light theme: one scripted session
// driven through the real chat panel of the built extension in code-server + Chromium, with a
// screenshot of every step in test-results/scenario-<theme>-<step>.png.
//   1 prompt typed in the composer -> streamed text and a read_file card
//   2 an edit approved with the card's Apply button -> the file changes on disk
//   3 a big search result -> the gauge's percent rises
//   4 module reads in a 40k window -> an automatic compaction inside the turn: a divider, the gauge falls
//   5 the automatic compaction's divider offers no Undo and the command refuses it (the context
//     would be over the threshold again);
//     /compact, then Undo on the newest divider -> the gauge rises again and an "undone" note appears
//   6 the divider's "Transcript at this point" -> the archived transcript opens rendered at that compaction;
//     axe-core finds nothing serious in it; the tab's "Open Transcript Source" opens its markdown source
// The model is the fake Messages API (test/fake-anthropic) playing a script; summary requests are
// recognised by their instruction, so they may come whenever the engine decides to compact.
import * as assert from 'node:assert/strict';
import { mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import type Anthropic from '@anthropic-ai/sdk';
import type { Frame, Page } from 'playwright-core';
import { type CodeServer } from '../../scripts/vscode-harness.mjs';
import { evergreenLogTail, findChatFrame, runPaletteCommand } from '../support/e2eChat';
import { reply, type MessagesRequestBody, type ScriptedReply } from '../fake-anthropic/server';
import { openChatWorkbench, type ChatWorkbench } from '../support/e2eChat';
import { findTranscriptFrame, openSourceFromTitleBar } from '../support/e2eTranscript';
import { describeFindings, seriousAxeViolations } from '../support/axe';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const RESULTS_DIR = path.join(REPO_ROOT, 'test-results');
const MODEL = 'claude-sonnet-4-6';
/** Small enough that a handful of module reads crosses the auto-compact threshold (about 29k). */
const WINDOW = 40_000;
/** Three reads cross the threshold; the fourth comes after the compaction. */
const MODULES = 4;

const THEMES = [
  { name: 'dark', colorTheme: 'Default Dark Modern', workbenchClass: 'vs-dark', webviewClass: 'vscode-dark' },
  { name: 'light', colorTheme: 'Default Light Modern', workbenchClass: 'vs', webviewClass: 'vscode-light' },
] as const;

/**
 * ~15k characters of numbers (~6.5k tokens) as read_file shows them: just under read_file's cap in a
 * 40k window (16,000 characters), so each read is whole.
 */
function moduleSource(index: number): string {
  let seed = index * 7919;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
  const lines = [`// module ${index}: lookup tables`];
  for (let line = 0; line < 110; line++) lines.push(`export const table${index}_${line} = [${Array.from({ length: 16 }, () => next() % 100000).join(', ')}];`);
  return `${lines.join('\n')}\n`;
}

/**
 * A CI log the user pastes with the review request (~8.5k tokens). The tiers only shorten old tool
 * results and never the three newest, so it is this message that makes three module reads more than
 * the auto-compact threshold: only a summary frees enough.
 */
function ciLog(): string {
  const lines = ['CI run 4711 (release 1.1.0) — checksum mismatches:'];
  for (let line = 0; line < 258; line++) {
    const module = (line % 4) + 1;
    lines.push(`[12:${String(line % 60).padStart(2, '0')}:07] module${module} table${module}_${line} checksum 0x${(line * 2654435761 % 4294967296).toString(16)} expected 0x${(line * 40503 % 65536).toString(16)}${(line * 97 % 1000).toString().padStart(3, '0')} (run ${4711 + line})`);
  }
  return lines.join('\n');
}

/** The text of the last user message (tool results excluded). */
function lastUserText(body: MessagesRequestBody): string {
  const last = (body.messages as Anthropic.MessageParam[]).at(-1);
  if (!last || last.role !== 'user') return '';
  if (typeof last.content === 'string') return last.content;
  return last.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
}

/** The leading percent of the gauge label ("23% · 9.2k / 40.0k"). */
function percentOf(label: string): number {
  const match = /^(\d+)%/.exec(label.trim());
  assert.ok(match, `the gauge label "${label}" does not start with a percent`);
  return Number(match[1]);
}

for (const theme of THEMES) {
  describe(`issue 8 scenario in the ${theme.name} theme (code-server + Chromium)`, function () {
    this.timeout(120_000);
    let bench: ChatWorkbench | undefined;
    let workspace: string;
    let server: CodeServer | undefined;
    let page: Page;
    let chat: Frame;
    /** What the model answers next; summary requests are answered apart. */
    const script: ScriptedReply[] = [];
    let summaryRequests = 0;
    let pageErrors: string[] = [];
    let broken = false;

    const shot = (step: string) => path.join(RESULTS_DIR, `scenario-${theme.name}-${step}.png`);

    before(async function () {
      mkdirSync(RESULTS_DIR, { recursive: true });
      for (const file of readdirSync(RESULTS_DIR)) if (file.startsWith(`scenario-${theme.name}-`)) rmSync(path.join(RESULTS_DIR, file), { force: true });
      const files: Record<string, string> = {
        'README.md': '# scenario workspace\n',
        'src/config.ts': "// Release settings.\nexport const VERSION = '1.0.0';\nexport const CODENAME = 'BLUE-HERON';\n",
      };
      for (let index = 1; index <= MODULES; index++) files[`src/module${index}.ts`] = moduleSource(index);
      bench = await openChatWorkbench({
        prefix: `e2e-scenario-${theme.name}`,
        files,
        model: MODEL,
        settings: { 'workbench.colorTheme': theme.colorTheme },
        // Installed, not loaded as in development: only then does the workbench apply the theme.
        installed: true,
        onFake: (scripted) => {
          scripted.setModel(MODEL, { max_input_tokens: WINDOW, max_tokens: 64_000 });
          scripted.setResponder((body) => {
            if (lastUserText(body).includes('CONTEXT COMPACTION')) {
              summaryRequests++;
              return reply.text(
                '<analysis>Walked the history.</analysis><summary>1. Primary request: review the modules under src/ and bump the release version (codename BLUE-HERON).\n' +
                  '3. Files and code: src/config.ts (VERSION now 1.1.0), src/module1.ts … src/module4.ts (lookup tables).\n' +
                  '8. Current work: reviewing the modules one by one.\n9. Next step: report what each module exports.</summary>',
              );
            }
            return script.shift() ?? reply.text('(the scenario script has no reply for this request)');
          });
        },
      });
      ({ workspace, server, page, pageErrors } = bench);
    });

    after(async function () {
      await bench?.close();
    });

    // Every step builds on the one before: after a failure the rest only add noise.
    beforeEach(function () {
      if (broken) this.skip();
    });
    afterEach(function () {
      if (this.currentTest?.state === 'failed') broken = true;
    });

    const evergreenLog = (): string => evergreenLogTail(server?.userDataDir, 40);

    /** The ids of the sessions in the extension's workspace storage (folders holding a transcript.jsonl). */
    function sessionIds(): string[] {
      const ids: string[] = [];
      const walk = (dir: string): void => {
        for (const entry of readdirSync(dir, { withFileTypes: true })) {
          const full = path.join(dir, entry.name);
          if (entry.isDirectory()) walk(full);
          else if (entry.name === 'transcript.jsonl' && path.basename(path.dirname(path.dirname(full))) === 'sessions') ids.push(path.basename(path.dirname(full)));
        }
      };
      if (server) walk(path.join(server.userDataDir, 'User', 'workspaceStorage'));
      return ids;
    }

    /** Runs a step; on failure saves a screenshot and adds the logs to the error. */
    async function step(name: string, body: () => Promise<void>): Promise<void> {
      try {
        await body();
      } catch (error) {
        const failure = shot(`${name}-failure`);
        await page.screenshot({ path: failure }).catch(() => {});
        throw new Error(`${(error as Error).message}\nscreenshot: ${failure}\n${pageErrors.map((e) => `page error: ${e}`).join('\n')}\n${evergreenLog()}\n${server?.logTail() ?? ''}`);
      }
    }

    async function screenshot(name: string): Promise<void> {
      // The pointer off the activity bar and buttons, so no hover tooltip covers the chat.
      await page.mouse.move(900, 880);
      await page.waitForTimeout(300);
      await page.screenshot({ path: shot(name) });
    }

    /** Closes VS Code's notification toasts (asserted already) so they do not cover the screenshots. */
    async function dismissNotifications(): Promise<void> {
      await page.evaluate(() => {
        for (const clear of document.querySelectorAll<HTMLElement>('.notification-toast .codicon-notifications-clear')) clear.click();
      });
      await page.locator('.notification-toast').first().waitFor({ state: 'detached', timeout: 10_000 });
    }

    /** A wider side bar, so the chat reads well in the screenshots. */
    async function widenSideBar(width: number): Promise<void> {
      const box = await page.locator('.part.sidebar').boundingBox();
      assert.ok(box, 'no side bar');
      const edge = box.x + box.width;
      await page.mouse.move(edge - 1, 450);
      await page.mouse.down();
      await page.mouse.move(box.x + width, 450, { steps: 5 });
      await page.mouse.up();
    }

    const chatFrame = (): Promise<Frame> => findChatFrame(page, 600);

    async function gaugePercent(): Promise<number> {
      return percentOf(await chat.locator('.eg-gauge-label').innerText());
    }

    /** Types into the composer and sends with Enter, as a user does. */
    async function sendPrompt(text: string): Promise<void> {
      const input = chat.locator('textarea.eg-input');
      await input.click();
      await input.press('Control+End'); // after anything pasted before
      await input.pressSequentially(text, { delay: 5 });
      await input.press('Enter');
    }

    async function waitIdle(): Promise<void> {
      await chat.locator('#evergreen-root[data-status="idle"]').waitFor({ timeout: 60_000 });
    }

    /** Starts recording every text the gauge label shows (the peak before a compaction lasts one request). */
    async function recordGauge(): Promise<void> {
      await chat.evaluate(() => {
        const label = document.querySelector('.eg-gauge-label')!;
        const seen: string[] = [label.textContent ?? ''];
        (window as unknown as { egGaugeSeen: string[] }).egGaugeSeen = seen;
        new MutationObserver(() => seen.push(label.textContent ?? '')).observe(label, { childList: true, characterData: true, subtree: true });
      });
    }
    async function recordedPercents(): Promise<number[]> {
      const seen = await chat.evaluate(() => (window as unknown as { egGaugeSeen: string[] }).egGaugeSeen);
      return seen.filter((label) => /^\d+%/.test(label)).map(percentOf);
    }

    it('1: a prompt typed in the composer streams text and shows a read_file card', async function () {
      await step('1-stream', async () => {
        const icon = page.locator('.activitybar .action-item a[aria-label="Evergreen"]');
        await icon.waitFor({ timeout: 90_000 });
        if (!(await page.locator('.activitybar .action-item.checked a[aria-label="Evergreen"]').count())) await icon.click();
        chat = await chatFrame();
        await widenSideBar(560);
        // The theme from the user settings reached the workbench and the webview.
        await page.locator(`.monaco-workbench.${theme.workbenchClass}`).waitFor({ timeout: 15_000 });
        assert.ok(await chat.evaluate((cls) => document.body.classList.contains(cls), theme.webviewClass), `the webview body is not ${theme.webviewClass}`);
        assert.equal(await chat.locator('.eg-gauge-label').innerText(), 'No conversation yet');

        script.push(
          reply.toolUse('read_file', { path: 'src/config.ts' }, { preamble: 'Let me look at the release settings first.' }),
          // Slow enough that the half-written reply is on screen for a while.
          reply.text('The release is **1.0.0**, codename `BLUE-HERON`. The version lives in `src/config.ts`; I can bump it when you are ready.', {
            stream: { textChunkChars: 6, eventDelayMs: 40 },
          }),
        );
        await sendPrompt('Which version are we releasing?');
        // The user's message, the preamble, the tool card with its argument, then the reply streaming in.
        await chat.locator('.eg-user', { hasText: 'Which version are we releasing?' }).waitFor({ timeout: 15_000 });
        const card = chat.locator('.eg-tool', { has: chat.locator('.eg-tool-name', { hasText: 'read_file' }) });
        await card.waitFor({ timeout: 30_000 });
        assert.match(await card.locator('.eg-tool-arg').innerText(), /src\/config\.ts/);
        await chat.locator('.eg-assistant.eg-streaming').waitFor({ timeout: 30_000 });
        await chat.locator('.eg-assistant', { hasText: 'Let me look at the release settings first.' }).waitFor({ timeout: 15_000 });
        await chat.locator('.eg-assistant strong', { hasText: '1.0.0' }).waitFor({ timeout: 30_000 });
        await screenshot('1-stream');
        await waitIdle();
        assert.equal(await chat.locator('.eg-assistant.eg-streaming').count(), 0);
        assert.match(await card.locator('.eg-tool-status').innerText(), /\d\.\ds|done/);
      });
    });

    it('2: an edit waits for Apply and then changes the file on disk', async function () {
      await step('2-approve', async () => {
        script.push(
          reply.toolUse('edit_file', { path: 'src/config.ts', old_string: "VERSION = '1.0.0'", new_string: "VERSION = '1.1.0'" }, { preamble: 'Bumping the version.' }),
          reply.text('Bumped `VERSION` to **1.1.0** in `src/config.ts`.'),
        );
        await sendPrompt('Bump the version to 1.1.0');
        const approval = chat.locator('.eg-approval');
        await approval.waitFor({ timeout: 30_000 });
        assert.match(await approval.locator('.eg-approval-title').innerText(), /Change src\/config\.ts\?/);
        assert.match(await approval.locator('.eg-diff').innerText(), /\+export const VERSION = '1\.1\.0';/);
        // Nothing is written before the click.
        assert.match(readFileSync(path.join(workspace, 'src', 'config.ts'), 'utf8'), /VERSION = '1\.0\.0'/);
        await screenshot('2-approval');
        await approval.locator('button', { hasText: 'Apply' }).click();
        await chat.locator('.eg-assistant strong', { hasText: '1.1.0' }).waitFor({ timeout: 30_000 });
        await waitIdle();
        assert.match(readFileSync(path.join(workspace, 'src', 'config.ts'), 'utf8'), /VERSION = '1\.1\.0'/);
        assert.match(await approval.innerText(), /Approved/);
        await screenshot('2-applied');
      });
    });

    it('3: a big tool result makes the gauge rise', async function () {
      await step('3-gauge', async () => {
        const before = await gaugePercent();
        script.push(
          reply.toolUse('grep_search', { pattern: 'table\\d_1\\d = ', path: 'src' }, { preamble: 'Searching the lookup tables.' }),
          reply.text('Every module defines tables 10-19 the same way.'),
        );
        await sendPrompt('Do the modules define tables 10 to 19 the same way?');
        await chat.locator('.eg-assistant', { hasText: 'Every module defines tables 10-19' }).waitFor({ timeout: 30_000 });
        await waitIdle();
        const after = await gaugePercent();
        assert.ok(after > before, `the gauge did not rise: ${before}% -> ${after}%`);
        await screenshot('3-gauge');
      });
    });

    let peakBeforeCompaction = 0;
    it('4: module reads in a 40k window compact automatically inside the turn: a divider, and the gauge falls', async function () {
      await step('4-compaction', async () => {
        await recordGauge();
        const summariesBefore = summaryRequests;
        for (let index = 1; index <= MODULES; index++) {
          script.push(reply.toolUse('read_file', { path: `src/module${index}.ts` }, { preamble: `Reading module ${index}.` }));
        }
        script.push(reply.text('Reviewed all four modules: each exports 110 lookup tables, `table<N>_<line>`.'));
        // The log is pasted (filled), the request typed.
        const input = chat.locator('textarea.eg-input');
        await input.fill(`${ciLog()}\n\n`);
        await sendPrompt('Review every module under src/ and tell me what each exports.');
        const divider = chat.locator('.eg-divider').first();
        await divider.waitFor({ timeout: 60_000 });
        await chat.locator('.eg-assistant', { hasText: 'Reviewed all four modules' }).waitFor({ timeout: 60_000 });
        await waitIdle();
        assert.equal(script.length, 0, 'the model was not asked for every scripted step');
        assert.equal(summaryRequests, summariesBefore + 1, 'one summary request');
        assert.equal(await chat.locator('.eg-divider').count(), 1);
        assert.match(await divider.locator('.eg-divider-title').innerText(), /Context compacted \(auto summary\)/);
        // The divider comes inside the turn, with module reads after it.
        assert.ok(await chat.locator('.eg-divider ~ .eg-tool').count() >= 1, 'no tool call after the divider: the compaction did not happen inside the turn');
        const percents = await recordedPercents();
        const peak = Math.max(...percents);
        const now = await gaugePercent();
        peakBeforeCompaction = peak;
        assert.ok(peak >= 60, `the gauge never got near the auto-compact threshold: ${percents.join(', ')}`);
        assert.ok(now < peak, `the gauge did not fall after the compaction: peak ${peak}%, now ${now}%`);
        // The summary is one click away.
        await divider.locator('.eg-divider-details > summary').click();
        assert.match(await divider.locator('.eg-divider-summary').innerText(), /Primary request/);
        await divider.locator('.eg-divider-details > summary').click();
        await screenshot('4-compaction');
      });
    });

    it('5: Undo on the newest divider restores the context: the gauge rises and an "undone" note appears', async function () {
      await step('5-undo', async () => {
        // Undoing the automatic compaction would put the context back over the threshold (the core
        // refuses it), so its divider offers no Undo; the command still answers with the reason.
        assert.equal(await chat.locator('.eg-divider').last().locator('button.eg-undo').count(), 0);
        await runPaletteCommand(page, 'Evergreen: Undo Last Compaction');
        const refusal = page.locator('.notification-toast', { hasText: 'Cannot undo the last compaction' });
        await refusal.waitFor({ timeout: 15_000 });
        await dismissNotifications();
        assert.equal(await chat.locator('.eg-divider.eg-undone').count(), 0);

        // A compaction asked for in the chat (well under the threshold) can be undone.
        const summariesBefore = summaryRequests;
        await sendPrompt('/compact the module review');
        await chat.locator('.eg-divider').nth(1).waitFor({ timeout: 30_000 });
        await waitIdle();
        assert.equal(summaryRequests, summariesBefore + 1);
        const newest = chat.locator('.eg-divider').last();
        assert.match(await newest.locator('.eg-divider-title').innerText(), /manual summary.*focus: the module review/);
        // Only the newest divider offers Undo.
        assert.equal(await chat.locator('.eg-divider').first().locator('button.eg-undo').count(), 0);
        const compacted = await gaugePercent();
        await page.locator('.notification-toast', { hasText: 'Compacted (manual)' }).waitFor({ timeout: 15_000 });
        await dismissNotifications();
        await screenshot('5-compacted');

        await newest.locator('button.eg-undo').click();
        await chat.locator('.eg-note', { hasText: /^Compaction undone/ }).waitFor({ timeout: 30_000 });
        await chat.locator('.eg-divider.eg-undone').waitFor({ timeout: 15_000 });
        assert.match(await newest.locator('.eg-divider-title').innerText(), /— undone$/);
        assert.equal(await newest.locator('button.eg-undo').count(), 0, 'an undone compaction cannot be undone again');
        await chat.locator('.eg-gauge-label', { hasText: /^\d+%/ }).waitFor();
        // The gauge event follows the note (the restored view is counted first).
        let restored = await gaugePercent();
        for (let tries = 0; tries < 50 && restored <= compacted; tries++) {
          await page.waitForTimeout(100);
          restored = await gaugePercent();
        }
        assert.ok(restored > compacted, `the gauge did not rise after the undo: ${compacted}% -> ${restored}%`);
        assert.ok(restored < peakBeforeCompaction, `the restored context (${restored}%) is not under the pre-compaction peak (${peakBeforeCompaction}%)`);
        await page.locator('.notification-toast', { hasText: 'Compaction undone' }).waitFor({ timeout: 15_000 });
        await dismissNotifications();
        await screenshot('5-undone');
      });
    });

    it('6: "Transcript at this point" opens the archived transcript rendered, at that compaction; its source is one click away', async function () {
      await step('6-transcript', async () => {
        await chat.locator('.eg-divider').first().locator('button.eg-link', { hasText: 'Transcript at this point' }).click();
        // Rendered, in a tab named by the session's title (a tab label takes the question mark as typed).
        await page.locator('.tabs-container .tab.active', { hasText: 'Which version are we releasing?' }).waitFor({ timeout: 30_000 });
        const rendered = await findTranscriptFrame(page, 'Which version are we releasing?');
        assert.equal(await rendered.locator('#transcript-root h1').first().innerText(), 'Which version are we releasing?');
        // Opened at this divider's compaction (scrolled to and focused), with the summary the model wrote, as HTML: no markdown marks.
        const boundary = rendered.locator('#transcript-root h2', { hasText: 'Context compacted (auto)' }).first();
        await boundary.waitFor({ timeout: 15_000 });
        await rendered.waitForFunction(() => document.activeElement?.tagName === 'H2' && /Context compacted \(auto\)/.test(document.activeElement.textContent ?? ''), undefined, { timeout: 15_000 });
        assert.ok(await boundary.isVisible());
        await rendered.locator('#transcript-root', { hasText: /Primary request: review the modules/ }).waitFor({ timeout: 15_000 });
        assert.equal(await rendered.locator('#transcript-root').getByText('## Context compacted').count(), 0, 'the markdown was not rendered');
        const findings = await seriousAxeViolations(rendered);
        assert.deepEqual(findings, [], describeFindings(findings));
        await screenshot('6-transcript-rendered');

        // The source, from the tab's title bar: the session's transcript document, evergreen-transcript:/<sessionId>/<title>.md
        // (the label shows its path; a file on disk would show the workspace path), at the same boundary.
        await openSourceFromTitleBar(page);
        const label = page.locator('.tabs-container .tab.active .monaco-icon-label');
        // The file name keeps the question mark, as a look-alike a file name accepts (fileNameTitle).
        await page.locator('.tabs-container .tab.active', { hasText: 'Which version are we releasing\uFF1F.md' }).waitFor({ timeout: 30_000 });
        const sessionId = sessionIds();
        assert.equal(sessionId.length, 1, `one session in the workspace storage: ${sessionId.join(', ')}`);
        assert.equal(await label.getAttribute('aria-label'), `/${sessionId[0]}/Which version are we releasing\uFF1F.md`);
        // (Monaco renders spaces as no-break spaces: \s matches both.)
        const lines = page.locator('.editor-instance .view-lines');
        await lines.filter({ hasText: /##\s+Context\s+compacted\s+\(auto\)/ }).waitFor({ timeout: 15_000 });
        await lines.filter({ hasText: /Primary\s+request:\s+review\s+the\s+modules/ }).waitFor({ timeout: 15_000 });
        await screenshot('6-transcript');
      });
    });
  });
}
