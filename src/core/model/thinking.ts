/**
 * Extended thinking (issue 21): the seam between the setting and the back ends. The setting
 * (`evergreen.thinking`, `--thinking`) is resolved per model into a `ThinkingRequest`; each back
 * end turns that into its own parameter (Anthropic's `thinking`, OpenAI's `reasoning_effort`).
 * Which model thinks how is the facts table's (models.ts, `thinking`); every number is here.
 */
import type { ProviderId } from './providers';
import { thinkingFactsFor, type ThinkingFacts } from './models';
import { userText } from '../texts/userText';
import { settingRef, type UserText } from '../texts/userText';

/** `evergreen.thinking` / `--thinking`: off, auto (a budget the model facts choose; off where unsupported), or a budget in tokens. */
export type ThinkingSetting = 'off' | 'auto' | number;

/** What one request asks for; a request without it asks for no thinking. */
export interface ThinkingRequest {
  /** Tokens the model may think with (at least 1024 on Anthropic). */
  budgetTokens: number;
}

export const THINKING_DEFAULTS = {
  /** The smallest budget Anthropic accepts (`budget_tokens` ≥ 1024); smaller settings are refused. */
  minBudgetTokens: 1024,
  /**
   * `auto`: 8,000 tokens. Beside the default 16,000-token reply it keeps the output reserve at
   * 24,000, inside the 20% reserve cap of any window from 120k up, so it never squeezes the reply;
   * it is enough for the planning a coding step needs (Anthropic suggests starting small and
   * raising it; most gains come well below 32k) and costs at most 8,000 output tokens a request.
   * On effort-based models it reads as "medium".
   */
  autoBudgetTokens: 8_000,
  /** The reply keeps at least this much of max_tokens beside the budget (or the whole reply setting, if smaller). */
  minReplyTokens: 4_096,
  /** Budgets below this read as low effort, below `highEffortFrom` as medium, the rest as high. */
  mediumEffortFrom: 4_096,
  highEffortFrom: 16_384,
} as const;

/** The effort a budget reads as on models that take an effort instead of a budget (OpenAI's reasoning_effort, Anthropic's adaptive output_config.effort). */
export type ThinkingEffort = 'low' | 'medium' | 'high';

/** < 4,096 low, < 16,384 medium, else high: the budget's order of magnitude, as the effort levels are described. */
export function effortForBudget(budgetTokens: number): ThinkingEffort {
  if (budgetTokens < THINKING_DEFAULTS.mediumEffortFrom) return 'low';
  return budgetTokens < THINKING_DEFAULTS.highEffortFrom ? 'medium' : 'high';
}

/** A setting's words as the user writes them ("off", "auto", "8000"). */
export function thinkingSettingText(setting: ThinkingSetting): string {
  return typeof setting === 'number' ? String(setting) : setting;
}

/**
 * A raw setting or flag value: "off", "auto", or a whole number of tokens ≥ 1024 (as a number or
 * its digits). Anything else is a problem naming what is accepted.
 */
export function parseThinkingSetting(value: unknown): { setting: ThinkingSetting } | { problem: string } {
  const accepted = `"off", "auto" or a budget in tokens (a whole number from ${THINKING_DEFAULTS.minBudgetTokens})`;
  if (value === 'off' || value === 'auto') return { setting: value };
  const number = typeof value === 'number' ? value : typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(number)) return { problem: `must be ${accepted}, got ${JSON.stringify(value)}` };
  if (number < THINKING_DEFAULTS.minBudgetTokens) return { problem: `a budget of ${number} tokens is below the ${THINKING_DEFAULTS.minBudgetTokens} the API accepts; use ${accepted}` };
  return { setting: number };
}

export interface ThinkingNotice {
  level: 'warning' | 'info';
  message: UserText;
}

export interface ThinkingResolution {
  /** What each request asks for; undefined: no thinking parameter is sent. */
  request: ThinkingRequest | undefined;
  /** The reply setting raised by the budget: the engine reserves it, so the window keeps room for both. */
  maxOutputTokens: number;
  facts: ThinkingFacts;
  /** Said once at session start when the setting could not be used as written (and what was done instead). */
  notice?: ThinkingNotice;
}

