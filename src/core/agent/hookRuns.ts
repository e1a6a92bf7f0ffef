/**
 * A hook run as the chat shows it and the transcript keeps it (issue 29): the small line's view of
 * a run (event, command, time, outcome, a preview of its output and the file with all of it), the
 * saved file's text, and the records read back for a resumed chat (`displayOf` in fold.ts). Also
 * the words the Notification hook gets when an approval waits.
 */
import type { ApprovalRequest } from '../approvals/approval';
import { UserTextRecordSchema } from '../texts/record';
import { HOOK_EVENTS } from '../hooks/events';
import { HOOK_RUN_OUTCOMES, type HookRunRecord } from '../hooks/decisions';
import * as z from '../zod';
import type { AgentEvent, HookRunView } from './events';

/** The chat line's preview of a run's output; the rest is in its saved file. */
export const HOOK_LINE_OUTPUT_CHARS = 2_000;

/** The transcript's `event` entries of hooks (storage/transcript.ts DISPLAY_RECORD_NAMES). */
export const HOOK_RECORD_NAMES = ['hook_run', 'hook_notice'] as const;
export type HookRecordName = (typeof HOOK_RECORD_NAMES)[number];

/** One hook's run for the chat: its output cut to a preview, the file that keeps all of it. */
export function runView(record: HookRunRecord, outputFile: string | undefined): HookRunView {
  const written = [record.stdout.trimEnd(), record.stderr.trimEnd()].filter((part) => part !== '').join('\n');
  const output = record.suppressOutput || written === '' ? undefined : written.length <= HOOK_LINE_OUTPUT_CHARS ? written : `${written.slice(0, HOOK_LINE_OUTPUT_CHARS)}…`;
  return {
    event: record.event,
    command: record.command,
    scope: record.scope,
    source: record.file,
    sandboxed: record.sandboxed,
    durationMs: record.durationMs,
    outcome: record.outcome,
    exitCode: record.exitCode,
    ...(output === undefined ? {} : { output }),
    ...(outputFile === undefined ? {} : { outputFile }),
    ...(record.sandboxNote ? { sandboxNote: record.sandboxNote } : {}),
  };
}

/** The saved file of a run: the command and how it ended, then stdout and stderr whole. */
export function savedRunText(record: HookRunRecord): string {
  const ended = record.exitCode === null ? record.outcome : `exit ${record.exitCode}`;
  return [`$ ${record.command}`, `(${record.event} hook from ${record.file}; ${ended}; ${record.durationMs} ms)`, '--- stdout ---', record.stdout, '--- stderr ---', record.stderr].join('\n');
}

const HookRunViewSchema = z.object({
  event: z.enum(HOOK_EVENTS),
  command: z.string(),
  scope: z.enum(['user', 'workspace']),
  source: z.string(),
  sandboxed: z.boolean(),
  durationMs: z.number(),
  outcome: z.enum(HOOK_RUN_OUTCOMES),
  exitCode: z.number().nullable(),
  output: z.string().optional(),
  outputFile: z.string().optional(),
  sandboxNote: z.string().optional(),
});
z.sameType<z.infer<typeof HookRunViewSchema>, HookRunView>(true);
const HookNoticeSchema = z.object({ level: z.enum(['warning', 'info']), message: UserTextRecordSchema });

/** A recorded hook run or notice as the chat showed it; undefined for a record that does not read as one (it is left out). */
export function hookEventFromRecord(name: HookRecordName, data: unknown, turnId: string): AgentEvent | undefined {
  if (name === 'hook_run') {
    const run = z.object({ run: HookRunViewSchema }).safeParse(data);
    return run.success ? { type: 'hook_run', turnId, run: run.data.run } : undefined;
  }
  const notice = HookNoticeSchema.safeParse(data);
  return notice.success ? { type: 'hook_notice', turnId, ...notice.data } : undefined;
}

/** Words for the Notification hook when an approval waits (Claude Code's "Claude needs your permission to use Bash"). */
export function approvalNotification(request: ApprovalRequest): string {
  switch (request.kind) {
    case 'write':
      return `Evergreen needs your permission to ${request.isNew ? 'create' : 'change'} ${request.path}`;
    case 'shell':
      return 'Evergreen needs your permission to run a command';
    case 'mcp':
      return `Evergreen needs your permission to call ${request.tool} on the MCP server ${request.server}`;
    case 'sandbox_changes':
      return 'Evergreen needs your permission to apply what a sandboxed command wrote';
    case 'web':
      return `Evergreen needs your permission to fetch from ${request.host}`;
    case 'hook':
      return `Evergreen needs your answer on a ${request.tool} call a hook asked about`;
  }
}
