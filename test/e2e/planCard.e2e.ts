// The plan card as the panel draws it (issue 28): the real bundle (dist/webview.js) and
// media/chat.css in headless Chromium, in the webview benchmark's page (bench/webview/page.ts, whose
// stubbed acquireVsCodeApi records what the panel posts). Build first (node esbuild.mjs). The plan
// sanitized, its steps counted, Build it from the keyboard with the note, the buttons back after a
// refusal, the decision in words, and a pending card closed by a turn without a decision.
import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { AgentEvent } from '../../src/protocol';
import { panelPosted, standalonePanelForSuite, type StandalonePanel } from '../support/standalonePanel';

const PLAN = '# Rate limits\n\n<img src=x onerror="window.__owned=1">Why: the API has none.\n\n## Steps\n1. Add the limiter\n2. Test it\n';

describe('the plan card in the chat panel (Chromium)', function () {
  this.timeout(120_000);
  let page: Page;
  let errors: string[] = [];
  let post: StandalonePanel['post'];
  standalonePanelForSuite((panel) => ({ page, errors, post } = panel));

  const card = () => page.locator('section.eg-plan').last();
  const proposed = (toolUseId: string): AgentEvent => ({ type: 'plan_proposed', turnId: 't1', toolUseId, plan: PLAN, steps: [{ id: '1', text: 'Add the limiter', status: 'pending' }, { id: '2', text: 'Test it', status: 'pending' }] });

  it('shows the plan sanitized, with its steps counted and a note box', async () => {
    await post({ type: 'turn_started', turnId: 't1', userText: 'Plan the rate limits' }, proposed('toolu_a'));
    assert.equal(await card().getAttribute('aria-label'), 'Proposed plan');
    assert.equal(await card().locator('.eg-plan-title').textContent(), 'Proposed plan · 2 steps');
    assert.equal(await card().locator('.eg-plan-body h1').textContent(), 'Rate limits');
    assert.equal(await card().locator('img[onerror]').count(), 0);
    assert.equal(await page.evaluate(() => (window as unknown as { __owned?: number }).__owned), undefined);
    assert.equal(await card().getByLabel(/^Note/).count(), 1, 'the note box has its label');
  });

  it('sends Build it with the note from the keyboard, and gives the buttons back when the host refuses', async () => {
    await card().getByLabel(/^Note/).focus();
    await page.keyboard.type('Start with the tests.');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Build it');
    await page.keyboard.press('Enter');
    const { requestId, ...request } = (await panelPosted(page)).at(-1) ?? {};
    assert.deepEqual(request, { type: 'planDecision', toolUseId: 'toolu_a', decision: 'build', note: 'Start with the tests.' });
    assert.equal(await card().getByRole('button', { name: 'Build it' }).isDisabled(), true, 'no second decision while the host decides');
    await page.evaluate((id) => window.postMessage({ type: 'reply', requestId: id, ok: false, error: 'That plan is no longer the one waiting for a decision.' }, '*'), requestId as number);
    await card().getByRole('button', { name: 'Build it' }).waitFor({ state: 'visible' });
    await page.waitForFunction(() => !(document.querySelector('section.eg-plan .eg-plan-build') as HTMLButtonElement | null)?.disabled);
  });

  it('says the decision in words once the session took it, and closes a pending card when a turn goes on without one', async () => {
    await post({ type: 'mode_changed', mode: 'agent', reason: 'build' }, { type: 'plan_decided', toolUseId: 'toolu_a', decision: 'build' });
    assert.equal(await card().locator('.eg-plan-state').textContent(), 'Building this plan: the agent mode is on and its steps are the task list.');
    assert.equal(await card().getByRole('button').count(), 0);
    await post(proposed('toolu_b'), { type: 'turn_started', turnId: 't2', userText: 'Something else first.' });
    assert.equal(await card().locator('.eg-plan-state').textContent(), 'The conversation went on without a decision on this plan.');
    assert.deepEqual(errors, []);
  });
});
