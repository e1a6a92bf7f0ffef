// The chat panel under axe-core (issue 33 item 3), in VS Code's Dark Modern and Light Modern themes:
// a turn with a tool card, a markdown reply, the gauge and the composer, checked against the WCAG
// 2.x A and AA rules; no serious or critical violation. The insights panel has its own check
// (test/e2e/insights.e2e.ts). Screenshots: test-results/e2e-chat-a11y-<theme>.png. Build first
// (node esbuild.mjs), then:
//   npx mocha --no-config --require tsx/cjs --extension ts --timeout 300000 test/e2e/chatA11y.e2e.ts
import * as assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { reply } from '../fake-anthropic/server';
import { describeFindings, seriousAxeViolations } from '../support/axe';
import { openChatWorkbench, sendFromComposer, showChat, withFailureReport } from '../support/e2eChat';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const RESULTS_DIR = path.join(REPO_ROOT, 'test-results');

const THEMES = [
  { name: 'dark', colorTheme: 'Default Dark Modern', webviewClass: 'vscode-dark' },
  { name: 'light', colorTheme: 'Default Light Modern', webviewClass: 'vscode-light' },
] as const;

describe('the chat panel’s accessibility (axe-core, code-server + Chromium)', function () {
  this.timeout(240_000);
  before(() => mkdirSync(RESULTS_DIR, { recursive: true }));

  for (const theme of THEMES) {
    it(`has no serious or critical violation in ${theme.colorTheme}`, async () => {
      let requests = 0;
      const bench = await openChatWorkbench({
        prefix: `e2e-chat-a11y-${theme.name}`,
        files: { 'README.md': '# a11y workspace\n\nSome notes.\n' },
        settings: { 'workbench.colorTheme': theme.colorTheme },
        // Installed, not loaded as in development: only then does the workbench apply the theme.
        installed: true,
        onFake: (fake) =>
          fake.setResponder(() =>
            requests++ === 0
              ? reply.toolUse('read_file', { path: 'README.md' }, { id: 'toolu_a11y_read', preamble: 'Reading the notes.' })
              : reply.text('The README says **Some notes.**\n\n- a list item\n- `inline code`\n\n[a link](https://example.com)'),
          ),
      });
      try {
        await withFailureReport(bench, path.join(RESULTS_DIR, `e2e-chat-a11y-${theme.name}-failure.png`), async () => {
          const chat = await showChat(bench.page);
          await chat.locator(`body.${theme.webviewClass}`).waitFor({ timeout: 30_000 });
          await sendFromComposer(chat, 'What does the README say?');
          await chat.getByText('a list item').waitFor({ timeout: 60_000 });
          await chat.locator('#evergreen-root[data-status="idle"]').waitFor({ timeout: 60_000 });
          await bench.page.screenshot({ path: path.join(RESULTS_DIR, `e2e-chat-a11y-${theme.name}.png`) });
          const findings = await seriousAxeViolations(chat);
          assert.equal(findings.length, 0, describeFindings(findings));
        });
      } finally {
        await bench.close();
      }
    });
  }
});
