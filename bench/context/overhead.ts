/**
 * Pipeline overhead per API call: ContextEngine.prepareRequest (token accounting, tier planning,
 * breakpoints) on synthetic histories of 200 / 2,000 / 10,000 messages, with a stub model. Each
 * sample appends one tool round (as the agent loop does), anchors the previous request's usage,
 * and times one prepareRequest.
 */
import { CONTEXT_DEFAULTS, type ContextDefaults } from '../../src/core/context/defaults';
import { ContextEngine } from '../../src/core/context/engine';
import { silentLogger } from '../../src/core/logger';
import type { MessageParam } from '../../src/core/model/messages';
import { createToolRegistry } from '../../src/core/tools/registry';
import { prng } from './workspace';

export interface OverheadRow {
  messages: number;
  chars: number;
  runs: number;
  medianMs: number;
  p95Ms: number;
}

function round(index: number, rand: () => number): MessageParam[] {
  const id = `toolu_ovh_${index}`;
  const file = `src/mod${Math.floor(rand() * 40)}.ts`;
  const kind = rand();
  const name = kind < 0.6 ? 'read_file' : kind < 0.8 ? 'grep_search' : 'run_shell';
  const input = name === 'read_file' ? { path: file } : name === 'grep_search' ? { pattern: 'export function', path: 'src' } : { command: 'ls -la src' };
  const size = Math.floor(10 + rand() * 90);
  const body = Array.from({ length: Math.ceil(size / 40) }, (_, i) => `${i + 1}\texport const value${i} = ${Math.floor(rand() * 1e6)};`).join('\n');
  return [
    { role: 'assistant', content: [{ type: 'text', text: `Checking ${file}.` }, { type: 'tool_use', id, name, input }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: body }] },
  ];
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

export async function measureOverhead(sizes = [200, 2_000, 10_000], runs = 200): Promise<OverheadRow[]> {
  const tools = createToolRegistry({ trusted: true, compact: true }).list();
  const rows: OverheadRow[] = [];
  for (const size of sizes) {
    const rand = prng(size);
    const history: MessageParam[] = [{ role: 'user', content: [{ type: 'text', text: 'Refactor the modules.' }] }];
    let next = 0;
    while (history.length < size - 1) history.push(...round(next++, rand));
    const chars = JSON.stringify(history).length;
    // Window sized so the history sits at ~65% of it: tiers 1-2 plan (budget, snip) on every call.
    const window = Math.round(chars / 4 / 0.65) + CONTEXT_DEFAULTS.maxOutputTokens;
    let clock = Date.UTC(2026, 10, 21);
    const engine = new ContextEngine({
      history: () => history,
      system: 'You are a coding agent.',
      tools,
      model: {
        stream: async () => ({ content: [{ type: 'text', text: '<summary>stub</summary>', citations: null }], stopReason: 'end_turn', usage: { inputTokens: 0, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 }, costUsd: 0 }),
      },
      window,
      maxOutputTokens: CONTEXT_DEFAULTS.maxOutputTokens,
      // The proactive summary is a model call, not pipeline overhead: kept out of this measurement.
      // (ContextDefaults has literal types, so an override needs the cast.)
      settings: { proactiveMinUtilization: 1 } as unknown as Partial<ContextDefaults>,
      logger: silentLogger,
      now: () => clock,
      emit: () => undefined,
    });
    const signal = new AbortController().signal;
    const samples: number[] = [];
    let prepared = await engine.prepareRequest(signal);
    for (let run = 0; run < runs + 10; run++) {
      engine.onResponse(prepared, { inputTokens: 50, outputTokens: 80, cacheReadTokens: prepared.estimatedTokens - 50, cacheWriteTokens: 0 });
      history.push(...round(next++, rand));
      clock += 4000;
      const started = process.hrtime.bigint();
      prepared = await engine.prepareRequest(signal);
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (run >= 10) samples.push(ms);
    }
    rows.push({ messages: size, chars, runs, medianMs: quantile(samples, 0.5), p95Ms: quantile(samples, 0.95) });
  }
  return rows;
}
