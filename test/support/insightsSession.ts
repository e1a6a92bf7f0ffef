// A long session's transcript as the engine writes one, generated: requests whose prompt grows
// turn by turn, tier edits, saved outputs, subagents, summaries at the threshold. For the insights
// panel's tests (300 requests) and its benchmark (10,000). Deterministic for a seed.
import type { TranscriptEntry } from '../../src/core/storage/transcript';
import { contextBudget } from '../../src/core/context/gauge';

export const SYNTHETIC_MODEL = 'claude-sonnet-4-6';
export const SYNTHETIC_BUDGET = { window: 200_000, maxOutputTokens: 32_000 } as const;
/** Sonnet's list price per million tokens, as models.ts has it. */
const PRICE = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };

export interface SyntheticOptions {
  requests: number;
  seed?: number;
  /** Characters of each tool result's text (the transcript's bulk); default 1,500. */
  resultChars?: number;
}

export function syntheticSession(options: SyntheticOptions): TranscriptEntry[] {
  let seed = options.seed ?? 7;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const between = (low: number, high: number) => Math.round(low + random() * (high - low));
  const start = Date.UTC(2026, 0, 5, 9, 0, 0);
  let clock = start;
  const ts = () => new Date((clock += between(2_000, 9_000))).toISOString();
  const threshold = contextBudget(SYNTHETIC_BUDGET.window, SYNTHETIC_BUDGET.maxOutputTokens).threshold;
  const filler = 'x'.repeat(options.resultChars ?? 1_500);
  const entries: TranscriptEntry[] = [{ type: 'system_prompt', ts: ts(), text: 'You are Evergreen.' }, { type: 'message', ts: ts(), message: { role: 'user', content: 'Survey the repository and fix the failing tests.' } }];
  let canonical = 1;
  let prompt = 11_000;
  let cached = 0;
  const cost = (usage: { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number }) =>
    (usage.inputTokens * PRICE.input + usage.outputTokens * PRICE.output + usage.cacheReadTokens * PRICE.cacheRead + usage.cacheWriteTokens * PRICE.cacheWrite) / 1_000_000;
  for (let request = 1; request <= options.requests; request++) {
    if (request % 23 === 0 && prompt > 40_000) {
      // A tier clears old results; the cache is rewritten from the first edit on.
      const after = Math.round(prompt * (0.7 + random() * 0.15));
      entries.push({ type: 'tier_edit', ts: ts(), tier: request % 46 === 0 ? 'budget' : 'microcompact', edits: Array.from({ length: between(2, 9) }, (_, index) => ({ toolUseId: `t${request}_${index}`, action: 'clear' as const })), tokensBefore: prompt, tokensAfter: after });
      prompt = after;
      cached = Math.round(after * 0.4);
    }
    if (prompt > threshold) {
      const summaryUsage = { inputTokens: 200, outputTokens: between(1_500, 3_000), cacheReadTokens: cached, cacheWriteTokens: 0 };
      entries.push({ type: 'usage', ts: ts(), model: SYNTHETIC_MODEL, usage: summaryUsage, costUsd: cost(summaryUsage) });
      const after = between(18_000, 30_000);
      entries.push({
        type: 'compaction',
        ts: ts(),
        compaction: { id: `c${request}`, trigger: 'auto', summary: 'What happened so far.', keptFrom: canonical - 4, restoredFiles: [], stats: { tokensBefore: prompt, tokensAfter: after, messagesSummarized: canonical - 4, messagesKept: 4, summaryRequests: 1 } },
      });
      prompt = after;
      cached = 0;
    }
    const usage = { inputTokens: between(3, 400), outputTokens: between(150, 1_800), cacheReadTokens: cached, cacheWriteTokens: Math.max(0, prompt - cached) };
    usage.cacheWriteTokens = Math.max(0, prompt - cached - usage.inputTokens);
    entries.push({ type: 'usage', ts: ts(), model: SYNTHETIC_MODEL, usage, costUsd: cost(usage), request: { canonicalCount: canonical, liveCount: canonical, liveChars: prompt * 4 } });
    const id = `t${request}`;
    entries.push({ type: 'message', ts: ts(), model: SYNTHETIC_MODEL, provider: 'anthropic', message: { role: 'assistant', content: [{ type: 'text', text: `Step ${request}.` }, { type: 'tool_use', id, name: 'read_file', input: { path: `src/file${request % 97}.ts` } }] } });
    if (request % 41 === 0) entries.push({ type: 'persisted_output', ts: ts(), toolUseId: id, toolName: 'run_shell', file: `/storage/tool-results/${id}.txt`, bytes: 90_000, lines: 1_800, tokensBefore: 22_000, tokensAfter: 900 });
    if (request % 67 === 0) {
      const child = { inputTokens: 9_000, outputTokens: 800, cacheReadTokens: 4_000, cacheWriteTokens: 2_000 };
      entries.push({ type: 'usage', ts: ts(), model: SYNTHETIC_MODEL, usage: child, costUsd: cost(child), childId: `child${request}` });
    }
    entries.push({ type: 'message', ts: ts(), message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: filler }] } });
    canonical += 2;
    cached = prompt;
    prompt += between(600, 4_000);
  }
  return entries;
}
