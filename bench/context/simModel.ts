/**
 * The simulated model behind the fake API (its responder). Deterministic, and it decides ONLY from
 * the request it receives — that is what makes forgetting measurable:
 *
 * - progress = the highest step it can see done in the request: its own "Step k: ..." text before
 *   each tool call, or a summary line "completed steps 1-k" written by the simulated summarizer;
 * - target  = the highest "do steps a-b" the user asked for that it can see;
 * - progress < target: it does step progress+1 (one tool call); a step done before is REDONE;
 * - otherwise it ends the turn; after the last step it gives the final answer, listing every user
 *   fact (FACT-nn codeword) it can see in that request (facts kept).
 *
 * Some steps need the exact output of an earlier read or search (workspace.ts, NEED_EVERY). The
 * model uses it from the request when that result is there whole; otherwise, with a strategy
 * that has `recall`, it recalls it by id (the id from the call or a placeholder in view, else
 * from a `recall {query}` for that call) and, without recall, runs the earlier call again. The
 * answer counts only when it is exactly the output the step saw then (a digest of it, kept by the
 * grader, never shown to the model's decisions): a file the workload changed or deleted since
 * makes a re-run fail. These calls are extra requests, not steps.
 *
 * A summary request (Evergreen's "CONTEXT COMPACTION" instruction, or the seeds' prompts) is
 * answered with <analysis>/<summary> that reports only the progress, user requests and facts
 * visible in THAT request: a summarizer shown the head of a history reports early progress.
 */
import { createHash } from 'node:crypto';
import type { MessagesRequestBody, ScriptedReply } from '../../test/fake-anthropic/server';
import { RECALL_TOOL } from '../../src/core/tools/recallRef';
import { planStep, type StepPlan, type WorkspaceInfo } from './workspace';

/** What the steps that need an earlier output exactly did, per run. */
export interface NeedStats {
  /** Steps that needed an earlier output exactly. */
  needs: number;
  /** Of those, the ones whose file the workload changed or deleted in between. */
  nonReproducible: number;
  /** Answered from the request itself (the result was still there whole). */
  inView: number;
  /** Answered exactly after recall or a re-run. */
  fetched: number;
  /** Answered with anything but the exact output (or given up on). */
  failed: number;
  recallCalls: number;
  /** recall calls whose result held the exact output. */
  recallHits: number;
  reruns: number;
}

const digest = (text: string) => createHash('sha1').update(text).digest('hex');
/** The model's own extra calls: never "Step k:", so they are not progress. */
const FETCH_ID = /^toolu_fetch_(\d+)_\d+$/;

export interface Fact {
  id: number;
  module: number;
  codeword: string;
}

export function makeFacts(count: number): Fact[] {
  const syllables = ['KA', 'RO', 'MI', 'TE', 'ZU', 'LO', 'VA', 'NE', 'SHI', 'PO', 'DRA', 'QUE'];
  return Array.from({ length: count }, (_, i) => ({
    id: i + 1,
    module: (i * 7) % 60,
    codeword: `${syllables[i % 12]}${syllables[(i * 5 + 3) % 12]}${syllables[(i * 7 + 1) % 12]}${10 + i}`,
  }));
}

export const factText = (fact: Fact) => `FACT-${String(fact.id).padStart(2, '0')}: the codeword for module ${fact.module} is ${fact.codeword}`;

const SUMMARY_PROMPTS = ['CONTEXT COMPACTION', 'Summarize this conversation', 'Summarize the conversation so far'];

interface Seen {
  texts: string[];
  progress: number;
  steps: Set<number>;
  target: number | undefined;
  requests: string[];
  facts: Set<number>;
}

export class SimModel {
  /** Every step executed, with how many times. */
  readonly executed = new Map<number, number>();
  redone = 0;
  summaries = 0;
  mainRequests = 0;
  prefillRequests = 0;
  lostTask = 0;
  gaveUp = false;
  final: { factsKept: number } | undefined;
  /** Facts visible in the newest main request (for runs that never reach the final answer). */
  lastFactsSeen = 0;
  readonly need: NeedStats = { needs: 0, nonReproducible: 0, inView: 0, fetched: 0, failed: 0, recallCalls: 0, recallHits: 0, reruns: 0 };
  /** Per request answered (main and summary, in order): whether it asked for an earlier output. */
  readonly fetchRequests: boolean[] = [];
  private ids = 0;
  private readonly plans = new Map<number, StepPlan>();
  /** The grader's record: digest of each step's output as the request after its call showed it. */
  private readonly truth = new Map<number, string>();
  /** Need steps already settled (answered or failed), so a later request does not count them twice. */
  private readonly settled = new Map<number, boolean>();

