/**
 * Tools describe themselves to the context engine (issue 15, item 3): the engine knows no tool by name, so a
 * tool it has never seen (an MCP tool) gets the default treatment and a made-up tool that declares kind 'read'
 * gets a read's treatment, through the lookup alone, with no engine change.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ContextEngine } from '../../src/core/context/engine';
import { PERSISTED_MARK } from '../../src/core/context/tier0';
import { collectToolResults, planTierEdits, type PlannedEdit, type ToolResultRef } from '../../src/core/context/tiers';
import { CONTEXT_DEFAULTS } from '../../src/core/context/defaults';
import { toolResultText } from '../../src/core/model/content';
import type { ContentBlockParam, MessageParam } from '../../src/core/model/messages';
import { builtInToolTraits, createToolRegistry, toolTraitsLookup } from '../../src/core/tools/registry';
import { DEFAULT_TOOL_CONTEXT, type ToolDefinition, type ToolTraitsLookup } from '../../src/core/tools/types';
import { ToolInputError } from '../../src/core/errors';
import { NodeWorkspace } from '../../src/core/workspace/workspace';
import { bulk, Rig } from './context.harness';
import { useTempDirs } from '../support/tempDirs';
import { verbatim } from '../../src/core/texts/userText';
import { said } from '../support/said';

const MCP_FETCH = 'mcp__srv__fetch';

/** A tool no engine code has heard of: it reads a document named by `doc`, in pages. */
const openDoc: ToolDefinition<{ doc: string; page: number }> = {
  name: 'open_doc',
  description: 'Open a document.',
  kind: 'read',
  context: { kind: 'read', target: (input) => ({ path: input.doc, part: String(input.page) }) },
  inputSchema: { type: 'object', properties: { doc: { type: 'string' }, page: { type: 'integer' } }, required: ['doc'] },
  parse(input) {
    const record = input as Record<string, unknown>;
    if (typeof record.doc !== 'string') throw new ToolInputError('doc must be a string');
    return { doc: record.doc, page: typeof record.page === 'number' ? record.page : 1 };
  },
  headline: (input) => verbatim(input.doc),
  run: async () => ({ content: '' }),
};

/** Another reader of the same documents, which may show them differently. */
const viewDoc: ToolDefinition<{ doc: string; page: number }> = { ...openDoc, name: 'view_doc' };

/** A registry holding only open_doc and view_doc: every other name (the MCP tool, even read_file) is unknown to it. */
const traits: ToolTraitsLookup = toolTraitsLookup({ get: (name) => [openDoc, viewDoc].find((tool) => tool.name === name) as ToolDefinition<unknown> | undefined });

interface Call {
  name: string;
  input: Record<string, unknown>;
  chars: number;
}

function history(calls: Call[]): MessageParam[] {
  const out: MessageParam[] = [{ role: 'user', content: [{ type: 'text', text: 'go' }] }];
  calls.forEach((call, i) => {
    out.push({ role: 'assistant', content: [{ type: 'tool_use', id: `t${i}`, name: call.name, input: call.input }] });
    out.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: `${call.name}#${i} `.padEnd(call.chars, '.') }] as ContentBlockParam[] });
  });
  return out;
}

function plan(canonical: MessageParam[], utilization: number, cacheCold: boolean, lookup: ToolTraitsLookup): PlannedEdit[] {
  const refs = collectToolResults(canonical, 0, new Map(), lookup);
  const original = (ref: ToolResultRef) => {
    const block = (canonical[ref.messageIndex]!.content as ContentBlockParam[]).find((b) => b.type === 'tool_result' && b.tool_use_id === ref.toolUseId);
    assert.ok(block && block.type === 'tool_result');
    return toolResultText(block);
  };
  return planTierEdits(refs, utilization, cacheCold, { ...CONTEXT_DEFAULTS, clearUtilization: 1 }, original);
}

const fetchCall = (chars = 1_000): Call => ({ name: MCP_FETCH, input: { url: 'https://example.com', path: 'a.ts' }, chars });
const docCall = (doc: string, page = 1): Call => ({ name: 'open_doc', input: { doc, page }, chars: 1_000 });
const filler = (): Call => ({ name: MCP_FETCH, input: { url: 'https://example.com/other' }, chars: 10 });

