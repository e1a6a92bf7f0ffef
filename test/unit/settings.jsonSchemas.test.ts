/**
 * The JSON schemas package.json gives the object settings (src/frontends/settingSchemas.ts) mark
 * exactly what the core's parsers report: a value settings.json underlines is one the extension
 * will name as ignored, and a value it accepts is one the extension uses. Checked on generated
 * values with ajv (draft 07, as VS Code's JSON service reads them) against the committed
 * package.json, so what users get is what is tested. What no schema can say is left out of the
 * generated values and of the claim: `${…}` variables and whether a URL string parses.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import Ajv from 'ajv';
import fc from 'fast-check';
import { CONTEXT_DEFAULTS, parseContextOverrides } from '../../src/core/context/defaults';
import { parseMcpConfigValue } from '../../src/core/mcp/config';
import { parsePriceOverrides } from '../../src/core/model/models';
import { settingName, type SettingKey } from '../../src/frontends/settingsTable';

const ROOT = path.join(__dirname, '..', '..');
const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { contributes: { configuration: Array<{ properties: Record<string, object> }> } };

/** The setting's declaration in package.json (VS Code's own keywords, `scope` and friends, are not JSON Schema's: ajv ignores them). */
function declared(key: SettingKey): { properties?: Record<string, { minimum?: number; maximum?: number }> } {
  const property = manifest.contributes.configuration.map((category) => category.properties[settingName(key)]).find((found) => found !== undefined);
  assert.ok(property, `${settingName(key)} is not in package.json`);
  return property;
}

function schemaOf(key: SettingKey): (value: unknown) => boolean {
  const validate = new Ajv({ strict: false, allErrors: true }).compile(declared(key));
  return (value) => validate(value) === true;
}

/** A JSON number (no NaN or infinity: settings come from JSON). */
const number = fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e9, max: 1e9 });
const notObject = fc.oneof(fc.constant(null), fc.string(), number, fc.boolean(), fc.array(fc.integer(), { maxLength: 2 }));

function agree(key: SettingKey, values: fc.Arbitrary<unknown>, parserAccepts: (value: unknown) => boolean, runs = 1000): void {
  const schemaAccepts = schemaOf(key);
  let accepted = 0;
  fc.assert(
    fc.property(values, (value) => {
      const parser = parserAccepts(value);
      if (parser) accepted++;
      assert.equal(schemaAccepts(value), parser, `${settingName(key)} = ${JSON.stringify(value)}: the parser ${parser ? 'accepts' : 'reports'} it`);
    }),
    { numRuns: runs },
  );
  // Both answers must come up, or the generated values test nothing.
  assert.ok(accepted > runs / 20 && accepted < runs - runs / 20, `${settingName(key)}: ${accepted} of ${runs} generated values were valid`);
}

describe('object settings: JSON schema and parser', () => {
  it('evergreen.compression: known keys, each a number in its range', () => {
    // Every engine number (the overridable ones and the rest) and a few unknown keys; values at
    // and just past the bounds the schema declares, and everywhere else.
    const declaredRanges = declared('compression').properties ?? {};
    const bounds = (key: string): number[] => {
      const range = declaredRanges[key];
      return range?.minimum !== undefined && range.maximum !== undefined ? [range.minimum, range.maximum, range.minimum - 0.001, range.maximum + 1, (range.minimum + range.maximum) / 2] : [];
    };
    const entry = fc.constantFrom(...Object.keys(CONTEXT_DEFAULTS), 'persistThreshold', 'bogus').chain((key) =>
      fc.tuple(fc.constant(key), fc.oneof(...(bounds(key).length > 0 ? [fc.constantFrom(...bounds(key))] : []), fc.constantFrom(0, 0.05, 0.5, 1, 3, 100, 1024, 1e6, -1), number, fc.string(), fc.constant(null))),
    );
    const value = fc.oneof({ weight: 9, arbitrary: fc.uniqueArray(entry, { maxLength: 3, selector: ([key]) => key }).map((entries) => Object.fromEntries(entries)) }, { weight: 1, arbitrary: notObject.filter((v) => v !== null) });
    agree('compression', value, (v) => parseContextOverrides(v).problems.length === 0);
  });

  it('evergreen.pricing: per model, all four prices, each at least 0', () => {
    const valid = fc.record({ input: fc.double({ noNaN: true, min: 0, max: 100 }), output: fc.constantFrom(0, 10), cacheRead: fc.nat(), cacheWrite: fc.nat(), note: fc.string() }, { requiredKeys: ['input', 'output', 'cacheRead', 'cacheWrite'] });
    // A valid entry with at most one price changed: removed, negative, or not a number.
    const field = fc.constantFrom('input', 'output', 'cacheRead', 'cacheWrite');
    const change = fc.option(fc.tuple(field, fc.constantFrom(undefined, -0.01, -5, '2', null, 0)), { nil: undefined });
    const entry = fc.oneof(
      { weight: 9, arbitrary: fc.tuple(valid, change).map(([prices, changed]) => (changed ? { ...prices, [changed[0]]: changed[1] } : prices)) },
      { weight: 1, arbitrary: notObject },
    );
    const value = fc.oneof({ weight: 9, arbitrary: fc.dictionary(fc.constantFrom('claude-sonnet-5-5', 'gpt-4.1', 'local'), entry, { maxKeys: 2 }) }, { weight: 1, arbitrary: notObject.filter((v) => v !== null) });
    agree('pricing', value, (v) => parsePriceOverrides(v).problems.length === 0);
  });

  it('evergreen.mcp.servers: stdio by command, http and sse by url, each kind checking its own keys', () => {
    const server = fc.record(
      {
        type: fc.constantFrom('stdio', 'http', 'sse', 'ws', 5, null),
        command: fc.constantFrom('node', 'npx', '', ' ', 5, null),
        args: fc.constantFrom(['-y', 'server'], [], ['a', 5], 'a', null),
        env: fc.constantFrom({ TOKEN: 'x' }, {}, { TOKEN: 5 }, [], 'x', null),
        cwd: fc.constantFrom('/tmp', 5, null),
        url: fc.constantFrom('http://127.0.0.1:3000/mcp', 'https://mcp.example.com/', 5, null),
        headers: fc.constantFrom({ Authorization: 'Bearer x' }, {}, { 'X-N': 1 }, [], null),
        timeout: fc.anything({ maxDepth: 1 }),
      },
      { requiredKeys: [] },
    );
    const value = fc.oneof(
      { weight: 9, arbitrary: fc.dictionary(fc.constantFrom('github', 'fs', '', ' ', '\t'), fc.oneof({ weight: 9, arbitrary: server }, { weight: 1, arbitrary: notObject }), { maxKeys: 2 }) },
      { weight: 1, arbitrary: notObject.filter((v) => v !== null) },
    );
    agree('mcp.servers', value, (v) => parseMcpConfigValue(v, { scope: 'user', source: settingName('mcp.servers') }, { env: {}, workspaceFolder: '/w' }, { bare: true }).problems.length === 0, 2000);
  });
});
