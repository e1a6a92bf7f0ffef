/**
 * One round: the tool calls of one model response, from the calls as the model wrote them to the
 * results the next request sends. A call's path through the round:
 *
 *   not run at all (the reply was cut off, the turn's round limit, cancelled): answered with why
 *   → `tool_call_started` → refused (its input is not JSON or nests too deeply, or the turn's gate
 *     does not allow the tool): answered with why
 *   → run through the registry (approvals happen inside, through `ctx.approve`; effects a tool
 *     reports during its run, through `ctx.report`, are handled before it goes on)
 *   → tier 0 (the result as the history will record it) → `tool_call_finished`
 *   → the result's effects, each to its handler (effects.ts) → the tool_result block.
 *
 * After the results, in the same user message: the instruction files of the folders the calls read.
 *
 * Hooks around a call (agent/hooks.ts): PreToolUse between the refusal and the run (deny: a
 * refusal; ask: an approval; allow: no prompt for this call, except what never goes unasked),
 * PostToolUse after tier 0 and the effects (its text goes after the round's results, with a folder's
 * instructions, through the session's notesAfter). The session's mode refuses a call
 * before them (`RoundHost.refusal`), and a call's effect may end the turn after the round.
 */
import type { ContentBlockParam, ImageBlockParam } from '../model/messages';
import type { ModelResponse } from '../model/backend';
import type { ToolUseBlock } from '../model/content';
import type { ToolRegistry } from '../tools/registry';
import { nestedDeeperThan, tooDeepInputMessage } from '../tools/toolInput';
import type { ToolContext, ToolResult } from '../tools/types';
import { dispatchEffects, type EffectHandlers } from './effects';
import type { AgentEvent } from './events';
import { invalidToolInputResult } from './responseContent';
import type { ToolCard } from './toolCards';
import type { CallHooks } from './hooks';

export const CANCELLED_BEFORE_RUN = 'Cancelled by the user before this tool call ran.';
export const ROUND_LIMIT_TOOL_RESULT = 'Not run: this turn reached its limit of tool rounds. Summarize where the task stands; the user can say "continue".';
export const MAX_TOKENS_TOOL_RESULT = 'Not run: your reply hit the output token limit before this tool call was complete. Retry with a smaller input (for large files, write them in parts).';

/** One call of the round. */
export interface RoundCall {
  /** As the history records it (id made unique; input `{}` when it could not be used). */
  readonly toolUse: ToolUseBlock;
  /** Why the call is not run, told to the model as its result: its input was not JSON, or nests too deeply. */
  readonly refusal: string | undefined;
  /** The result as recorded, once the call has run (or was answered without running). */
  result?: ToolResult;
}

/** Why no call of the round runs (each is answered with the reason); undefined: they run. */
export type RoundStop = 'max_tokens' | 'round_limit' | undefined;

/**
 * Refuses calls of tools the turn does not allow (a slash command's `allowed-tools`), in words for
 * the model; undefined: the call may run. The tool list sent stays the same for every turn, so a
 * narrower turn does not rewrite the cached prefix: the gate holds it per call. It only refuses:
 * what it lets through still goes through every approval.
 */
export type CallGate = (toolName: string) => string | undefined;

/** What the session lends a round. */
export interface RoundHost {
  readonly tools: Pick<ToolRegistry, 'get' | 'headline' | 'card' | 'executeToolCall'>;
  /** Tier 0: the result as the history will hold it (a huge one persisted and previewed). */
  recordResult(result: { toolUseId: string; toolName: string; content: string }): Promise<string>;
  /** What the call's card shows besides its text (web_fetch's page), kept so a resumed chat shows it too. */
  recordCard(card: ToolCard): void;
  emit(event: AgentEvent): void;
  /** Files, approvals and capabilities for one call (the round adds `report`); `preApproved`: a hook or the user allowed the call already (approval.ts decidePreApproved). */
  toolContext(turnId: string, toolUseId: string, signal: AbortSignal, preApproved?: boolean): ToolContext;
  /** PreToolUse and PostToolUse (agent/hooks.ts); absent: no hooks. */
  readonly hooks?: CallHooks;
  readonly effects: EffectHandlers;
  /** Notes that ride after the results: the instruction files of the folders read, not yet in view (none: []). */
  notesAfter(round: ToolRound): Promise<ContentBlockParam[]>;
  /** Why the session's mode refuses a call (agent/modes.ts), told to the model as its result; absent or undefined: it may run. */
  refusal?(toolUse: ToolUseBlock): string | undefined;
}

/**
 * The response's tool calls with their refusals: `content` is the response as params (toParams keeps
 * the calls in order, ids may be rewritten), so the i-th tool_use there is the i-th in the response.
 * An input nested too deeply is refused before it is recorded or run (recording it would overflow
 * JSON.stringify's stack and stop the transcript while the tool still ran): its tool_use gets `{}`,
 * like an input that did not parse. Call this before the assistant message is recorded.
 */
export function roundCalls(response: Pick<ModelResponse, 'content' | 'invalidToolInputs'>, content: readonly ContentBlockParam[]): RoundCall[] {
  const toolUses = content.filter((block): block is ToolUseBlock => block.type === 'tool_use');
  const calls: RoundCall[] = [];
  response.content.forEach((block, index) => {
    if (block.type !== 'tool_use') return;
    const toolUse = toolUses[calls.length]!;
    const invalid = response.invalidToolInputs?.get(index);
    if (invalid) return void calls.push({ toolUse, refusal: invalidToolInputResult(invalid) });
    if (!nestedDeeperThan(toolUse.input)) return void calls.push({ toolUse, refusal: undefined });
    toolUse.input = {};
    calls.push({ toolUse, refusal: `Not run: ${tooDeepInputMessage()}` });
  });
  return calls;
}

