/**
 * Tiers 0-3 (docs/architecture.md, "Context engine"): tier 0 persist / truncate through the engine (and read back with the
 * real read_file tool), and the pure planning of tiers 1-3 (budget trims, snips, microcompact).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CONTEXT_DEFAULTS } from '../../src/core/context/defaults';
import { CLEARED_MARK, clearedText, editedResultText, SNIP_PREFIX } from '../../src/core/context/liveView';
import { PERSISTED_MARK } from '../../src/core/context/tier0';
import { collectToolResults, planTierEdits, type PlannedEdit, type ToolResultRef } from '../../src/core/context/tiers';
import { toolResultText } from '../../src/core/model/content';
import type { ContentBlockParam, MessageParam } from '../../src/core/model/messages';
import { createReadFileTool } from '../../src/core/tools/readFile';
import type { ToolContext } from '../../src/core/tools/types';
import { NodeWorkspace } from '../../src/core/workspace/workspace';
import { Rig } from './context.harness';
import { useTempDirs } from '../support/tempDirs';

const numberedLines = (count: number, width = 60) => Array.from({ length: count }, (_, i) => `line ${i + 1} `.padEnd(width, '=')).join('\n');

describe('tier 0: persist and truncate large tool results', () => {
  const temp = useTempDirs();
  let root: string;
  let toolResultsDir: string;
  beforeEach(() => {
    root = temp.make('evergreen-tier0-');
    toolResultsDir = path.join(root, 'storage', 'tool-results');
    fs.mkdirSync(path.join(root, 'ws'));
  });

  it('persists a result over 30 KB, previews head and tail (<= 200 lines, <= 4 KB) naming the path, and read_file reads it back with offset/limit', async () => {
    const rig = new Rig({ window: 200_000, toolResultsDir });
    const output = numberedLines(2_000);
    assert.ok(Buffer.byteLength(output) > 30 * 1024);
    const shown = await rig.engine.onToolResult({ toolUseId: 'toolu_big', toolName: 'run_shell', content: output });
    assert.ok(shown.startsWith(PERSISTED_MARK));
    const [entry] = rig.entries;
    assert.ok(entry);
    assert.equal(entry.type, 'persisted_output');
    assert.ok(entry.type === 'persisted_output');
    assert.equal(entry.toolUseId, 'toolu_big');
    assert.equal(entry.lines, 2_000);
    assert.equal(entry.bytes, Buffer.byteLength(output));
    assert.equal(path.dirname(entry.file), toolResultsDir);
    assert.equal(fs.readFileSync(entry.file, 'utf8'), output, 'the full output is on disk');
    assert.ok(shown.includes(entry.file), 'the preview names the path');
    assert.match(shown, /2000 lines/);
    assert.match(shown, /read_file/);
    const preview = shown.slice(shown.indexOf('Preview (head and tail):\n') + 'Preview (head and tail):\n'.length);
    assert.ok(preview.split('\n').length <= 200, `${preview.split('\n').length} preview lines`);
    assert.ok(preview.length <= 4 * 1024, `${preview.length} preview chars`);
    assert.ok(preview.startsWith('line 1 '), 'the head is shown');
    assert.ok(preview.trimEnd().endsWith(output.split('\n').at(-1)!), 'the tail is shown');
    assert.match(preview, /lines omitted/);
    const [event] = rig.eventsOf('tier');
    assert.ok(event);
    assert.equal(event.type, 'tier');
    assert.equal(event.tier, 'persist');
    assert.ok(event.tokensAfter < event.tokensBefore / 5);

    // The real read_file tool pages through the persisted file (the storage is a read-only root).
    const workspace = new NodeWorkspace(path.join(root, 'ws'), [toolResultsDir]);
    const ctx: ToolContext = { workspace, signal: new AbortController().signal, onProgress: () => undefined, approve: async () => ({ approved: false }) };
    const tool = createReadFileTool({ maxOutputChars: CONTEXT_DEFAULTS.persistThresholdBytes });
    const page = await tool.run(tool.parse({ path: entry.file, offset: 1_000, limit: 3 }), ctx);
    assert.equal(page.isError, undefined);
    const body = page.content.split('\n').slice(0, 3).map((line) => line.replace(/^\s*\d+\t/, ''));
    assert.deepEqual(body, output.split('\n').slice(999, 1002));
    assert.match(page.content, /offset=1003/);
  });

  it('measures the threshold in UTF-8 bytes, strictly above 30 KB', async () => {
    const rig = new Rig({ window: 200_000, toolResultsDir });
    const exact = 'a'.repeat(30 * 1024);
    assert.equal(await rig.engine.onToolResult({ toolUseId: 'toolu_exact', toolName: 'run_shell', content: exact }), exact);
    const over = await rig.engine.onToolResult({ toolUseId: 'toolu_over', toolName: 'run_shell', content: exact + 'b' });
    assert.ok(over.startsWith(PERSISTED_MARK));
    const euros = '€'.repeat(10_500); // 10,500 characters, 31,500 bytes
    assert.ok((await rig.engine.onToolResult({ toolUseId: 'toolu_euro', toolName: 'grep_search', content: euros })).startsWith(PERSISTED_MARK));
    assert.equal(rig.entries.filter((entry) => entry.type === 'persisted_output').length, 2);
  });

  it('never overwrites an earlier persisted output with the same tool_use id', async () => {
    const rig = new Rig({ window: 200_000, toolResultsDir });
    const first = numberedLines(1_000) + 'first';
    const second = numberedLines(1_000) + 'second';
    await rig.engine.onToolResult({ toolUseId: 'toolu/dup', toolName: 'run_shell', content: first });
    await rig.engine.onToolResult({ toolUseId: 'toolu/dup', toolName: 'run_shell', content: second });
    const files = rig.entries.flatMap((entry) => (entry.type === 'persisted_output' ? [entry.file] : []));
    assert.equal(files.length, 2);
    assert.notEqual(files[0], files[1]);
    assert.ok(files.every((file) => path.dirname(file) === toolResultsDir), 'the id cannot escape the folder');
    assert.equal(fs.readFileSync(files[0]!, 'utf8'), first);
    assert.equal(fs.readFileSync(files[1]!, 'utf8'), second);
  });

  it('truncates head + tail at 50,000 characters when persisting fails (unwritable folder)', async () => {
    const blocker = path.join(root, 'not-a-dir');
    fs.writeFileSync(blocker, 'a file where the folder should be');
    const rig = new Rig({ window: 200_000, toolResultsDir: path.join(blocker, 'tool-results') });
    const output = 'HEAD-MARK\n' + 'x'.repeat(120_000) + '\nTAIL-MARK';
    const shown = await rig.engine.onToolResult({ toolUseId: 'toolu_t', toolName: 'run_shell', content: output });
    assert.ok(shown.length <= 50_000, `${shown.length} chars`);
    assert.ok(shown.length > 49_000);
    assert.ok(shown.startsWith('HEAD-MARK'));
    assert.ok(shown.endsWith('TAIL-MARK'));
    assert.match(shown, /characters omitted from the middle/);
    assert.equal(rig.entries.filter((entry) => entry.type === 'persisted_output').length, 0);
    const [event] = rig.eventsOf('tier');
    assert.ok(event);
    assert.equal(event.type, 'tier');
    assert.equal(event.tier, 'truncate');
    assert.ok(rig.logs.some((line) => line.startsWith('[error]') && line.includes('could not persist')), 'the failure is logged');
    // Between 30 KB and 50,000 characters a failed persist leaves the result whole.
    const medium = 'y'.repeat(40_000);
    assert.equal(await rig.engine.onToolResult({ toolUseId: 'toolu_m', toolName: 'run_shell', content: medium }), medium);
  });

  it('exempts read_file from persisting (its pages are on disk already) but still truncates past 50,000 characters', async () => {
    const rig = new Rig({ window: 200_000, toolResultsDir });
    const page = numberedLines(600);
    assert.ok(page.length > 30 * 1024);
    assert.equal(await rig.engine.onToolResult({ toolUseId: 'toolu_r', toolName: 'read_file', content: page }), page);
    const huge = 'z'.repeat(70_000);
    const cut = await rig.engine.onToolResult({ toolUseId: 'toolu_r2', toolName: 'read_file', content: huge });
    assert.ok(cut.length <= 50_000);
    assert.equal(rig.entries.filter((entry) => entry.type === 'persisted_output').length, 0);
    assert.equal(fs.existsSync(toolResultsDir), false, 'nothing was written');
  });

  it('leaves small results alone and emits nothing', async () => {
    const rig = new Rig({ window: 200_000, toolResultsDir });
    assert.equal(await rig.engine.onToolResult({ toolUseId: 'toolu_s', toolName: 'run_shell', content: 'ok' }), 'ok');
    assert.equal(rig.entries.length, 0);
    assert.equal(rig.events.length, 0);
  });
});

// ---- tiers 1-3 planning ---------------------------------------------------------------------------

const SETTINGS = {
  budgetSoftUtilization: CONTEXT_DEFAULTS.budgetSoftUtilization,
  budgetSoftChars: CONTEXT_DEFAULTS.budgetSoftChars,
  budgetHardUtilization: CONTEXT_DEFAULTS.budgetHardUtilization,
  budgetHardChars: CONTEXT_DEFAULTS.budgetHardChars,
  snipUtilization: CONTEXT_DEFAULTS.snipUtilization,
  snipKeepPerSearchKind: CONTEXT_DEFAULTS.snipKeepPerSearchKind,
  keepRecentResults: CONTEXT_DEFAULTS.keepRecentResults,
  // Tiers 1-2 in isolation: early clearing (tier 3 above 30%) would supersede their edits.
  clearUtilization: 1,
};

interface Call {
  name: string;
  input: Record<string, unknown>;
  chars: number;
}

/** A canonical history: a prompt, then one round per call; ids t0, t1, ... */
function history(calls: Call[]): MessageParam[] {
  const out: MessageParam[] = [{ role: 'user', content: [{ type: 'text', text: 'go' }] }];
  calls.forEach((call, i) => {
    out.push({ role: 'assistant', content: [{ type: 'tool_use', id: `t${i}`, name: call.name, input: call.input }] });
    out.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: `${call.name}#${i} `.padEnd(call.chars, '.') }] as ContentBlockParam[] });
  });
  return out;
}

