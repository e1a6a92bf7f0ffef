/**
 * The chat as it was shown, rebuilt from stored messages and records: resume, `stream-json` and
 * the fold all replay through the one DisplayBuilder.
 */
import { blocksOf, toolResultText } from '../model/content';
import type { MessageParam } from '../model/messages';
import { TODO_WRITE_TOOL, todosOfInput, type TodoItem } from '../todos/todos';
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
    for (const block of blocksOf(message)) {
      const attachment = message.role === 'user' ? attachmentOfBlock(block) : undefined;
      if (message.role === 'user' && block.type === 'text' && hookNoteEvent(block.text) !== undefined) {
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
      }
    }
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
