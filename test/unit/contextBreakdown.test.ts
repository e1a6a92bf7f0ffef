// The context breakdown document is a front end's rendering (src/frontends/contextBreakdown.ts):
// the core gives numbers and kinds (tiers' names and thresholds, why no summary), the document
// words them and its own sentences through @vscode/l10n, and names the front end's own commands.
import assert from 'node:assert/strict';
import { renderContextBreakdown, type BreakdownDocumentInput } from '../../src/frontends/contextBreakdown';
import { contextGauge } from '../../src/core/context/gauge';
import { CONTEXT_DEFAULTS } from '../../src/core/context/defaults';
import { EDIT_TIERS } from '../../src/core/context/tiers';
import type { SummarySavings, TierSavings } from '../../src/core/context/tierSavings';
import { userText } from '../../src/core/texts/userText';
import { configureWords, word } from '../../src/frontends/words';

const gauge = contextGauge({ window: 100_000, outputReserve: 16_000, usedTokens: 20_000, autoCompactThreshold: 77_000, cacheReadShare: 0.5, sessionCostUsd: 0 });

/** Each tier as the engine previews it under the default settings (nothing due at 5% of the usable window). */
function savingsWith(summary: SummarySavings, items = 0): TierSavings {
  const tiers = [...EDIT_TIERS]
    .sort((a, b) => a.level - b.level)
    .map((tier) => ({ tier: tier.name, level: tier.level, items, tokens: items * 1_000, ...tier.preview(CONTEXT_DEFAULTS, 0.05, false) }));
  return { usedTokens: 20_000, tiers, summary };
}

const notPossible = savingsWith({ possible: false, reason: userText('context.summaryWaitsForTool', {}) });

function render(input: Partial<BreakdownDocumentInput> = {}): string {
  return renderContextBreakdown({ gauge, savings: notPossible, sessionId: 's1', model: 'claude-test', at: new Date(0), word, voice: 'extension', ...input });
}

describe('context breakdown document (front end)', () => {
  afterEach(() => configureWords({ locale: 'en', voice: 'cli' }));

  it("words each tier's name and when it runs from the core's kinds, in the English it always had", () => {
    const text = render();
    const { budgetSoftUtilization: soft, budgetHardUtilization: hard, budgetSoftChars: chars, snipUtilization: snip, clearUtilization: clear, keepRecentResults: keep } = CONTEXT_DEFAULTS;
    const pct = (share: number) => `${Math.round(share * 100)}%`;
    assert.match(text, new RegExp(`^\\| Trim old tool results \\| nothing to do \\| no \\| above ${pct(soft)} / ${pct(hard)} of the usable window; trims old results to ${chars.toLocaleString('en-US')} characters \\|$`, 'm'));
    assert.match(text, new RegExp(`^\\| Snip superseded reads and old searches \\| nothing to do \\| no \\| above ${pct(snip)} of the usable window \\|$`, 'm'));
    assert.match(text, new RegExp(`^\\| Clear old tool results \\| nothing to do \\| no \\| when the prompt cache is cold, or above ${pct(clear)} of the usable window; keeps the ${keep} newest \\|$`, 'm'));
    assert.match(text, /^- Clear old tool results: tier 3 \(`microcompact`\)\. Its edits are recorded/m);
  });

  it('says why no summary is possible now, and one result in the singular', () => {
    assert.match(render(), /^\| Summarize the conversation: not possible now, a tool call is waiting for its result \| — \| no \| /m);
    const nothingYet = render({ savings: savingsWith({ possible: false, reason: userText('context.summaryNothingYet', {}) }, 1) });
    assert.match(nothingYet, /^\| Summarize the conversation: not possible now, nothing to summarize yet \| /m);
    assert.match(nothingYet, /^\| Trim old tool results \| ~1,000 tokens \(1 result\) \| no \| /m);
    assert.match(nothingYet, /^The full transcript always stays on disk\.$/m);
  });

  it("names each front end's own way to refresh it and to compact", () => {
    const extension = render();
    assert.match(extension, /run \*\*Evergreen: Show Context Breakdown\*\* again to refresh it\./);
    assert.match(extension, /\| past the auto-compact threshold, or Compact Conversation \/ `\/compact \[focus\]` \|$/m);
    const cli = render({ voice: 'cli' });
    assert.match(cli, /run `\/context` again to refresh it\./);
    assert.match(cli, /\| past the auto-compact threshold, or `\/compact \[focus\]` \|$/m);
    for (const vscodeOnly of [/Show Context Breakdown/, /Compact Conversation/]) assert.doesNotMatch(cli, vscodeOnly);
  });

  it("reads in the extension's language: its own sentences and the core's kinds go through the bundle", () => {
    configureWords({
      locale: 'fr',
      voice: 'extension',
      bundle: { 'Reserved for the reply': 'Réservé à la réponse', 'Clear old tool results': 'Effacer les anciens résultats', 'Window: {0} tokens': 'Fenêtre : {0} jetons' },
    });
    const text = render();
    assert.match(text, /^\| Réservé à la réponse \| 16,000 \| 16\.0% \|$/m);
    assert.match(text, /^\| Effacer les anciens résultats \| nothing to do \| /m);
    assert.match(text, /^- Fenêtre : 100,000 jetons$/m);
  });
});