function plan(canonical: MessageParam[], utilization: number, cacheCold = false, edits = new Map()): PlannedEdit[] {
  const refs = collectToolResults(canonical, 0, edits);
  const original = (ref: ToolResultRef) => {
    const message = canonical[ref.messageIndex]!;
    const block = (message.content as ContentBlockParam[]).find((b) => b.type === 'tool_result' && b.tool_use_id === ref.toolUseId);
    assert.ok(block && block.type === 'tool_result');
    return toolResultText(block);
  };
  return planTierEdits(refs, utilization, cacheCold, SETTINGS, original);
}

const read = (p: string, chars = 1_000, extra: Record<string, unknown> = {}): Call => ({ name: 'read_file', input: { path: p, ...extra }, chars });
const grep = (pattern: string, chars = 1_000): Call => ({ name: 'grep_search', input: { pattern }, chars });
const list = (p: string, chars = 1_000): Call => ({ name: 'list_files', input: { path: p }, chars });
const shell = (chars: number): Call => ({ name: 'run_shell', input: { command: 'make' }, chars });

describe('tier 1: budget trims', () => {
  it('trims old results to 30k characters above 50% and to 15k above 70%, never the 3 newest', () => {
    const canonical = history([shell(40_000), shell(20_000), shell(80_000), shell(80_000), shell(80_000)]);
    assert.deepEqual(plan(canonical, 0.5), [], 'at exactly 50% nothing is trimmed');
    const soft = plan(canonical, 0.51);
    assert.deepEqual(soft.map((p) => [p.tier, p.ref.toolUseId, p.edit]), [['budget', 't0', { toolUseId: 't0', action: 'trim', maxChars: 30_000 }]]);
    const trimmed = editedResultText('x'.repeat(40_000), soft[0]!.edit);
    assert.ok(trimmed.length <= 30_000);
    assert.equal(soft[0]!.savedChars, 40_000 - trimmed.length);
    const hard = plan(canonical, 0.71);
    assert.deepEqual(hard.map((p) => [p.ref.toolUseId, p.edit.action === 'trim' && p.edit.maxChars]), [['t0', 15_000], ['t1', 15_000]]);
    for (const item of hard) assert.ok(!['t2', 't3', 't4'].includes(item.ref.toolUseId), 'the 3 newest results are never touched');
  });

  it('trims an already trimmed result further when utilization rises, and never re-trims a snipped one', () => {
    const canonical = history([shell(40_000), shell(40_000), shell(10), shell(10), shell(10)]);
    const edits = new Map([
      ['t0', { toolUseId: 't0', action: 'trim' as const, maxChars: 30_000 }],
      ['t1', { toolUseId: 't1', action: 'snip' as const, reason: 'old' }],
    ]);
    const again = plan(canonical, 0.75, false, edits);
    assert.deepEqual(again.map((p) => [p.ref.toolUseId, p.edit.action]), [['t0', 'trim']]);
    assert.equal(again[0]!.ref.currentChars, editedResultText('x'.repeat(40_000), edits.get('t0')!).length);
    assert.equal(plan(canonical, 0.55, false, edits).length, 0, 'already within the soft budget');
  });
});