export interface ThinkingContext {
  provider: ProviderId;
  model: string;
  /** `evergreen.maxOutputTokens`: the reply's own room. */
  maxOutputTokens: number;
  /** The most max_tokens may be: the reserve's cap in this window, and the model's own output limit when known. */
  outputCap: number;
  /** The model's own output limit, when known: a larger window cannot lift it, so the advice differs. */
  modelOutputLimit?: number;
}

/** What would make room for more thinking: a larger window lifts the reserve's cap, never the model's own limit. */
function roomAdvice(context: ThinkingContext): UserText {
  const modelBound = context.modelOutputLimit !== undefined && context.outputCap >= context.modelOutputLimit;
  return modelBound ? userText('start.thinkingRoomModelLimit', { model: context.model, cap: context.outputCap }) : userText('start.thinkingRoomWindow', { setting: settingRef('contextWindow') });
}

/**
 * The notice for a budget lowered to fit, true for what is sent: the budget form sends the budget;
 * the adaptive and effort forms send only the effort it reads as, so a lowered budget that reads
 * as the same effort changes nothing and says nothing. Information, not a warning: the session
 * thinks as well as this model can here.
 */
function loweredNotice(form: ThinkingFacts['form'], wanted: number, budgetTokens: number, context: ThinkingContext): ThinkingNotice | undefined {
  if (form === 'budget') {
    return { level: 'info', message: userText('start.thinkingLowered', { used: budgetTokens, wanted, advice: roomAdvice(context) }) };
  }
  const [asked, sent] = [effortForBudget(wanted), effortForBudget(budgetTokens)];
  if (asked === sent) return undefined;
  return { level: 'info', message: userText('start.thinkingEffortLowered', { sent, asked, advice: roomAdvice(context) }) };
}

/**
 * The setting for one model: off, a model that cannot think, or a budget that cannot fit give no
 * request (with a notice saying why and what to change); a budget too large for the reserve is
 * lowered to what fits (with a notice). Never a request the API would refuse.
 */
export function resolveThinking(setting: ThinkingSetting, context: ThinkingContext): ThinkingResolution {
  const facts = thinkingFactsFor(context.provider, context.model);
  const none = (notice?: ThinkingNotice): ThinkingResolution => ({ request: undefined, maxOutputTokens: context.maxOutputTokens, facts, ...(notice ? { notice } : {}) });
  if (setting === 'off') return none();
  if (facts.form === 'none') {
    if (setting === 'auto') return none({ level: 'info', message: userText('start.thinkingUnsupportedAuto', { model: context.model }) });
    return none({ level: 'warning', message: userText('start.thinkingUnsupported', { setting: settingRef('thinking'), budget: setting, model: context.model }) });
  }
  const wanted = setting === 'auto' ? THINKING_DEFAULTS.autoBudgetTokens : setting;
  const replyFloor = Math.min(context.maxOutputTokens, THINKING_DEFAULTS.minReplyTokens);
  const room = Math.min(context.outputCap - replyFloor, wanted);
  if (room < THINKING_DEFAULTS.minBudgetTokens) {
    const noRoom = { outputCap: context.outputCap, minBudget: String(THINKING_DEFAULTS.minBudgetTokens), replyFloor, advice: roomAdvice(context) };
    return none({ level: 'warning', message: userText('start.thinkingNoRoom', noRoom) });
  }
  const budgetTokens = room;
  const maxOutputTokens = Math.min(context.maxOutputTokens + budgetTokens, Math.max(context.maxOutputTokens, context.outputCap));
  const request = { budgetTokens };
  const notice = budgetTokens < wanted ? loweredNotice(facts.form, wanted, budgetTokens, context) : undefined;
  return { request, maxOutputTokens, facts, ...(notice ? { notice } : {}) };
}

/**
 * The budget as one request can take it once its max_tokens is final (a learned window or the
 * model's limit may have lowered it): lowered to leave the reply its floor, undefined when under
 * 1024 tokens would remain (that request goes without thinking).
 */
export function fitThinking(request: ThinkingRequest | undefined, maxTokens: number): ThinkingRequest | undefined {
  if (!request) return undefined;
  const reply = Math.min(THINKING_DEFAULTS.minReplyTokens, Math.floor(maxTokens / 2));
  const budgetTokens = Math.min(request.budgetTokens, maxTokens - reply);
  return budgetTokens >= THINKING_DEFAULTS.minBudgetTokens ? { budgetTokens } : undefined;
}
