/**
 * The chat as it was shown, rebuilt from stored messages and records: resume, `stream-json` and
 * the fold all replay through the one DisplayBuilder.
 */
import { blocksOf, toolResultText } from '../model/content';
import type { MessageParam } from '../model/messages';
import { TODO_WRITE_TOOL, todosOfInput, type TodoItem } from '../todos/todos';
import { EXIT_PLAN_MODE_TOOL, planDecisionOf, planOfInput } from '../todos/planDecision';
import { planSteps } from '../todos/planSteps';
import { builtSteps } from '../todos/taskList';
import { MODE_SWITCH_MARK } from '../modes/modes';
import type { AgentEvent, AttachmentChip } from './events';
import { attachmentOfBlock } from './attachments';
import { nestedNoteFile } from '../instructions/instructionFiles';
import { hookNoteEvent } from '../hooks/notes';
import { instructionsNoteMessage } from './instructions';
import type { ToolCard } from './toolCards';

/** Builds display events from messages, one at a time (each user text opens a turn). */
export class DisplayBuilder {
  readonly events: AgentEvent[] = [];
  private readonly names = new Map<string, string>();
  /** Cards' details recorded before their call's result (toolCards.ts), by tool-use id. */
  private readonly cards = new Map<string, ToolCard>();
  /** todo_write inputs waiting for their result: an accepted call replaces the task list. */
  private readonly todoInputs = new Map<string, unknown>();
  private todoList: TodoItem[] | undefined;
  /** exit_plan_mode inputs by call: a successful call shows its plan card, and a later Build it makes its steps the task list. */
  private readonly planInputs = new Map<string, unknown>();
  private turn = 0;
  private turnId = 'replay-0';

  get currentTurnId(): string {
    return this.turnId;
  }

  get todos(): TodoItem[] | undefined {
    return this.todoList;
  }

  /** `checkpoint`: the checkpoint a user message was recorded with (its Restore). */
  message(message: MessageParam, checkpoint?: number): void {
    const chips: AttachmentChip[] = [];
    const blocks = blocksOf(message);
    // The user's own words are a user message's last text block; the session's notes come before them.
    const ownText = blocks.reduce((last, block, index) => (block.type === 'text' ? index : last), -1);
    for (const [index, block] of blocks.entries()) {
      const attachment = message.role === 'user' ? attachmentOfBlock(block) : undefined;
      if (message.role === 'user' && block.type === 'text' && index < ownText && this.sessionNote(block.text)) {
        // A mode switch (its mode entry showed it) or a plan decision (shown by sessionNote).
      } else if (message.role === 'user' && block.type === 'text' && hookNoteEvent(block.text) !== undefined) {
        // A hook's text for the model: its run's recorded line already shows it.
      } else if (message.role === 'user' && block.type === 'text' && nestedNoteFile(block.text) !== undefined) {
        // A subfolder's instructions, added with tool results: the same line the chat showed live.
        this.events.push({ type: 'instructions_notice', turnId: this.turnId, level: 'info', message: instructionsNoteMessage(block.text) });
      } else if (attachment) {
        chips.push(attachment);
      } else if (message.role === 'user' && block.type === 'image' && block.source.type === 'base64' && chips.length > 0 && !chips.at(-1)!.image) {
        // An image attachment is its named block, then the picture (attachments.ts userMessageContent).
        chips.at(-1)!.image = { mediaType: block.source.media_type, data: block.source.data };
      } else if (message.role === 'user' && block.type === 'text') {
        if (this.turn > 0) this.events.push({ type: 'turn_finished', turnId: this.turnId, stopReason: 'end_turn' });
        this.turnId = `replay-${++this.turn}`;
        this.events.push({ type: 'turn_started', turnId: this.turnId, userText: block.text, ...(checkpoint !== undefined ? { checkpoint } : {}), ...(chips.length > 0 ? { attachments: chips.splice(0) } : {}) });
      } else if (block.type === 'text') {
        this.events.push({ type: 'text_delta', turnId: this.turnId, text: block.text });
      } else if (block.type === 'thinking') {
        // In its place among the reply's blocks, as it streamed: the chat shows it collapsed.
        if (block.thinking !== '') this.events.push({ type: 'thinking_delta', turnId: this.turnId, text: block.thinking });
      } else if (block.type === 'redacted_thinking') {
        this.events.push({ type: 'thinking_redacted', turnId: this.turnId });
      } else if (block.type === 'tool_use') {
        this.names.set(block.id, block.name);
        if (block.name === TODO_WRITE_TOOL) this.todoInputs.set(block.id, block.input);
        if (block.name === EXIT_PLAN_MODE_TOOL) this.planInputs.set(block.id, block.input);
        this.events.push({ type: 'tool_call_started', turnId: this.turnId, toolUseId: block.id, name: block.name, input: block.input });
      } else if (block.type === 'tool_result') {
        const card = this.cards.get(block.tool_use_id);
        this.cards.delete(block.tool_use_id);
        this.events.push({
          type: 'tool_call_finished',
          turnId: this.turnId,
          toolUseId: block.tool_use_id,
          name: this.names.get(block.tool_use_id) ?? 'tool',
          isError: block.is_error === true,
          content: toolResultText(block),
          durationMs: 0,
          ...(card ? { web: card.web } : {}),
        });
        const todoInput = this.todoInputs.get(block.tool_use_id);
        this.todoInputs.delete(block.tool_use_id);
        const items = todoInput === undefined || block.is_error === true ? undefined : todosOfInput(todoInput);
        if (items) {
          this.todoList = items;
          this.events.push({ type: 'todos', turnId: this.turnId, items });
        }
        this.planProposed(block.tool_use_id, block.is_error === true);
      }
    }
  }

