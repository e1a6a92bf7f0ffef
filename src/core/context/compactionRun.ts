/**
 * A summary compaction, run: the summary request (summaryRequest.ts), the recently read files
 * restored from disk, and the boundary record with its size counted by the API. Nothing is
 * recorded here; the engine commits the record it returns.
 */
import { randomUUID } from 'node:crypto';
import type { MessageParam } from '../model/messages';
import type { CompactionRecord, CompactionTrigger } from '../storage/transcript';
import type { Workspace } from '../workspace/workspace';
import { todosAsOf } from './compactionHelpers';
import type { PlanningView } from './compactionPlanning';
import { buildLiveView } from './liveView';
import { restoreFiles } from './restoreFiles';
import { requestSummary, type SummaryRequestDeps } from './summaryRequest';

export interface SummaryCompaction {
  record: CompactionRecord;
  /** The live view after it, and the API's count of it (undefined when the back end cannot count). */
  after: MessageParam[];
  counted: number | undefined;
}

export interface SummaryCompactionDeps {
  summary: SummaryRequestDeps;
  workspace: Workspace | undefined;
  countPrompt(messages: MessageParam[]): Promise<number | undefined>;
}

/** Throws when the summary request fails (the engine records the failure). */
export async function runSummaryCompaction(view: PlanningView, keptFrom: number, focus: string | undefined, trigger: CompactionTrigger, signal: AbortSignal, deps: SummaryCompactionDeps): Promise<SummaryCompaction> {
  const canonical = view.canonical;
  const before = view.liveView();
  const tokensBefore = view.estimateTokens(before);
  const { summary, requests } = await requestSummary(before, canonical.length - keptFrom, focus, signal, deps.summary);
  const restoredFiles = await restoreFiles(canonical, keptFrom, deps.workspace, view.restoreLimits, view.logger);
  const record: CompactionRecord = {
    id: randomUUID(),
    trigger,
    ...(focus ? { focus } : {}),
    summary,
    keptFrom,
    restoredFiles,
    ...todosAsOf(canonical),
    stats: { tokensBefore, tokensAfter: 0, messagesSummarized: keptFrom - (view.live.boundary?.keptFrom ?? 0), messagesKept: canonical.length - keptFrom, summaryRequests: requests },
  };
  const after = buildLiveView(canonical, { boundary: record, edits: view.live.edits }, view.transcriptPath);
  // Counted before the boundary is written, so the divider's "after" and the gauge show one number.
  const counted = await deps.countPrompt(after);
  record.stats.tokensAfter = counted ?? view.estimateTokens(after);
  return { record, after, counted };
}
