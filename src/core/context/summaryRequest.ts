/**
 * The summary request of a compaction: the live view plus the instruction, sharing its cached
 * prefix, fitted into the window by shrinking old tool results and then dropping the oldest rounds
 * (up to `summaryFitTries` tries, also when the API counts more than the estimate).
 */
import { ModelError } from '../model/errors';
import type { MessageParam, ServerTools, ToolParam } from '../model/messages';
import type { RequestCost } from '../model/cost';
import type { UsageCounts } from '../model/models';
import type { Logger } from '../logger';
import { dropOldestRounds, shrinkToolResults, withInstruction } from './compactionHelpers';
import type { ContextDefaults } from './defaults';
import type { SummaryModel } from './engineTypes';
import type { ContextBudget } from './gauge';
import { extractSummary, summaryInstruction, SummaryError } from './summary';
import { userText } from '../texts/userText';

/** What the summary request needs from the engine. */
export interface SummaryRequestDeps {
  model: SummaryModel;
  system: string;
  tools: readonly ToolParam[];
  /** The session's server tools: the same prefix as its requests, and its web search blocks stay valid. */
  serverTools?: ServerTools;
  settings: Pick<ContextDefaults, 'summaryMaxTokens' | 'keepRecentResults' | 'budgetHardChars' | 'summaryFitTries'>;
  budget: Pick<ContextBudget, 'window' | 'outputReserve'>;
  estimateTokens: (messages: readonly MessageParam[]) => number;
  logger: Logger;
  onModelUsage?: ((usage: UsageCounts, cost: RequestCost) => void) | undefined;
}

/** The summary request: the live view + the instruction, sharing its cached prefix; fitted by dropping oldest rounds (up to 3 tries). */
export async function requestSummary(live: MessageParam[], keptCount: number, focus: string | undefined, signal: AbortSignal, deps: SummaryRequestDeps): Promise<{ summary: string; requests: number }> {
  const { settings, logger } = deps;
  const keptNote =
    keptCount > 0 ? `The newest ${keptCount} message(s) stay in the context verbatim after the summary; summarize everything, but put the weight on what they do not show.` : '';
  const maxTokens = Math.max(1, Math.min(settings.summaryMaxTokens, deps.budget.outputReserve));
  const room = deps.budget.window - maxTokens;
  const instruction = summaryInstruction(focus, keptNote);
  const estimateWith = (messages: readonly MessageParam[]) => deps.estimateTokens(withInstruction(messages, instruction).messages);
  let messages = live;
  if (estimateWith(messages) > room) {
    // Old tool results go first (their tool calls stay, so the summary still knows what was done);
    // only if that is not enough do whole rounds go, and the user's words travel along.
    messages = shrinkToolResults(messages, settings.keepRecentResults, settings.budgetHardChars);
    logger.warn('summary request: old tool results left out so it fits the window');
  }
  let lastError: unknown;
  for (let attempt = 0; attempt < settings.summaryFitTries; attempt++) {
    if (estimateWith(messages) > room) {
      const fitted = dropOldestRounds(messages, estimateWith, room * 0.95);
      if (fitted.length === messages.length || estimateWith(fitted) > room) throw new SummaryError('the conversation cannot be shortened enough for the summary request to fit the window', userText('context.summaryCannotFit', {}));
      logger.warn(`summary request: dropped the ${messages.length - fitted.length} oldest message(s) so it fits the window`);
      messages = fitted;
    }
    const request = withInstruction(messages, instruction);
    // Never with thinking (issue 21): a summary needs none, and the instruction as the last user
    // message keeps it free of an assistant prefill, which thinking (and the Claude 5.5 family) refuse.
    try {
      const response = await deps.model.stream(
        { system: deps.system, tools: [...deps.tools], messages: request.messages, maxTokens, cache: { system: true, messageIndexes: request.breakpoints }, ...(deps.serverTools ? { serverTools: deps.serverTools } : {}) },
        {},
        signal,
      );
      deps.onModelUsage?.(response.usage, response);
      const text = response.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
      return { summary: extractSummary(text), requests: attempt + 1 };
    } catch (error) {
      lastError = error;
      const tooLong = !signal.aborted && error instanceof ModelError && error.kind === 'prompt_too_long';
      if (!tooLong) throw error;
      // The API counted more than the estimate: drop a third more of the oldest rounds and try again.
      logger.warn(`summary request too long (try ${attempt + 1} of ${settings.summaryFitTries}); dropping the oldest rounds`);
      const fitted = dropOldestRounds(messages, estimateWith, estimateWith(messages) * 0.7);
      if (fitted.length === messages.length) throw error;
      messages = fitted;
    }
  }
  throw lastError instanceof Error ? lastError : new SummaryError(`the summary request did not fit after ${settings.summaryFitTries} tries`, userText('context.summaryDidNotFit', { tries: settings.summaryFitTries }));
}
