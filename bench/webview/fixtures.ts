/**
 * Inputs of the webview benchmark (bench/webview.ts): a restored session's history that replays
 * to an exact number of chat items, and the deltas of one long streamed markdown reply. Seeded, so
 * every run renders the same chat. The history has the shape the host keeps (chatController:
 * consecutive text deltas merged, no tool_call_progress, no context events).
 */
import { contextGauge } from '../../src/core/context/gauge';
import { wordGauge } from '../../src/frontends/words/wordGauge';
import type { AgentEvent, GaugeState } from '../../src/protocol';
import { applyEvent, emptyChat } from '../../src/webview/chatModel';
import { prng, sentence, WORDS } from '../random';

/** Text of the last item (an error notice): the page waits for it to know the render is done. */
export const LAST_ITEM_MARKER = 'bench: last restored item';

function codeBlock(random: () => number, lines: number): string {
  const body: string[] = [];
  for (let i = 0; i < lines; i++) {
    const name = WORDS[Math.floor(random() * WORDS.length)]!;
    body.push(i % 4 === 0 ? `export function ${name}${i}(input: string): number {` : i % 4 === 3 ? '}' : `  const ${name} = input.length * ${i}; // ${sentence(random, 4)}`);
  }
  return ['```ts', ...body, '```'].join('\n');
}

/** An assistant reply: paragraphs, a list, inline code, a link and a code block (~1-2 KB). */
function assistantMarkdown(random: () => number, index: number): string {
  return [
    `${sentence(random, 12)} See \`src/core/context/engine.ts:${index % 400}\` and [the design](docs/DESIGN.md).`,
    '',
    `- ${sentence(random, 8)}`,
    `- ${sentence(random, 6)} **${WORDS[index % WORDS.length]}** stays.`,
    `- ${sentence(random, 9)}`,
    '',
    codeBlock(random, 6 + Math.floor(random() * 8)),
    '',
    sentence(random, 20),
  ].join('\n');
}

function toolOutput(random: () => number, lines: number): string {
  return Array.from({ length: lines }, (_, i) => `${String(i + 1).padStart(5)}\t${sentence(random, 3 + Math.floor(random() * 9))}`).join('\n');
}

export function benchGauge(): GaugeState {
  return wordGauge(contextGauge({ window: 200_000, outputReserve: 32_000, usedTokens: 96_400, autoCompactThreshold: 155_000, cacheReadShare: 0.82, sessionCostUsd: 4.17 }));
}

/**
 * Events that replay (src/webview/chatModel.ts) to exactly `items` chat items, the last being an
 * error notice carrying LAST_ITEM_MARKER. Per turn: a user message, assistant text, tool cards
 * (read_file, grep, run_command) with outputs, more text; every 15th turn starts after a
 * compaction divider, every 8th after a tier note, every 9th ends cancelled (a notice).
 */
export function restoredHistory(items: number): AgentEvent[] {
  const random = prng(8);
  const events: AgentEvent[] = [];
  const model = emptyChat();
  const push = (...batch: AgentEvent[]) => {
    for (const event of batch) {
      events.push(event);
      applyEvent(model, event);
    }
  };
  const full = () => model.items.length >= items - 1;
  let turn = 0;
  let tool = 0;
  let compactions = 0;
  while (!full()) {
    const turnId = `t${turn}`;
    if (turn > 0 && turn % 15 === 0) {
      push({
        type: 'compaction',
        compactionId: `c${compactions++}`,
        trigger: 'auto',
        tokensBefore: 150_000 + Math.floor(random() * 20_000),
        tokensAfter: 20_000 + Math.floor(random() * 10_000),
        messagesSummarized: 120,
        messagesKept: 8,
        summary: Array.from({ length: 12 }, () => `- ${sentence(random, 14)}`).join('\n'),
        restoredFiles: ['src/a.ts', 'src/b.ts'],
      });
    } else if (turn % 8 === 0) {
      push({ type: 'tier', tier: 'persist', items: 3, tokensBefore: 90_000, tokensAfter: 71_000, detail: '3 tool results saved to files' });
    }
    if (full()) break;
    push({ type: 'turn_started', turnId, userText: `${sentence(random, 10)}\n${sentence(random, 6)}` }, { type: 'request_started', turnId, requestIndex: 0 });
    // Item kinds of one turn after the user message; stops as soon as the count is reached.
    const steps: Array<'text' | 'tool'> = ['text', 'tool', 'tool', 'text', 'tool', 'text'];
    for (const step of steps) {
      if (full()) break;
      if (step === 'text') {
        if (turn % 5 === 0) push({ type: 'thinking_delta', turnId, text: sentence(random, 30) });
        push({ type: 'text_delta', turnId, text: assistantMarkdown(random, events.length) });
      } else {
        const toolUseId = `toolu_${tool++}`;
        const kind = tool % 3;
        const name = kind === 0 ? 'read_file' : kind === 1 ? 'grep' : 'run_command';
        const input = kind === 0 ? { path: `src/module${tool}.ts` } : kind === 1 ? { pattern: 'contextGauge', path: 'src' } : { command: 'npm test -- --grep gauge' };
        const headline = kind === 0 ? `src/module${tool}.ts` : kind === 1 ? '"contextGauge" in src' : 'npm test -- --grep gauge';
        push(
          { type: 'tool_call_started', turnId, toolUseId, name, input, headline },
          { type: 'tool_call_finished', turnId, toolUseId, name, isError: tool % 23 === 0, content: toolOutput(random, 10 + Math.floor(random() * 70)), durationMs: 40 + Math.floor(random() * 900) },
        );
      }
    }
    push({ type: 'turn_finished', turnId, stopReason: turn % 9 === 8 && !full() ? 'cancelled' : 'end_turn' });
    turn++;
  }
  push({ type: 'error', kind: 'connection', message: LAST_ITEM_MARKER, hint: 'Check the connection, then Retry.', actions: ['retry'] });
  const last = model.items.at(-1);
  if (model.items.length !== items || last?.kind !== 'notice' || last.text !== LAST_ITEM_MARKER) {
    throw new Error(`fixture replays to ${model.items.length} items (wanted ${items}), last ${last?.kind ?? 'none'}`);
  }
  return events;
}

/** Counts of each item kind the history replays to (for the results' description). */
export function itemMix(history: AgentEvent[]): Record<string, number> {
  const model = emptyChat();
  for (const event of history) applyEvent(model, event);
  const counts: Record<string, number> = {};
  for (const item of model.items) counts[item.kind] = (counts[item.kind] ?? 0) + 1;
  return counts;
}

/** One long markdown reply cut into token-sized deltas of 4-40 characters. */
export function streamedDeltas(count: number): string[] {
  const random = prng(200);
  const deltas: string[] = [];
  let section = 0;
  while (deltas.length < count) {
    const text = `## Step ${++section}\n\n${assistantMarkdown(random, section)}\n\n`;
    for (let at = 0; at < text.length && deltas.length < count; ) {
      const size = 4 + Math.floor(random() * 37);
      deltas.push(text.slice(at, at + size));
      at += size;
    }
  }
  return deltas;
}