describe('tier 2: snips', () => {
  it('snips older reads of the same file (paths normalized), keeping the newest read and other ranges', () => {
    const canonical = history([read('src/a.ts'), read('./src/a.ts'), read('src/a.ts', 1_000, { offset: 50 }), read('src//a.ts'), shell(10), shell(10), shell(10)]);
    assert.deepEqual(plan(canonical, 0.6), [], 'not above 60%');
    const snips = plan(canonical, 0.61);
    assert.deepEqual(snips.map((p) => [p.tier, p.ref.toolUseId]), [['snip', 't0'], ['snip', 't1']]);
    for (const item of snips) {
      assert.equal(item.edit.action, 'snip');
      assert.ok(item.edit.action === 'snip' && item.edit.reason.includes('src/a.ts'));
      assert.ok(editedResultText('', item.edit).startsWith(SNIP_PREFIX));
    }
  });

  it('keeps the 3 newest results of each search kind and snips older ones', () => {
    const canonical = history([grep('a'), grep('b'), list('x'), grep('c'), grep('d'), grep('e'), list('y'), shell(10), shell(10), shell(10)]);
    const snips = plan(canonical, 0.65);
    assert.deepEqual(snips.map((p) => p.ref.toolUseId), ['t0', 't1'], 'grep a, b snipped; 2 list_files kept');
  });

  it('never touches the 3 newest results, even superseded reads', () => {
    const canonical = history([read('a.ts'), read('a.ts'), read('a.ts')]);
    assert.deepEqual(plan(canonical, 0.99, true), []);
    const four = history([read('a.ts'), read('a.ts'), read('a.ts'), read('a.ts')]);
    assert.deepEqual(plan(four, 0.99, false).map((p) => p.ref.toolUseId), ['t0']);
  });

  it('keeps tool_use blocks: only the result content is replaced', () => {
    const canonical = history([grep('a'), grep('b'), grep('c'), grep('d'), shell(10), shell(10), shell(10)]);
    const [snip] = plan(canonical, 0.7);
    assert.ok(snip);
    assert.equal(snip.ref.name, 'grep_search');
    assert.deepEqual(snip.ref.input, { pattern: 'a' });
  });
});

