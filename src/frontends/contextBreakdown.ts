/**
 * The context breakdown as a readable markdown document ("Evergreen: Show Context Breakdown" in VS
 * Code, `/context` in the CLI): where the tokens go, the window's split, and what each tier would
 * free if it ran now. The core computes the numbers and kinds (context/gauge.ts, tierSavings.ts);
 * the sentences are this file's, through @vscode/l10n (the CLI words in English). Pure, so both
 * front ends and the tests render the same text.
 */
import * as l10n from '@vscode/l10n';
import { editTier, type EditTier } from '../core/context/tiers';
import type { UserText } from '../core/texts/userText';
import { breakdownLines, breakdownPartText, priceUnknownHintText, sessionCostText, type ContextGauge, type GaugeLevel } from '../core/context/gauge';
import type { SummarySavings, TierPreview, TierSavings } from '../core/context/tierSavings';
import type { Voice } from './words/template';

export interface BreakdownDocumentInput {
  gauge: ContextGauge;
  /** Absent when the session's context strategy cannot preview its tiers. */
  savings: TierSavings | undefined;
  sessionId?: string | undefined;
  model?: string | undefined;
  at: Date;
  /** How this front end words what the core says (the gauge's label, the categories' names, the cost, the tiers). */
  word: (text: UserText) => string;
  /** Which front end shows it: the document names that one's way to refresh it and to compact. */
  voice: Voice;
}

/** Numbers as the document has always shown them (English digits and separators). */
const tokenCount = (tokens: number) => Math.round(tokens).toLocaleString('en-US');

function levelText(level: GaugeLevel): string {
  switch (level) {
    case 'ok':
      return l10n.t('Below the auto-compact threshold.');
    case 'near':
      return l10n.t('Near the auto-compact threshold: the conversation is summarized once it passes it.');
    case 'past':
      return l10n.t('Past the auto-compact threshold: the conversation is summarized before the next request.');
    case 'over':
      return l10n.t('Over the whole window: the next request fails unless compaction frees room first.');
  }
}

export function renderContextBreakdown(input: BreakdownDocumentInput): string {
  const { gauge, savings } = input;
  const lines: string[] = [`# ${l10n.t('Evergreen — context breakdown')}`, '', heading(input), '', `**${input.word(gauge.reading.label)}** — ${levelText(gauge.reading.level)}`, ''];
  lines.push(...whereTheTokensGo(input), ...windowSection(input), `## ${l10n.t('What Evergreen could free now')}`, '');
  if (!savings) {
    lines.push(l10n.t("This session's context strategy has no preview of what it could free."));
    return lines.join('\n') + '\n';
  }
  lines.push(...freeNow(input, savings), ...howItWorks(savings.tiers.map((tier) => editTier(tier.tier)), input.word));
  return lines.join('\n') + '\n';
}

function heading({ gauge, sessionId, model, at, voice }: BreakdownDocumentInput): string {
  const about = [
    sessionId ? l10n.t('session {0}', `\`${sessionId}\``) : undefined,
    model ? l10n.t('model {0}', `\`${model}\``) : undefined,
    l10n.t('as of {0}', at.toISOString()),
  ].filter(Boolean);
  const refresh = voice === 'cli' ? '`/context`' : '**Evergreen: Show Context Breakdown**';
  const counts = gauge.estimated
    ? l10n.t('Token counts are estimates calibrated on the last request the API counted; this document is a snapshot — run {0} again to refresh it.', refresh)
    : l10n.t('Token counts are as the API counted the last request; this document is a snapshot — run {0} again to refresh it.', refresh);
  return `${about.join(' · ')}. ${counts}`;
}

function share(tokens: number, window: number): string {
  return `${((tokens / Math.max(1, window)) * 100).toFixed(1)}%`;
}

function whereTheTokensGo({ gauge, word }: BreakdownDocumentInput): string[] {
  const { reading, window } = gauge;
  const approx = gauge.estimated ? '~' : '';
  const lines = [`## ${l10n.t('Where the tokens go')}`, '', `| ${l10n.t('part')} | ${l10n.t('tokens')} | ${l10n.t('share of the window')} |`, '|---|---:|---:|'];
  if (gauge.breakdown) {
    for (const { key } of breakdownLines(gauge.breakdown)) lines.push(`| ${word(breakdownPartText(key))} | ${approx}${tokenCount(gauge.breakdown[key])} | ${share(gauge.breakdown[key], window)} |`);
  } else {
    lines.push(`| ${l10n.t('(no breakdown from this context strategy)')} | | |`);
  }
  const used = Math.max(0, gauge.usedTokens);
  const free = Math.round(reading.freeShare * Math.max(1, window));
  const reserve = Math.round(reading.reserveShare * Math.max(1, window));
  lines.push(
    `| **${l10n.t('In use')}** | **${approx}${tokenCount(used)}** | **${share(used, window)}** |`,
    `| ${l10n.t('Reserved for the reply')} | ${tokenCount(reserve)} | ${share(reserve, window)} |`,
    `| ${l10n.t('Free')} | ${tokenCount(free)} | ${share(free, window)} |`,
    `| **${l10n.t('Window')}** | **${tokenCount(window)}** | 100% |`,
    '',
  );
  if (reserve < gauge.outputReserve) lines.push(l10n.t("The reply's reserve of {0} tokens is partly taken by the conversation.", tokenCount(gauge.outputReserve)), '');
  return lines;
}

