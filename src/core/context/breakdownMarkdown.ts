/**
 * The context breakdown as a readable markdown document ("Evergreen: Show Context Breakdown"):
 * where the tokens go, the window's split, and what each tier would free if it ran now. Pure, so
 * the VS Code document and the tests render the same text.
 */
import { editTier, type EditTier } from './tiers';
import type { UserText } from '../texts/userText';
import { breakdownLines, breakdownPartText, priceUnknownHintText, sessionCostText, type ContextGauge } from './gauge';
import type { TierSavings } from './tierSavings';

export interface BreakdownDocumentInput {
  gauge: ContextGauge;
  /** Absent when the session's context strategy cannot preview its tiers. */
  savings: TierSavings | undefined;
  sessionId?: string | undefined;
  model?: string | undefined;
  at: Date;
  /** How this front end words what the gauge says (its label, the categories' names, the cost). */
  word: (text: UserText) => string;
}


const LEVEL_TEXT = {
  ok: 'Below the auto-compact threshold.',
  near: 'Near the auto-compact threshold: the conversation is summarized once it passes it.',
  past: 'Past the auto-compact threshold: the conversation is summarized before the next request.',
  over: 'Over the whole window: the next request fails unless compaction frees room first.',
} as const;

export function renderContextBreakdown(input: BreakdownDocumentInput): string {
  const { gauge, savings, word } = input;
  const { reading } = gauge;
  const window = Math.max(1, gauge.window);
  const n = (tokens: number) => Math.round(tokens).toLocaleString('en-US');
  const share = (tokens: number) => `${((tokens / window) * 100).toFixed(1)}%`;
  const approx = gauge.estimated ? '~' : '';
  const lines: string[] = ['# Evergreen — context breakdown', ''];
  const about = [input.sessionId ? `session \`${input.sessionId}\`` : undefined, input.model ? `model \`${input.model}\`` : undefined, `as of ${input.at.toISOString()}`].filter(Boolean);
  lines.push(`${about.join(' · ')}. Token counts are ${gauge.estimated ? 'estimates calibrated on the last request the API counted' : 'as the API counted the last request'}; this document is a snapshot — run **Evergreen: Show Context Breakdown** again to refresh it.`, '');
  lines.push(`**${word(reading.label)}** — ${LEVEL_TEXT[reading.level]}`, '');

  lines.push('## Where the tokens go', '', '| part | tokens | share of the window |', '|---|---:|---:|');
  if (gauge.breakdown) {
    for (const { key } of breakdownLines(gauge.breakdown)) lines.push(`| ${word(breakdownPartText(key))} | ${approx}${n(gauge.breakdown[key])} | ${share(gauge.breakdown[key])} |`);
  } else {
    lines.push('| (no breakdown from this context strategy) | | |');
  }
  const used = Math.max(0, gauge.usedTokens);
  const free = Math.round(reading.freeShare * window);
  const reserve = Math.round(reading.reserveShare * window);
  lines.push(
    `| **In use** | **${approx}${n(used)}** | **${share(used)}** |`,
    `| Reserved for the reply | ${n(reserve)} | ${share(reserve)} |`,
    `| Free | ${n(free)} | ${share(free)} |`,
    `| **Window** | **${n(gauge.window)}** | 100% |`,
    '',
  );
  if (reserve < gauge.outputReserve) lines.push(`The reply's reserve of ${n(gauge.outputReserve)} tokens is partly taken by the conversation.`, '');

  const hint = priceUnknownHintText(gauge.unpricedRequests);
  lines.push(
    '## Window',
    '',
    `- Window: ${n(gauge.window)} tokens`,
    `- Reserved for the reply (max output): ${n(gauge.outputReserve)} tokens`,
    `- Usable for the conversation: ${n(gauge.window - gauge.outputReserve)} tokens`,
    `- Auto-compact threshold: ${n(gauge.autoCompactThreshold)} tokens (${share(gauge.autoCompactThreshold)} of the window)`,
    `- Cache reads: ${Math.round(gauge.cacheReadShare * 100)}% of the last request's prompt came from the prompt cache`,
    `- Session cost so far: ${word(sessionCostText(gauge))}`,
    ...(hint ? [`  - ${word(hint)}`] : []),
    '',
  );

  lines.push('## What Evergreen could free now', '');
  if (!savings) {
    lines.push('This session\'s context strategy has no preview of what it could free.');
    return lines.join('\n') + '\n';
  }
  lines.push(
    'Estimates if each step ran alone right now. Evergreen takes the first three by itself when their condition is met and they save more than they cost (a changed old result makes the next request read the conversation at full price once), and never touches the newest tool results. [How each step works](#how-it-works).',
    '',
    '| step | would free | due now | when it runs |',
    '|---|---:|---|---|',
  );
  for (const tier of savings.tiers) {
    const what = tier.items === 0 ? 'nothing to do' : `~${n(tier.tokens)} tokens (${tier.items} result${tier.items === 1 ? '' : 's'})`;
    lines.push(`| ${sentence(editTier(tier.tier).title)} | ${what} | ${tier.due ? 'yes' : 'no'} | ${tier.when} |`);
  }
  const compaction = savings.summary;
  const manual = 'past the auto-compact threshold, or Compact Conversation / `/compact [focus]`';
  if (compaction.possible) {
    const after = `~${n(savings.usedTokens)} → ~${n(compaction.tokensAfter.min)}–${n(compaction.tokensAfter.max)}`;
    const frees = compaction.frees.max === 0 ? `nothing now (${after})` : `~${n(compaction.frees.min)}–${n(compaction.frees.max)} tokens (${after})`;
    lines.push(`| Summarize the conversation: ${compaction.messagesSummarized} message(s) summarized, the newest ${compaction.messagesKept} kept word for word | ${frees} | ${used > gauge.autoCompactThreshold ? 'yes' : 'no'} | ${manual} |`);
  } else {
    lines.push(`| Summarize the conversation: not possible now, ${compaction.reason} | — | no | ${manual} |`);
  }
  lines.push(
    '',
    compaction.possible
      ? `After a summary: ~${n(compaction.keptTokens)} tokens kept word for word (system and tools included), ~${n(compaction.restoredTokens)} in files read again, and the summary itself (up to ${n(compaction.summaryMaxTokens)}). The full transcript always stays on disk.`
      : 'The full transcript always stays on disk.',
    '',
    ...howItWorks(savings.tiers.map((tier) => editTier(tier.tier)), word(breakdownPartText('persistedPreviews'))),
  );
  return lines.join('\n') + '\n';
}

function sentence(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The mechanism behind the steps, in the engine's own names (README, "Context engine"), for those who want it. */
function howItWorks(tiers: readonly EditTier[], persistedPreviews: string): string[] {
  return [
    '## How it works',
    '',
    'The steps are the context engine\'s tiers (README, "Context engine"):',
    '',
    `- ${persistedPreviews}: tier 0. A tool result too large for the conversation is saved whole in the session's folder; the conversation keeps its size, path and a head-and-tail preview, and the model reads on with \`read_file\`.`,
    ...tiers.map((tier) => `- ${sentence(tier.title)}: tier ${tier.level} (\`${tier.name}\`). Its edits are recorded in the transcript; the original results stay there, and the model can read them back with \`recall\`.`),
    '- Summarize the conversation: tier 4 (compaction). The model writes a summary; the newest messages stay word for word, recently read files are read again, and the user\'s own words are never dropped.',
    '- "Save more than they cost": the prompt cache makes a request re-read an unchanged conversation at a tenth of the price. An edit to an old result means the next request pays to write the cache again from that point, so tiers 1-3 wait until what they free repays that.',
  ];
}