describe('tool traits: a tool the engine does not know (MCP)', () => {
  const temp = useTempDirs();

  it('gets the default traits: other, clearable, persisted when huge', () => {
    assert.deepEqual(traits(MCP_FETCH), DEFAULT_TOOL_CONTEXT);
    assert.equal(DEFAULT_TOOL_CONTEXT.kind, 'other');
    assert.notEqual(DEFAULT_TOOL_CONTEXT.clearable, false);
    assert.notEqual(DEFAULT_TOOL_CONTEXT.persist, 'never');
    assert.deepEqual(builtInToolTraits(MCP_FETCH), DEFAULT_TOOL_CONTEXT, 'the built-in lookup knows no MCP tool either');
  });

  it('is never snipped as a superseded read or an old search, however often the same call repeats', () => {
    const canonical = history([fetchCall(), fetchCall(), fetchCall(), fetchCall(), fetchCall(), filler(), filler(), filler()]);
    assert.deepEqual(plan(canonical, 0.69, false, traits), [], 'above the snip gate, nothing of it is snipped');
    // The same history as a search tool's: the very same planning snips it, so the gate above was open.
    const asSearch = canonical.map((message) => JSON.parse(JSON.stringify(message).replaceAll(MCP_FETCH, 'grep_search')) as MessageParam);
    assert.ok(plan(asSearch, 0.69, false, builtInToolTraits).some((edit) => edit.tier === 'snip'));
  });

  it('is cleared once it is old (cold cache), the newest results kept', () => {
    const canonical = history([fetchCall(), fetchCall(), filler(), filler(), filler()]);
    const cleared = plan(canonical, 0.1, true, traits);
    assert.deepEqual(
      cleared.map((edit) => [edit.tier, edit.ref.toolUseId, edit.ref.traits.kind]),
      [
        ['microcompact', 't0', 'other'],
        ['microcompact', 't1', 'other'],
      ],
    );
  });

  it('is persisted by tier 0 when huge, and never restored after a compaction although its input has a path', async () => {
    const root = temp.make('evergreen-traits-');
    fs.writeFileSync(path.join(root, 'a.ts'), 'export const a = 1;\n');
    const toolResultsDir = path.join(root, 'tool-results');
    const r = new Rig({ window: 200_000, toolResultsDir, workspace: new NodeWorkspace(root), settings: { clearUtilization: 1 } });
    r.engine = new ContextEngine(r.engineOptions({ toolTraits: traits }));
    const shown = await r.engine.onToolResult({ toolUseId: 'toolu_big', toolName: MCP_FETCH, content: bulk(40_000) });
    assert.ok(shown.startsWith(PERSISTED_MARK), shown.slice(0, 80));
    r.user('Fetch.');
    r.round([{ name: MCP_FETCH, input: { path: 'a.ts' }, result: 'fetched' }]);
    r.assistant('Done.');
    const outcome = await r.engine.compact(undefined, 'manual', new AbortController().signal);
    assert.equal(outcome.ok, true, said(outcome.message));
    assert.deepEqual(outcome.record?.restoredFiles, [], 'an undeclared tool is never assumed to have read a file');
  });
});

describe('tool traits: a made-up tool that declares kind read', () => {
  const temp = useTempDirs();

  it('has its older read of the same document part snipped, naming the document; other parts kept', () => {
    const canonical = history([docCall('docs/guide.md'), docCall('docs/guide.md', 2), docCall('./docs/guide.md'), filler(), filler(), filler()]);
    const snips = plan(canonical, 0.65, false, traits);
    assert.deepEqual(
      snips.map((edit) => [edit.tier, edit.ref.toolUseId]),
      [['snip', 't0']],
    );
    const [snip] = snips;
    assert.ok(snip && snip.edit.action === 'snip');
    assert.match(snip.edit.reason, /docs\/guide\.md/);
    assert.deepEqual(plan(canonical, 0.65, false, builtInToolTraits), [], 'without its declaration the same history is not snipped');
  });

  it('is superseded only by a later read of its own tool: another tool may show the same part differently', () => {
    const canonical = history([docCall('a.md'), { ...docCall('a.md'), name: 'view_doc' }, filler(), filler(), filler()]);
    assert.deepEqual(plan(canonical, 0.65, false, traits), []);
  });

  it('has a call whose input does not parse name no file (recorded input is untrusted)', () => {
    const read = traits('open_doc');
    assert.equal(read.kind, 'read');
    assert.ok(read.kind === 'read');
    assert.deepEqual(read.target({ doc: 'a.md', page: 3 }), { path: 'a.md', part: '3' });
    assert.equal(read.target({ doc: 42 }), undefined);
    assert.equal(read.target('a.md'), undefined);
  });

  it('has the documents it read restored after a compaction, newest first', async () => {
    const root = temp.make('evergreen-traits-');
    fs.writeFileSync(path.join(root, 'one.md'), '# One\n');
    fs.writeFileSync(path.join(root, 'two.md'), '# Two\n');
    const r = new Rig({ window: 200_000, workspace: new NodeWorkspace(root), settings: { clearUtilization: 1 } });
    r.engine = new ContextEngine(r.engineOptions({ toolTraits: traits }));
    r.user('Read the docs.');
    r.round([{ name: 'open_doc', input: { doc: 'one.md' }, result: '# One' }]);
    r.round([{ name: 'open_doc', input: { doc: 'two.md' }, result: '# Two' }]);
    // read_file is unknown to this lookup, so it is no read here (else one.md, read last, would come first).
    r.round([{ name: 'read_file', input: { path: 'one.md' }, result: '# One' }]);
    r.assistant('Read them.');
    const outcome = await r.engine.compact(undefined, 'manual', new AbortController().signal);
    assert.equal(outcome.ok, true, said(outcome.message));
    assert.deepEqual(
      outcome.record?.restoredFiles.map((file) => [file.path, file.content]),
      [
        ['two.md', '# Two\n'],
        ['one.md', '# One\n'],
      ],
    );
  });
});

describe('tool traits: the built-in tools declare theirs', () => {
  it('every built-in tool has a context declaration, and the lookup gives read_file read treatment', () => {
    const registry = createToolRegistry({ trusted: true, task: true });
    for (const spec of registry.list()) assert.ok(registry.get(spec.name)?.context, `${spec.name} declares its context traits`);
    const readFile = builtInToolTraits('read_file');
    assert.equal(readFile.kind, 'read');
    assert.ok(readFile.kind === 'read');
    assert.deepEqual(readFile.target({ path: 'src/a.ts', offset: 5 }), { path: 'src/a.ts', part: '5:' });
    assert.equal(readFile.persist, 'never');
    assert.equal(builtInToolTraits('grep_search').kind, 'search');
    assert.equal(builtInToolTraits('compact').clearable, false);
  });
});