function windowSection({ gauge, word }: BreakdownDocumentInput): string[] {
  const hint = priceUnknownHintText(gauge.unpricedRequests);
  return [
    `## ${l10n.t('Window')}`,
    '',
    `- ${l10n.t('Window: {0} tokens', tokenCount(gauge.window))}`,
    `- ${l10n.t('Reserved for the reply (max output): {0} tokens', tokenCount(gauge.outputReserve))}`,
    `- ${l10n.t('Usable for the conversation: {0} tokens', tokenCount(gauge.window - gauge.outputReserve))}`,
    `- ${l10n.t('Auto-compact threshold: {0} tokens ({1} of the window)', tokenCount(gauge.autoCompactThreshold), share(gauge.autoCompactThreshold, gauge.window))}`,
    `- ${l10n.t("Cache reads: {0}% of the last request's prompt came from the prompt cache", String(Math.round(gauge.cacheReadShare * 100)))}`,
    `- ${l10n.t('Session cost so far: {0}', word(sessionCostText(gauge)))}`,
    ...(hint ? [`  - ${word(hint)}`] : []),
    '',
  ];
}

const yesNo = (due: boolean) => (due ? l10n.t('yes') : l10n.t('no'));

function freeNow(input: BreakdownDocumentInput, savings: TierSavings): string[] {
  const { gauge, word } = input;
  const lines = [
    l10n.t(
      'Estimates if each step ran alone right now. Evergreen takes the first three by itself when their condition is met and they save more than they cost (a changed old result makes the next request read the conversation at full price once), and never touches the newest tool results. [How each step works](#how-it-works).',
    ),
    '',
    `| ${l10n.t('step')} | ${l10n.t('would free')} | ${l10n.t('due now')} | ${l10n.t('when it runs')} |`,
    '|---|---:|---|---|',
    ...savings.tiers.map((tier) => `| ${word(editTier(tier.tier).title)} | ${tierFrees(tier)} | ${yesNo(tier.due)} | ${word(tier.when)} |`),
    summaryRow(savings, gauge.usedTokens > gauge.autoCompactThreshold, input),
    '',
  ];
  const compaction = savings.summary;
  lines.push(
    compaction.possible
      ? l10n.t(
          'After a summary: ~{0} tokens kept word for word (system and tools included), ~{1} in files read again, and the summary itself (up to {2}). The full transcript always stays on disk.',
          tokenCount(compaction.keptTokens),
          tokenCount(compaction.restoredTokens),
          tokenCount(compaction.summaryMaxTokens),
        )
      : l10n.t('The full transcript always stays on disk.'),
    '',
  );
  return lines;
}

function tierFrees(tier: TierPreview): string {
  if (tier.items === 0) return l10n.t('nothing to do');
  return tier.items === 1 ? l10n.t('~{0} tokens (1 result)', tokenCount(tier.tokens)) : l10n.t('~{0} tokens ({1} results)', tokenCount(tier.tokens), String(tier.items));
}

function summaryRow(savings: TierSavings, due: boolean, { word, voice }: BreakdownDocumentInput): string {
  const compaction: SummarySavings = savings.summary;
  const manual =
    voice === 'cli'
      ? l10n.t('past the auto-compact threshold, or {0}', '`/compact [focus]`')
      : l10n.t('past the auto-compact threshold, or Compact Conversation / {0}', '`/compact [focus]`');
  if (!compaction.possible) return `| ${l10n.t('Summarize the conversation: not possible now, {0}', word(compaction.reason))} | — | ${yesNo(false)} | ${manual} |`;
  const after = `~${tokenCount(savings.usedTokens)} → ~${tokenCount(compaction.tokensAfter.min)}–${tokenCount(compaction.tokensAfter.max)}`;
  const frees =
    compaction.frees.max === 0
      ? l10n.t('nothing now ({0})', after)
      : l10n.t('~{0}–{1} tokens ({2})', tokenCount(compaction.frees.min), tokenCount(compaction.frees.max), after);
  const step = l10n.t('Summarize the conversation: {0} message(s) summarized, the newest {1} kept word for word', String(compaction.messagesSummarized), String(compaction.messagesKept));
  return `| ${step} | ${frees} | ${yesNo(due)} | ${manual} |`;
}

/** The mechanism behind the steps, in the engine's own names (README, "Context engine"), for those who want it. */
function howItWorks(tiers: readonly EditTier[], word: (text: UserText) => string): string[] {
  return [
    `## ${l10n.t('How it works')}`,
    '',
    l10n.t('The steps are the context engine\'s tiers (README, "Context engine"):'),
    '',
    `- ${l10n.t(
      "{0}: tier 0. A tool result too large for the conversation is saved whole in the session's folder; the conversation keeps its size, path and a head-and-tail preview, and the model reads on with `read_file`.",
      word(breakdownPartText('persistedPreviews')),
    )}`,
    ...tiers.map(
      (tier) =>
        `- ${l10n.t(
          '{0}: tier {1} (`{2}`). Its edits are recorded in the transcript; the original results stay there, and the model can read them back with `recall`.',
          word(tier.title),
          String(tier.level),
          tier.name,
        )}`,
    ),
    `- ${l10n.t("Summarize the conversation: tier 4 (compaction). The model writes a summary; the newest messages stay word for word, recently read files are read again, and the user's own words are never dropped.")}`,
    `- ${l10n.t('"Save more than they cost": the prompt cache makes a request re-read an unchanged conversation at a tenth of the price. An edit to an old result means the next request pays to write the cache again from that point, so tiers 1-3 wait until what they free repays that.')}`,
  ];
}
