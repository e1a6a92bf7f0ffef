/**
 * The hook events Evergreen fires and the JSON each hook reads on stdin, in Claude Code's shape
 * (snake_case, the same field names), so a hook written for Claude Code reads what it expects.
 * The session describes what happened in its own terms (`HookCall`); `hookInput` turns that into
 * the wire JSON (`HookInput`).
 */
import { claudeToolName, hookToolInput, hookToolResponse, toolMatchNames, type HookToolResult } from './toolNames';

export const HOOK_EVENTS = ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'PreCompact', 'PostCompact', 'Stop', 'SubagentStop', 'Notification', 'SessionEnd'] as const;
export type HookEventName = (typeof HOOK_EVENTS)[number];

/** Events without a matcher (Claude Code ignores one written there): every hook of the event runs. */
export const EVENTS_WITHOUT_MATCHER: ReadonlySet<HookEventName> = new Set(['UserPromptSubmit', 'Stop']);

export function isHookEventName(name: string): name is HookEventName {
  return (HOOK_EVENTS as readonly string[]).includes(name);
}

/**
 * Claude Code events Evergreen does not fire. A settings file naming one loads with a notice (its
 * hooks never run) rather than an error: the same file serves Claude Code, where they do.
 */
export const CLAUDE_ONLY_EVENTS: ReadonlySet<string> = new Set([
  'Setup',
  'UserPromptExpansion',
  'MessageDisplay',
  'PermissionRequest',
  'PermissionDenied',
  'PostToolUseFailure',
  'PostToolBatch',
  'SubagentStart',
  'TaskCreated',
  'TaskCompleted',
  'StopFailure',
  'TeammateIdle',
  'InstructionsLoaded',
  'ConfigChange',
  'CwdChanged',
  'DirectoryAdded',
  'FileChanged',
  'WorktreeCreate',
  'WorktreeRemove',
  'PreModelSwitch',
  'PostModelSwitch',
  'Elicitation',
  'ElicitationResult',
]);

export type SessionStartSource = 'startup' | 'resume' | 'clear' | 'compact';
export type SessionEndReason = 'clear' | 'resume' | 'prompt_input_exit' | 'other';
/** `manual`: the user's `/compact`; `auto`: every other compaction (threshold, the `compact` tool, recovery). */
export type CompactTrigger = 'manual' | 'auto';
/** `permission_prompt`: an approval is waiting; `idle_prompt`: a turn finished and the agent waits for the user. */
export type NotificationType = 'permission_prompt' | 'idle_prompt';

/** The subagent a tool call runs in (absent in the main conversation). */
export interface HookAgent {
  id: string;
  type: string;
}

/** What the session knows when an event fires, in its own terms. */
export type HookCall =
  | { event: 'SessionStart'; source: SessionStartSource; model?: string }
  | { event: 'UserPromptSubmit'; prompt: string }
  | { event: 'PreToolUse'; toolName: string; toolInput: Readonly<Record<string, unknown>>; toolUseId: string; agent?: HookAgent }
  | { event: 'PostToolUse'; toolName: string; toolInput: Readonly<Record<string, unknown>>; toolUseId: string; result: HookToolResult; agent?: HookAgent }
  | { event: 'PreCompact'; trigger: CompactTrigger; customInstructions: string }
  | { event: 'PostCompact'; trigger: CompactTrigger; summary: string }
  /** `continuations`: how many times in a row Stop hooks already kept this turn going (0 the first time). */
  | { event: 'Stop'; lastAssistantMessage: string; continuations: number }
  | { event: 'SubagentStop'; agent: HookAgent; lastAssistantMessage: string; continuations: number; agentTranscriptPath?: string }
  | { event: 'Notification'; notificationType: NotificationType; message: string; title?: string }
  | { event: 'SessionEnd'; reason: SessionEndReason };

export type HookCallFor<E extends HookEventName> = Extract<HookCall, { event: E }>;

/** The session a hook runs for: every input carries it. */
export interface HookSession {
  sessionId: string;
  /** The session's transcript file (Evergreen's JSONL, not Claude Code's format). */
  transcriptPath: string;
  /** The workspace root: the hook's working directory and `CLAUDE_PROJECT_DIR`. */
  projectDir: string;
}

interface InputBase<E extends HookEventName> {
  session_id: string;
  transcript_path: string;
  cwd: string;
  hook_event_name: E;
}

interface ToolInputFields {
  /** Claude Code's name for an equivalent tool (`Bash`), the tool's own otherwise. */
  tool_name: string;
  /** The tool's name in Evergreen (`run_shell`). */
  evergreen_tool_name: string;
  tool_input: Record<string, unknown>;
  tool_use_id: string;
  agent_id?: string;
  agent_type?: string;
}

