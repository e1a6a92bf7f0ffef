// A tool's input declared once as a zod schema (tools/toolInput.ts): the JSON schema the model gets
// and the messages it reads when its input is wrong. The exact definitions sent are pinned by
// tools.definitions.test.ts; the wording per tool by tools.registry.test.ts.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ToolInputError } from '../../src/core/errors';
import { createToolRegistry } from '../../src/core/tools/registry';
import { defineTool, inputCheck, refuse, schemaPerSetting, toolInputParser, toolJsonSchema } from '../../src/core/tools/toolInput';
import * as z from '../../src/core/zod';
import { verbatim } from '../../src/core/texts/userText';

function problemOf(parse: () => unknown): string {
  try {
    parse();
  } catch (error) {
    assert.ok(error instanceof ToolInputError, `a ToolInputError, got ${String(error)}`);
    return error.message;
  }
  assert.fail('the input was accepted');
}

describe('tool input: the JSON schema from zod', () => {
  it('writes keywords in one order, however the schema was composed', () => {
    const described = z.object({ n: z.int().min(1).optional().describe('count'), s: z.string().describe('text').optional() });
    const optionalFirst = z.object({ n: z.int().min(1).describe('count').optional(), s: z.string().optional().describe('text') });
    const expected = '{"type":"object","properties":{"n":{"type":"integer","minimum":1,"description":"count"},"s":{"type":"string","description":"text"}}}';
    assert.equal(JSON.stringify(toolJsonSchema(described)), expected);
    assert.equal(JSON.stringify(toolJsonSchema(optionalFirst)), expected);
  });

  it('keeps property names in their order, also names that are keywords', () => {
    const schema = toolJsonSchema(z.object({ type: z.string(), description: z.string(), items: z.array(z.string()).describe('list') }));
    assert.deepEqual(Object.keys(schema.properties), ['type', 'description', 'items']);
    assert.equal(JSON.stringify(schema.properties['items']), '{"type":"array","description":"list","items":{"type":"string"}}');
  });

  it('leaves out the dialect and the safe-integer range z.int() implies, but keeps a bound the schema sets', () => {
    const schema = toolJsonSchema(z.object({ a: z.int(), b: z.int().max(10) }));
    assert.equal('$schema' in schema, false);
    assert.deepEqual(schema.properties, { a: { type: 'integer' }, b: { type: 'integer', maximum: 10 } });
  });

  it('describes what the model may send: defaults and transforms are invisible, optional parameters not required', () => {
    const schema = toolJsonSchema(
      z
        .object({ path: z.string(), limit: z.int().optional() })
        .refine((input) => input.path !== 'x', 'no x')
        .transform(({ limit = 5, ...rest }) => ({ ...rest, limit })),
    );
    assert.equal(JSON.stringify(schema), '{"type":"object","properties":{"path":{"type":"string"},"limit":{"type":"integer"}},"required":["path"]}');
  });

  it('refuses a schema that is not an object (a tool takes named parameters)', () => {
    assert.throws(() => toolJsonSchema(z.string()), /must be an object schema/);
  });
});