  /** `recall`: whether the strategy offers the recall tool (the seeds do not). */
  constructor(
    private readonly totalSteps: number,
    private readonly facts: readonly Fact[],
    private readonly workspace: Pick<WorkspaceInfo, 'sourceFiles' | 'logFiles'>,
    private readonly recall = false,
  ) {}

  private plan(step: number): StepPlan {
    let plan = this.plans.get(step);
    if (!plan) {
      plan = planStep(step, this.workspace);
      this.plans.set(step, plan);
    }
    return plan;
  }

  get stepsDone(): number {
    return this.executed.size;
  }

  respond(request: MessagesRequestBody): ScriptedReply {
    const reply = this.reply(request);
    const fetching = reply.kind === 'message' && reply.content.some((block) => block.type === 'tool_use' && FETCH_ID.test(String(block.id)));
    this.fetchRequests.push(fetching);
    return reply;
  }

  private reply(request: MessagesRequestBody): ScriptedReply {
    const seen = this.scan(request);
    if (isSummaryRequest(request)) {
      this.summaries++;
      return { kind: 'message', content: [{ type: 'text', text: this.summaryText(seen, request.messages.length) }] };
    }
    this.recordTruth(request);
    this.mainRequests++;
    this.lastFactsSeen = seen.facts.size;
    if (request.messages.at(-1)?.role === 'assistant') this.prefillRequests++;
    if (this.mainRequests > this.totalSteps * 3 + 50) {
      this.gaveUp = true;
      return text('I keep losing track of my progress; stopping here.');
    }
    if (seen.target === undefined) {
      this.lostTask++;
      return text('I do not see a task to work on; tell me what to do.');
    }
    if (seen.progress < seen.target) {
      const step = seen.progress + 1;
      const plan = this.plan(step);
      const fetch = plan.needs ? this.needFor(step, plan.needs, request) : undefined;
      if (fetch) return fetch;
      const count = this.executed.get(step) ?? 0;
      if (count > 0) this.redone++;
      this.executed.set(step, count + 1);
      return {
        kind: 'message',
        content: [
          { type: 'text', text: plan.text },
          { type: 'tool_use', id: `toolu_bench_${step}_${++this.ids}`, name: plan.name, input: plan.input },
        ],
      };
    }
    if (seen.target >= this.totalSteps) {
      const kept = this.facts.filter((fact) => seen.facts.has(fact.id));
      this.final = { factsKept: kept.length };
      return text(`All ${this.totalSteps} steps are done. FINAL ANSWER — the codewords I was given:\n${kept.map(factText).join('\n') || '(none visible)'}`);
    }
    return text(`Steps up to ${seen.target} are done; waiting for the next instruction.`);
  }

  /** The grader keeps a digest of each step's output the first time a request shows it (right after the call). */
  private recordTruth(request: MessagesRequestBody): void {
    const last = request.messages.at(-1);
    if (!last || last.role !== 'user' || typeof last.content === 'string') return;
    for (const block of last.content) {
      if (block.type !== 'tool_result') continue;
      const step = /^toolu_bench_(\d+)_\d+$/.exec(block.tool_use_id)?.[1];
      if (step !== undefined && !this.truth.has(Number(step))) this.truth.set(Number(step), digest(resultText(block.content)));
    }
  }