describe('tier 3: microcompact on a cold cache', () => {
  it('clears all but the 3 newest compactable results, whatever the utilization; compact results stay', () => {
    const canonical = history([shell(500), { name: 'compact', input: {}, chars: 300 }, read('a.ts', 800), grep('x', 700), shell(10), shell(10), shell(10)]);
    const cleared = plan(canonical, 0.1, true);
    assert.deepEqual(cleared.map((p) => [p.tier, p.ref.toolUseId]), [['microcompact', 't0'], ['microcompact', 't2'], ['microcompact', 't3']]);
    for (const item of cleared) assert.equal(item.savedChars, item.ref.currentChars - clearedText(item.ref.toolUseId).length);
    assert.deepEqual(plan(canonical, 0.1, false), [], 'a warm cache clears nothing');
  });

  it('does not plan an edit that frees nothing (a result shorter than its replacement)', () => {
    const canonical = history([shell(20), shell(10), shell(10), shell(10)]);
    assert.deepEqual(plan(canonical, 0.99, true), []);
  });

  it('picks, per result, the edit that frees the most', () => {
    const canonical = history([grep('a', 40_000), grep('b'), grep('c'), grep('d'), shell(10), shell(10), shell(10)]);
    const [first] = plan(canonical, 0.75, false);
    assert.ok(first);
    assert.equal(first.ref.toolUseId, 't0');
    assert.equal(first.tier, 'snip', 'a snip frees more than a trim to 15k');
    const cold = plan(canonical, 0.75, true);
    assert.equal(cold.length, 4);
    assert.ok(cold.every((item, i) => i === 0 || item.ref.messageIndex > cold[i - 1]!.ref.messageIndex), 'sorted by position');
  });
});