describe('tool input: what the model reads when its input is wrong', () => {
  const parser = toolInputParser(
    z.object({
      path: z.string().describe('a path'),
      count: z.int().min(1).max(9).optional(),
      flag: z.boolean().optional(),
      mode: z.enum(['fast', 'slow']).optional(),
      items: z.array(z.object({ id: z.string() })).optional(),
    }),
  );

  it('names the parameters when the input is no object', () => {
    for (const raw of [undefined, null, 'a.txt', 3, [], true]) {
      assert.match(problemOf(() => parser.parse(raw)), /^Expected the input to be a JSON object with parameters path, count, flag, mode, items, got (nothing|null|a string|a number|an array|a boolean)\.$/);
    }
  });

  it('a missing parameter, with the names it did not know', () => {
    assert.equal(problemOf(() => parser.parse({})), 'Missing required parameter "path".');
    assert.equal(problemOf(() => toolInputParser(z.object({ mode: z.enum(['a', 'b']) })).parse({})), 'Missing required parameter "mode".', 'an enum too');
    assert.equal(problemOf(() => parser.parse({ file: 'a', other: 1 })), 'Missing required parameter "path" (unrecognized parameters: file, other).');
  });

  it('null is an absent parameter: fine when optional, missing when required', () => {
    assert.deepEqual(parser.parse({ path: 'a', count: null, flag: null }), { path: 'a' });
    assert.equal(problemOf(() => parser.parse({ path: null })), 'Missing required parameter "path".');
  });

  it('says what each wrong value must be and what it was, every problem once', () => {
    assert.equal(problemOf(() => parser.parse({ path: 4 })), 'Parameter "path" must be a string, got a number.');
    assert.equal(problemOf(() => parser.parse({ path: 'a', count: '2' })), 'Parameter "count" must be an integer, got a string.');
    assert.equal(problemOf(() => parser.parse({ path: 'a', count: 2.5 })), 'Parameter "count" must be an integer, got 2.5.');
    assert.equal(problemOf(() => parser.parse({ path: 'a', count: 0 })), 'Parameter "count" must be at least 1, got 0.');
    assert.equal(problemOf(() => parser.parse({ path: 'a', count: 10 })), 'Parameter "count" must be at most 9, got 10.');
    assert.equal(problemOf(() => parser.parse({ path: 'a', flag: 'yes' })), 'Parameter "flag" must be a boolean (true or false), got a string.');
    assert.equal(problemOf(() => parser.parse({ path: 'a', mode: 'medium' })), 'Parameter "mode" must be one of "fast", "slow", got "medium".');
    assert.equal(problemOf(() => parser.parse({ path: 'a', items: [{ id: 1 }] })), 'Parameter "items[0].id" must be a string, got a number.');
    assert.equal(problemOf(() => parser.parse({ path: [], count: -1 })), 'Parameter "path" must be a string, got an array. Parameter "count" must be at least 1, got -1.');
  });

  it("a check's phrase completes the parameter's sentence; a refusal stands as written and ends the checking", () => {
    const later: string[] = [];
    const checked = toolInputParser(
      z
        .object({ a: z.string().refine((text) => text !== '', 'must not be empty'), b: z.string() })
        .superRefine((input, ctx) => {
          if (input.a === input.b) refuse(ctx, 'a and b are the same; nothing to do.');
        })
        .superRefine((input) => void later.push(input.a)),
    );
    assert.equal(problemOf(() => checked.parse({ a: '', b: 'x' })), 'Parameter "a" must not be empty.');
    assert.deepEqual(later, [''], 'a phrase leaves the other checks to run');
    assert.equal(problemOf(() => checked.parse({ a: 'x', b: 'x' })), 'a and b are the same; nothing to do.');
    assert.deepEqual(later, [''], 'nothing was checked after the refusal');
  });

  it('a check shared with code that throws ToolInputError keeps its words; other errors are not swallowed', () => {
    const shared = (value: { a: string }) => {
      if (value.a === 'bad') throw new ToolInputError('Parameter "a" is bad, as the shared check says.');
      if (value.a === 'bug') throw new TypeError('a bug');
    };
    const checked = toolInputParser(z.object({ a: z.string() }).superRefine(inputCheck(shared)));
    assert.equal(problemOf(() => checked.parse({ a: 'bad' })), 'Parameter "a" is bad, as the shared check says.');
    assert.throws(() => checked.parse({ a: 'bug' }), TypeError);
  });

  it('defineTool: the definition gets the derived schema and the parser', () => {
    const tool = defineTool({
      name: 'echo',
      description: 'Echo.',
      kind: 'meta',
      input: z.object({ text: z.string().describe('what to say') }).transform(({ text }) => ({ text, length: text.length })),
      headline: (input) => verbatim(input.text),
      run: async (input) => ({ content: `${input.text} (${input.length})` }),
    });
    assert.deepEqual(tool.inputSchema, { type: 'object', properties: { text: { type: 'string', description: 'what to say' } }, required: ['text'] });
    assert.deepEqual(tool.parse({ text: 'hi' }), { text: 'hi', length: 2 });
    assert.throws(() => tool.parse({}), /Missing required parameter "text"/);
  });

  it('offers the model less than it accepts, when the tool says so; messages name what was offered', () => {
    const fields = z.object({ path: z.string().describe('a path'), reason: z.string().optional().describe('why') });
    const tool = defineTool({ name: 'narrow', description: 'Narrow.', kind: 'meta', input: fields, offered: fields.omit({ reason: true }), headline: (input) => verbatim(input.path), run: async () => ({ content: '' }) });
    assert.deepEqual(tool.inputSchema, { type: 'object', properties: { path: { type: 'string', description: 'a path' } }, required: ['path'] });
    assert.deepEqual(tool.parse({ path: 'a', reason: 'r' }), { path: 'a', reason: 'r' }, 'still accepted');
    assert.equal(problemOf(() => tool.parse({ reason: 'r' })), 'Missing required parameter "path" (unrecognized parameter: reason).');
    // run_shell without a sandbox: no way out is offered, and one asked for anyway is read as before (isolationFor ignores it there).
    const shell = createToolRegistry({ trusted: true }).get('run_shell')!;
    assert.equal('outside_sandbox_reason' in shell.inputSchema.properties, false);
    assert.deepEqual(shell.parse({ command: 'ls', outside_sandbox_reason: ' needs the network ' }), { command: 'ls', timeout_ms: 120_000, outside_sandbox_reason: 'needs the network' });
  });

  it('builds a schema once per setting, and each setting keeps its own (a registry is made per session and subagent)', () => {
    const built: number[] = [];
    const schemaFor = schemaPerSetting(String, (limit: number) => {
      built.push(limit);
      return z.object({ n: z.int().max(limit) });
    });
    assert.strictEqual(schemaFor(5), schemaFor(5));
    assert.notStrictEqual(schemaFor(5), schemaFor(6));
    assert.deepEqual(built, [5, 6]);
    const tenLines = createToolRegistry({ trusted: true, readFile: { defaultLimit: 10 } }).get('read_file')!;
    const usual = createToolRegistry({ trusted: true }).get('read_file')!;
    assert.match(JSON.stringify(tenLines.inputSchema), /default 10\)/);
    assert.match(JSON.stringify(usual.inputSchema), /default 2000\)/);
    assert.strictEqual(usual.inputSchema, createToolRegistry({ trusted: true }).get('read_file')!.inputSchema, 'the same bytes, computed once');
  });

  it("every built-in tool refuses any hostile input with a ToolInputError, never another error (the model's input is untrusted)", () => {
    const tools = createToolRegistry({ trusted: true, task: true })
      .list()
      .map((spec) => createToolRegistry({ trusted: true, task: true }).get(spec.name)!);
    const keys = [...new Set(tools.flatMap((tool) => Object.keys(tool.inputSchema.properties))), '__proto__', 'constructor', 'toString'];
    const value = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constant(undefined), fc.string());
    const input = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.dictionary(fc.constantFrom(...keys), value, { maxKeys: 6 }));
    fc.assert(
      fc.property(input, fc.constantFrom(...tools), (raw, tool) => {
        try {
          tool.parse(raw);
        } catch (error) {
          assert.ok(error instanceof ToolInputError, `${tool.name} threw ${String(error)} for ${JSON.stringify(raw)}`);
          assert.match(error.message, /^(Expected the input|Missing required parameter|Parameter "|"|The |Pass exactly one|old_string and new_string)/, `${tool.name}: ${error.message}`);
        }
      }),
      { numRuns: 400 },
    );
  });
});