  /**
   * Step `step` needs step `needs.step`'s exact output: from the request when it is there whole,
   * else by an extra call (recall, or a re-run without it). Returns that call, or undefined when
   * the step can go on (answered, or failed and counted).
   */
  private needFor(step: number, needs: NonNullable<StepPlan['needs']>, request: MessagesRequestBody): ScriptedReply | undefined {
    if (this.settled.has(step)) return undefined;
    const truth = this.truth.get(needs.step);
    const uses = new Map<string, { name: string; input: unknown }>();
    const results = new Map<string, string>();
    for (const message of request.messages) {
      if (typeof message.content === 'string') continue;
      for (const block of message.content) {
        if (block.type === 'tool_use') uses.set(block.id, { name: block.name, input: block.input });
        else if (block.type === 'tool_result') results.set(block.tool_use_id, resultText(block.content));
      }
    }
    // The answer to this step's own extra call, if the newest message holds one.
    const last = request.messages.at(-1);
    const fresh = last && typeof last.content !== 'string' ? last.content.flatMap((block) => (block.type === 'tool_result' && FETCH_ID.exec(block.tool_use_id)?.[1] === String(step) ? [block] : [])) : [];
    const attempts = [...uses.keys()].filter((id) => FETCH_ID.exec(id)?.[1] === String(step)).length;
    const settle = (outcome: 'inView' | 'fetched' | 'failed') => {
      this.settled.set(step, outcome !== 'failed');
      this.need.needs++;
      if (!needs.reproducible) this.need.nonReproducible++;
      this.need[outcome]++;
      if (outcome === 'failed' && process.env.CTX_BENCH_DEBUG === '1') console.error(`[need] step ${step} needed ${needs.step} failed; last answer: ${JSON.stringify(fresh[0] ? resultText(fresh[0].content).slice(0, 300) : 'none')} attempts=${attempts} truth=${truth !== undefined}`);
      return undefined;
    };
    if (fresh.length > 0) {
      const answer = fresh[0]!;
      const call = uses.get(answer.tool_use_id);
      const text = resultText(answer.content);
      const input = call?.input as { id?: string; query?: string } | undefined;
      if (call?.name === RECALL_TOOL && input?.query !== undefined) {
        const id = new RegExp(`toolu_bench_${needs.step}_\\d+`).exec(text)?.[0];
        if (id && attempts < 4) return this.fetchCall(step, needs.step, { name: RECALL_TOOL, input: { id } });
        return settle('failed');
      }
      if (call?.name === RECALL_TOOL) {
        this.need.recallCalls++;
        // A large result comes in pages: the model follows the "more characters" pointer, then joins the pages it holds.
        const next = /\[[\d,]+ more characters: recall (\{.*\})\]$/.exec(text)?.[1];
        if (next && attempts < 8) {
          this.need.recallHits++;
          return this.fetchCall(step, needs.step, { name: RECALL_TOOL, input: JSON.parse(next) as Record<string, unknown> });
        }
        const pages = [...uses.entries()]
          .filter(([id, use]) => FETCH_ID.exec(id)?.[1] === String(step) && use.name === RECALL_TOOL && (use.input as { id?: string }).id !== undefined && results.has(id))
          .map(([id]) => pageBody(results.get(id)!));
        const exact = truth !== undefined && (digest(pages.join('')) === truth || digest(stripNotes(text)) === truth);
        if (exact) this.need.recallHits++;
        return settle(exact ? 'fetched' : 'failed');
      }
      this.need.reruns++;
      return settle(truth !== undefined && digest(text) === truth ? 'fetched' : 'failed');
    }
    if (attempts > 0) return settle('failed');
    // Still in the request, whole: nothing to fetch.
    const idInView = [...uses.keys()].find((id) => id.startsWith(`toolu_bench_${needs.step}_`));
    if (idInView && truth !== undefined && results.has(idInView) && digest(results.get(idInView)!) === truth) return settle('inView');
    if (!this.recall) {
      const earlier = this.plan(needs.step);
      return this.fetchCall(step, needs.step, { name: earlier.name, input: earlier.input });
    }
    // The id from the call in view, or from a placeholder or a dropped round's list that names it.
    const named = idInView ?? new RegExp(`toolu_bench_${needs.step}_\\d+`).exec(JSON.stringify(request.messages))?.[0];
    if (named) return this.fetchCall(step, needs.step, { name: RECALL_TOOL, input: { id: named } });
    const earlier = this.plan(needs.step);
    return this.fetchCall(step, needs.step, { name: RECALL_TOOL, input: { query: callQuery(earlier), limit: 50 } });
  }

  private fetchCall(step: number, needed: number, call: { name: string; input: Record<string, unknown> }): ScriptedReply {
    return {
      kind: 'message',
      content: [
        { type: 'text', text: `Before step ${step} I need the exact output of step ${needed} again.` },
        { type: 'tool_use', id: `toolu_fetch_${step}_${++this.ids}`, name: call.name, input: call.input },
      ],
    };
  }

