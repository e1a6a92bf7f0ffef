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
 * A summary request (Evergreen's "CONTEXT COMPACTION" instruction, or the seeds' prompts) is
 * answered with <analysis>/<summary> that reports only the progress, user requests and facts
 * visible in THAT request: a summarizer shown the head of a history reports early progress.
 */
import type { MessagesRequestBody, ScriptedReply } from '../../test/fake-anthropic/server';
import { planStep, type StepPlan, type WorkspaceInfo } from './workspace';

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
  private ids = 0;
  private readonly plans = new Map<number, StepPlan>();

  constructor(
    private readonly totalSteps: number,
    private readonly facts: readonly Fact[],
    private readonly workspace: Pick<WorkspaceInfo, 'sourceFiles' | 'logFiles'>,
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
    const seen = this.scan(request);
    if (isSummaryRequest(request)) {
      this.summaries++;
      return { kind: 'message', content: [{ type: 'text', text: this.summaryText(seen, request.messages.length) }] };
    }
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

function text(body: string): ScriptedReply {
  return { kind: 'message', content: [{ type: 'text', text: body }] };
}

export function isSummaryRequest(request: MessagesRequestBody): boolean {
  const last = request.messages.at(-1);
  if (!last || last.role !== 'user') return false;
  const texts = typeof last.content === 'string' ? [last.content] : last.content.flatMap((block) => (block.type === 'text' ? [block.text] : []));
  return texts.some((body) => SUMMARY_PROMPTS.some((prompt) => body.startsWith(prompt)));
}
