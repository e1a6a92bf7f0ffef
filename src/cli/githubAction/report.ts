/**
 * What a run reports: the session's answer, cost, tokens and context work read back from its
 * stored transcript, written as the step's outputs ($GITHUB_OUTPUT) and as the job summary
 * ($GITHUB_STEP_SUMMARY) with the way to continue the chat locally.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { formatCost } from '../../core/model/cost';
import type { SessionMeta } from '../../core/storage/sessionStore';
import type { TranscriptEntry } from '../../core/storage/transcript';

export interface SessionReport {
  sessionId: string;
  answer: string;
  meta: SessionMeta;
  compactions: number;
  /** Tier edits by tier name (budget, snip, microcompact). */
  clearings: Record<string, number>;
}

/** The newest assistant text, the compactions and the tier edits of a transcript. */
export function reportOf(meta: SessionMeta, entries: readonly TranscriptEntry[]): SessionReport {
  let answer = '';
  let compactions = 0;
  const clearings: Record<string, number> = {};
  for (const entry of entries) {
    if (entry.type === 'compaction') compactions++;
    else if (entry.type === 'tier_edit') clearings[entry.tier] = (clearings[entry.tier] ?? 0) + entry.edits.length;
    else if (entry.type === 'message' && entry.message.role === 'assistant') {
      const content = entry.message.content;
      const text = typeof content === 'string' ? content : content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n\n');
      if (text.trim() !== '') answer = text;
    }
  }
  return { sessionId: meta.id, answer, meta, compactions, clearings };
}

/** One step output in the runner's file format; a value may span lines (a random delimiter). */
export function outputLines(values: Record<string, string>): string {
  return Object.entries(values)
    .map(([name, text]) => {
      let delimiter: string;
      do delimiter = `EVERGREEN_${randomBytes(8).toString('hex')}`;
      while (text.includes(delimiter));
      return `${name}<<${delimiter}\n${text}\n${delimiter}\n`;
    })
    .join('');
}

export interface SummaryInput {
  ok: boolean;
  /** Why the run failed, in words (the CLI's own last lines when it stopped with an error). */
  failure: string | undefined;
  prompt: string;
  report: SessionReport | undefined;
  changed: readonly string[];
  branch: string | undefined;
  pullRequestUrl: string | undefined;
  artifactName: string;
  runId: string;
}

/** Summaries are cut by GitHub at 1 MiB per step; the answer is cut well before that. */
const MAX_ANSWER_CHARS = 60_000;

/** Text from the model or a workflow, made inert in a summary: no HTML, no closing of the fence it sits in. */
function fenced(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}text\n${text}\n${fence}`;
}

export function summaryMarkdown(input: SummaryInput): string {
  const { report } = input;
  const lines: string[] = [`## ${input.ok ? '✅' : '❌'} Evergreen ${input.ok ? 'finished' : 'failed'}`, ''];
  if (input.failure) lines.push(`**Why:** ${input.failure.replace(/[<>]/g, (c) => (c === '<' ? '&lt;' : '&gt;'))}`, '');
  lines.push('### Task', '', fenced(input.prompt.slice(0, 4000)), '');
  if (report) {
    const answer = report.answer.length > MAX_ANSWER_CHARS ? `${report.answer.slice(0, MAX_ANSWER_CHARS)}\n… (cut; the whole answer is in the session)` : report.answer;
    lines.push('### Answer', '', answer.trim() === '' ? '_No answer._' : fenced(answer), '');
    const totals = report.meta.totals;
    const clearing = Object.entries(report.clearings).map(([tier, count]) => `${count} ${tier}`).join(', ') || 'none';
    lines.push(
      '### Cost and context',
      '',
      '| | |',
      '|---|---|',
      `| Cost | ${formatCost(totals.costUsd, totals.unpricedRequests ?? 0, 4)} |`,
      `| Tokens | ${totals.inputTokens} input, ${totals.cacheReadTokens} cache read, ${totals.cacheWriteTokens} cache write, ${totals.outputTokens} output |`,
      `| Compactions | ${report.compactions} |`,
      `| Results cleared or trimmed | ${clearing} |`,
      `| Model | ${report.meta.model} |`,
      '',
    );
  }
  lines.push('### Changed files', '');
  if (input.changed.length === 0) lines.push('_None._');
  else lines.push(...input.changed.slice(0, 500).map((file) => `- \`${file.replace(/`/g, "'")}\``), ...(input.changed.length > 500 ? [`- … and ${input.changed.length - 500} more`] : []));
  lines.push('');
  if (input.branch) lines.push(`Pushed to the branch \`${input.branch}\`.${input.pullRequestUrl ? ` Pull request: ${input.pullRequestUrl}` : ''}`, '');
  if (report) {
    lines.push(
      '### Continue this chat locally',
      '',
      `1. Download the artifact **${input.artifactName}** from this run's page (or \`gh run download ${input.runId} -n ${input.artifactName}\`).`,
      '2. In VS Code run **Evergreen: Open Run…** and pick the downloaded .zip (or its folder): the chat opens with its whole history, and it offers to check out the branch.',
      `3. Or in a terminal: \`evergreen --import-session ${input.artifactName}.zip\`, then \`evergreen --resume ${report.sessionId} -p "…"\`${input.branch ? ` after \`git fetch origin ${input.branch} && git checkout ${input.branch}\`` : ''}.`,
      '',
    );
  }
  return `${lines.join('\n')}\n`;
}

export function appendTo(file: string | undefined, text: string): void {
  if (file) fs.appendFileSync(file, text);
}