  /** A successful exit_plan_mode call's card, as the live session showed it after the call. */
  private planProposed(toolUseId: string, failed: boolean): void {
    const plan = planOfInput(this.planInputs.get(toolUseId));
    if (failed || plan === undefined) {
      this.planInputs.delete(toolUseId);
      return;
    }
    this.events.push({ type: 'plan_proposed', turnId: this.turnId, toolUseId, plan, steps: planSteps(plan) });
  }

  /** Whether a text block before the user's words is the session's own (a mode switch, a plan decision); a decision is shown as the live chat showed it. */
  private sessionNote(text: string): boolean {
    if (text.startsWith(MODE_SWITCH_MARK)) return true;
    const decision = planDecisionOf(text);
    if (!decision) return false;
    this.events.push({ type: 'plan_decided', turnId: this.turnId, toolUseId: decision.toolUseId, decision: decision.kind });
    const steps = decision.kind === 'build' ? builtSteps(this.planInputs.get(decision.toolUseId)) : undefined;
    if (steps) {
      this.todoList = steps;
      this.events.push({ type: 'todos', turnId: this.turnId, items: steps });
    }
    return true;
  }

  /** A call's card details, recorded when it ended: its `tool_call_finished` carries them. */
  card(card: ToolCard): void {
    this.cards.set(card.toolUseId, card);
  }

  push(event: AgentEvent): void {
    this.events.push(event);
  }

  finish(): AgentEvent[] {
    if (this.turn > 0) this.events.push({ type: 'turn_finished', turnId: this.turnId, stopReason: 'end_turn' });
    this.turn = 0;
    return this.events;
  }
}


/**
 * Rebuilds display events from a stored history, so a resumed session shows in the chat (and in
 * `stream-json`) exactly as if it had been watched live. Each user text message opens a turn.
 */
export function eventsFromHistory(messages: readonly MessageParam[]): AgentEvent[] {
  const builder = new DisplayBuilder();
  for (const message of messages) builder.message(message);
  return builder.finish();
}
