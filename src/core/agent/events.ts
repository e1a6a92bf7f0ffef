/**
 * Events the agent emits while it works. They are plain JSON so the same stream feeds the
 * webview (via src/protocol.ts), the CLI's `--output-format stream-json`, and tests.
 */

import type { ContextEvent } from '../context/engine';
import type { UsageCounts } from '../model/models';
import type { ErrorAction, ErrorKind } from './errors';

export type { ErrorAction, ErrorKind } from './errors';

export type ApprovalSummary =
  | { kind: 'write'; path: string; diff: string; isNew: boolean; protectedReason?: string }
  | { kind: 'shell'; command: string };

export type TurnStopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'refusal' | 'context_window_exceeded' | 'cancelled' | 'error';

export type AgentEvent =
  | { type: 'session_started'; sessionId: string; model: string; resumed: boolean }
  /** `userText` is '' for a retry, which sends no new user message. */
  | { type: 'turn_started'; turnId: string; userText: string }
  | { type: 'request_started'; turnId: string; requestIndex: number }
  | { type: 'text_delta'; turnId: string; text: string }
  | { type: 'thinking_delta'; turnId: string; text: string }
  /** `headline`: the tool's own one-line description of the call, for its card. */
  | { type: 'tool_call_started'; turnId: string; toolUseId: string; name: string; input: unknown; headline?: string }
  | { type: 'tool_call_progress'; turnId: string; toolUseId: string; chunk: string }
  | { type: 'approval_needed'; turnId: string; toolUseId: string; request: ApprovalSummary }
  | { type: 'approval_resolved'; turnId: string; toolUseId: string; approved: boolean }
  | {
      type: 'tool_call_finished';
      turnId: string;
      toolUseId: string;
      name: string;
      isError: boolean;
      /** What the model receives, possibly long; UIs show a preview. */
      content: string;
      durationMs: number;
    }
  | { type: 'usage'; turnId: string; model: string; usage: UsageCounts; costUsd: number; sessionCostUsd: number }
  | { type: 'retrying'; turnId: string; attempt: number; delayMs: number; reason: string }
  | { type: 'turn_finished'; turnId: string; stopReason: TurnStopReason }
  /** `actions`: the next steps the core offers, in order (buttons in VS Code). */
  | { type: 'error'; turnId?: string; kind: ErrorKind; message: string; hint?: string; actions: ErrorAction[] }
  /** Context engine: gauge updates, tier actions, compactions and their failures. */
  | (ContextEvent & { turnId?: string })
  /** Transcripts cannot be written (disk full, read-only storage): the agent goes on, unsaved. */
  | { type: 'storage_warning'; message: string };

export type AgentEventListener = (event: AgentEvent) => void;