describe('tier edits in the engine', () => {
  it('clears old results after more than 5 minutes idle, records the edits and keeps the 3 newest', async () => {
    const rig = new Rig({ window: 200_000, settings: { clearUtilization: 1 } });
    rig.user('go');
    for (let i = 0; i < 6; i++) rig.round([{ name: 'run_shell', input: { command: `c${i}` }, result: `output ${i} `.padEnd(2_000, '-') }]);
    const first = await rig.prepare();
    rig.respond(first);
    rig.advance(5 * 60_000);
    rig.round([{ name: 'run_shell', input: { command: 'c6' }, result: 'short' }]);
    const atTtl = await rig.prepare();
    assert.ok(!JSON.stringify(atTtl.messages).includes(CLEARED_MARK), 'exactly 5 minutes: still warm');
    rig.respond(atTtl);
    rig.advance(5 * 60_000 + 1);
    rig.round([{ name: 'run_shell', input: { command: 'c7' }, result: 'short' }]);
    const cold = await rig.prepare();
    const results = cold.messages.flatMap((m) => (typeof m.content === 'string' ? [] : m.content)).filter((b) => b.type === 'tool_result');
    assert.equal(results.length, 8);
    const clearedIds = results.filter((b) => b.type === 'tool_result' && b.content === clearedText(b.tool_use_id)).map((b) => b.type === 'tool_result' && b.tool_use_id);
    assert.equal(clearedIds.length, 5);
    assert.ok(results.slice(-3).every((b) => b.type === 'tool_result' && b.content !== clearedText(b.tool_use_id)));
    const [entry] = rig.entries.filter((e) => e.type === 'tier_edit');
    assert.ok(entry);
    assert.equal(entry.type, 'tier_edit');
    assert.ok(entry.type === 'tier_edit' && entry.tier === 'microcompact' && entry.edits.length === 5);
    assert.ok(entry.tokensAfter < entry.tokensBefore);
    assert.equal(rig.history.filter((m) => JSON.stringify(m).includes(CLEARED_MARK)).length, 0, 'the canonical history keeps every result');
  });
});