/** The JSON a hook reads on stdin, one shape per event. */
export type HookInput =
  | (InputBase<'SessionStart'> & { source: SessionStartSource; model?: string })
  | (InputBase<'UserPromptSubmit'> & { prompt: string })
  | (InputBase<'PreToolUse'> & ToolInputFields)
  | (InputBase<'PostToolUse'> & ToolInputFields & { tool_response: Record<string, unknown> })
  | (InputBase<'PreCompact'> & { trigger: CompactTrigger; custom_instructions: string })
  | (InputBase<'PostCompact'> & { trigger: CompactTrigger; compact_summary: string })
  | (InputBase<'Stop'> & { stop_hook_active: boolean; last_assistant_message: string })
  | (InputBase<'SubagentStop'> & { stop_hook_active: boolean; agent_id: string; agent_type: string; last_assistant_message: string; agent_transcript_path?: string })
  | (InputBase<'Notification'> & { notification_type: NotificationType; message: string; title?: string })
  | (InputBase<'SessionEnd'> & { reason: SessionEndReason });

export type HookInputFor<E extends HookEventName> = Extract<HookInput, { hook_event_name: E }>;

function toolFields(call: Extract<HookCall, { event: 'PreToolUse' | 'PostToolUse' }>, projectDir: string): ToolInputFields {
  return {
    tool_name: claudeToolName(call.toolName),
    evergreen_tool_name: call.toolName,
    tool_input: hookToolInput(call.toolName, call.toolInput, projectDir),
    tool_use_id: call.toolUseId,
    ...(call.agent ? { agent_id: call.agent.id, agent_type: call.agent.type } : {}),
  };
}

/** The stdin JSON for one event. */
export function hookInput(call: HookCall, session: HookSession): HookInput {
  const base = { session_id: session.sessionId, transcript_path: session.transcriptPath, cwd: session.projectDir };
  switch (call.event) {
    case 'SessionStart':
      return { ...base, hook_event_name: call.event, source: call.source, ...(call.model === undefined ? {} : { model: call.model }) };
    case 'UserPromptSubmit':
      return { ...base, hook_event_name: call.event, prompt: call.prompt };
    case 'PreToolUse':
      return { ...base, hook_event_name: call.event, ...toolFields(call, session.projectDir) };
    case 'PostToolUse':
      return { ...base, hook_event_name: call.event, ...toolFields(call, session.projectDir), tool_response: hookToolResponse(call.toolName, call.toolInput, call.result, session.projectDir) };
    case 'PreCompact':
      return { ...base, hook_event_name: call.event, trigger: call.trigger, custom_instructions: call.customInstructions };
    case 'PostCompact':
      return { ...base, hook_event_name: call.event, trigger: call.trigger, compact_summary: call.summary };
    case 'Stop':
      return { ...base, hook_event_name: call.event, stop_hook_active: call.continuations > 0, last_assistant_message: call.lastAssistantMessage };
    case 'SubagentStop':
      return {
        ...base,
        hook_event_name: call.event,
        stop_hook_active: call.continuations > 0,
        agent_id: call.agent.id,
        agent_type: call.agent.type,
        last_assistant_message: call.lastAssistantMessage,
        ...(call.agentTranscriptPath === undefined ? {} : { agent_transcript_path: call.agentTranscriptPath }),
      };
    case 'Notification':
      return { ...base, hook_event_name: call.event, notification_type: call.notificationType, message: call.message, ...(call.title === undefined ? {} : { title: call.title }) };
    case 'SessionEnd':
      return { ...base, hook_event_name: call.event, reason: call.reason };
  }
}

/**
 * What an event's matchers are tested against (Claude Code's table): the tool's names for tool
 * events, the source, trigger, reason, notification type or agent type for the others. Undefined:
 * the event has no matcher (UserPromptSubmit, Stop), and every hook of the event runs.
 */
export function matchTargets(call: HookCall): readonly string[] | undefined {
  if (EVENTS_WITHOUT_MATCHER.has(call.event)) return undefined;
  switch (call.event) {
    case 'PreToolUse':
    case 'PostToolUse':
      return toolMatchNames(call.toolName);
    case 'SessionStart':
      return [call.source];
    case 'SessionEnd':
      return [call.reason];
    case 'PreCompact':
    case 'PostCompact':
      return [call.trigger];
    case 'Notification':
      return [call.notificationType];
    case 'SubagentStop':
      return [call.agent.type];
    case 'UserPromptSubmit':
    case 'Stop':
      return undefined;
  }
}