  /** What the request shows: every text (user and assistant, summaries and blobs included); tool results are not read. */
  private scan(request: MessagesRequestBody): Seen {
    const texts: string[] = [];
    for (const message of request.messages) {
      if (typeof message.content === 'string') texts.push(message.content);
      else for (const block of message.content) if (block.type === 'text') texts.push(block.text);
    }
    const steps = new Set<number>();
    let progress = 0;
    let target: number | undefined;
    const requests: string[] = [];
    const facts = new Set<number>();
    for (const body of texts) {
      for (const match of body.matchAll(/\bStep (\d+):/g)) steps.add(Number(match[1]));
      for (const match of body.matchAll(/completed steps 1-(\d+)/gi)) progress = Math.max(progress, Number(match[1]));
      for (const match of body.matchAll(/do steps (\d+)-(\d+)/g)) {
        target = Math.max(target ?? 0, Number(match[2]));
        if (!requests.includes(match[0])) requests.push(match[0]);
      }
      for (const match of body.matchAll(/FACT-(\d+): the codeword for module (\d+) is ([A-Z0-9]+)/g)) {
        const fact = this.facts[Number(match[1]) - 1];
        if (fact && fact.codeword === match[3] && fact.module === Number(match[2])) facts.add(fact.id);
      }
    }
    for (const step of steps) progress = Math.max(progress, step);
    return { texts, progress, steps, target, requests, facts };
  }

  private summaryText(seen: Seen, messageCount: number): string {
    const visibleSteps = [...seen.steps].filter((step) => step <= seen.progress).sort((a, b) => a - b).slice(-50);
    const progressLine = seen.progress > 0 ? `Progress: completed steps 1-${seen.progress}; the next step is ${seen.progress + 1}.` : 'Progress: no step completed yet.';
    const facts = this.facts.filter((fact) => seen.facts.has(fact.id)).map(factText);
    return [
      `<analysis>I went through the ${messageCount} message(s) in view. The user asked: ${seen.requests.join('; ') || 'nothing I can see'}. The highest step I can see completed is ${seen.progress}.</analysis>`,
      '<summary>',
      `1. Primary request and intent: ${seen.requests.map((r) => `the user asked me to ${r}`).join('; ') || 'not visible'}. ${progressLine}`,
      '6. All user messages (facts the final answer needs):',
      ...facts,
      '3. Files and code sections / work log:',
      ...visibleSteps.map((step) => {
        const plan = this.plan(step);
        return `Step ${step}: ${plan.name} ${JSON.stringify(plan.input)} done; the output was reviewed and nothing needs to change for it.`;
      }),
      `8. Current work: ${progressLine}`,
      `9. Next step: continue with step ${seen.progress + 1} of the plan.`,
      '</summary>',
    ].join('\n');
  }
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((block: { type?: string; text?: string }) => (block.type === 'text' ? (block.text ?? '') : '')).join('');
  return '';
}

/**
 * A search for one earlier call, whatever order its input's keys were stored in: a regular
 * expression with a lookahead per key and value (`/^read_file (?=.*"path":"src\/a\.ts")/`).
 */
function callQuery(plan: StepPlan): string {
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const parts = Object.entries(plan.input).map(([key, value]) => `(?=.*${escape(`${JSON.stringify(key)}:${JSON.stringify(value)}`)})`);
  return `/^${plan.name} ${parts.join('')}/`;
}

/** One page of a paged recall without its "characters a-b of n" head and its "more characters" tail. */
function pageBody(text: string): string {
  return stripNotes(text).replace(/\n\[[\d,]+ more characters: recall \{.*\}\]$/, '');
}

/** recall's own bracketed note lines before a result (a saved output's file, …) are not part of it. */
function stripNotes(text: string): string {
  return text.replace(/^(\[[^\n]*\]\n)+/, '');
}

function text(body: string): ScriptedReply {
  return { kind: 'message', content: [{ type: 'text', text: body }] };
}

export function isSummaryRequest(request: MessagesRequestBody): boolean {
  const last = request.messages.at(-1);
  if (!last || last.role !== 'user') return false;
  const texts = typeof last.content === 'string' ? [last.content] : last.content.flatMap((block) => (block.type === 'text' ? [block.text] : []));
  return texts.some((body) => SUMMARY_PROMPTS.some((prompt) => body.startsWith(prompt)));
}