export class ToolRound {
  /** Folders this round's calls read (`folders_read` effects): their instruction files come after the results. */
  readonly foldersRead: string[] = [];
  /** A call's effect asked the turn to end after this round (a plan proposed for the user's decision). */
  endsTurn = false;

  readonly turnId: string;
  readonly calls: readonly RoundCall[];
  private readonly signal: AbortSignal;
  private readonly stop: RoundStop;
  private readonly gate: CallGate | undefined;

  constructor(
    private readonly host: RoundHost,
    round: { turnId: string; calls: readonly RoundCall[]; signal: AbortSignal; stop?: RoundStop; gate?: CallGate | undefined },
  ) {
    ({ turnId: this.turnId, calls: this.calls, signal: this.signal, stop: this.stop, gate: this.gate } = round);
  }

  /**
   * Runs the calls, resolving to the content of the user message that answers them: their
   * tool_result blocks in the calls' order, then the notes (not after a cancel). Calls of a parallel
   * tool (`task`) that follow each other run at once; every other call runs alone, in order.
   */
  async run(): Promise<ContentBlockParam[]> {
    const results: ContentBlockParam[] = [];
    const parallel = (position: number) => this.host.tools.get(this.calls[position]!.toolUse.name)?.parallel === true;
    for (let position = 0; position < this.calls.length; ) {
      let end = position + 1;
      if (parallel(position)) while (end < this.calls.length && parallel(end)) end++;
      const batch = await Promise.allSettled(this.calls.slice(position, end).map((call) => this.runCall(call)));
      for (const outcome of batch) {
        if (outcome.status === 'rejected') throw outcome.reason;
        results.push(outcome.value);
      }
      position = end;
    }
    return this.signal.aborted ? results : [...results, ...(await this.host.notesAfter(this))];
  }

  private async runCall(call: RoundCall): Promise<ContentBlockParam> {
    const { toolUse } = call;
    const notRun = this.signal.aborted ? CANCELLED_BEFORE_RUN : this.stop === 'max_tokens' ? MAX_TOKENS_TOOL_RESULT : this.stop === 'round_limit' ? ROUND_LIMIT_TOOL_RESULT : undefined;
    if (notRun !== undefined) return this.answer(call, { content: notRun, isError: true });
    const base = { turnId: this.turnId, toolUseId: toolUse.id, name: toolUse.name };
    const card = this.host.tools.card(toolUse.name, toolUse.input);
    this.host.emit({ type: 'tool_call_started', ...base, input: toolUse.input, headline: this.host.tools.headline(toolUse.name, toolUse.input), ...(card ? { card } : {}) });
    const refusal = call.refusal ?? this.host.refusal?.(toolUse) ?? this.gate?.(toolUse.name);
    if (refusal !== undefined) {
      // An answer for the model, not a failed request: retrying would not change what it wrote.
      this.host.emit({ type: 'tool_call_finished', ...base, isError: true, content: refusal, durationMs: 0 });
      return this.answer(call, { content: refusal, isError: true });
    }
    // PreToolUse: deny is the call's refusal, ask an approval, allow no prompt for this call.
    const gate = this.host.hooks ? await this.host.hooks.beforeCall({ turnId: this.turnId, toolUse, signal: this.signal, approve: (request) => this.host.toolContext(this.turnId, toolUse.id, this.signal).approve(request) }) : { preApproved: false };
    if ('refusal' in gate) {
      this.host.emit({ type: 'tool_call_finished', ...base, isError: true, content: gate.refusal, durationMs: 0 });
      return this.answer(call, { content: gate.refusal, isError: true });
    }
    const site = { turnId: this.turnId, toolUseId: toolUse.id, foldersRead: this.foldersRead, endTurn: () => void (this.endsTurn = true) };
    const ctx: ToolContext = {
      ...this.host.toolContext(this.turnId, toolUse.id, this.signal, gate.preApproved),
      report: (effect) => dispatchEffects(this.host.effects, [effect], { ...site, recorded: undefined }),
    };
    const started = Date.now();
    const result = await this.host.tools.executeToolCall(toolUse.name, toolUse.input, ctx);
    const content = await this.host.recordResult({ toolUseId: toolUse.id, toolName: toolUse.name, content: result.content || '(no output)' });
    if (result.web) this.host.recordCard({ toolUseId: toolUse.id, web: result.web });
    this.host.emit({ type: 'tool_call_finished', ...base, isError: result.isError === true, content, durationMs: Date.now() - started, ...(result.web ? { web: result.web } : {}) });
    await dispatchEffects(this.host.effects, result.effects ?? [], { ...site, recorded: content });
    // PostToolUse sees the result as recorded; what it says rides after the round's results.
    await this.host.hooks?.afterCall({ turnId: this.turnId, toolUse, result: { content, isError: result.isError === true }, signal: this.signal });
    return this.answer(call, { ...result, content });
  }

  /** Keeps the result on the call and words it as the tool_result block. */
  private answer(call: RoundCall, result: ToolResult): ContentBlockParam {
    call.result = result;
    // Images travel as image blocks after the text (tier 0 saw only the text: no base64 is ever inlined as words).
    const images = (result.images ?? []).map((image): ImageBlockParam => ({ type: 'image', source: { type: 'base64', media_type: image.mediaType, data: image.data } }));
    return { type: 'tool_result', tool_use_id: call.toolUse.id, content: images.length > 0 ? [{ type: 'text', text: result.content }, ...images] : result.content, ...(result.isError ? { is_error: true } : {}) };
  }
}
