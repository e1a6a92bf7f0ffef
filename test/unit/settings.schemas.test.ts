/**
 * The object settings `evergreen.pricing` and `evergreen.compression` read through their zod
 * schemas: each bad value named, the good ones kept; and the compression schema's JSON form, with
 * each number's default (frontends/settingSchemas.ts). That the JSON schemas accept exactly what
 * the parsers accept is settings.jsonSchemas.test.ts's property test; the MCP servers' wording is
 * mcp.config.test.ts's.
 */
import assert from 'node:assert/strict';
import Ajv from 'ajv';
import { CONTEXT_DEFAULTS, parseContextOverrides } from '../../src/core/context/defaults';
import { parsePriceOverrides } from '../../src/core/model/models';
import { SETTING_JSON_SCHEMAS } from '../../src/frontends/settingSchemas';

const ajv = new Ajv({ strict: false });
const price = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
const accepts = (value: unknown): boolean => ajv.validate(SETTING_JSON_SCHEMAS.compression, value);

describe('object settings: schemas', () => {
  describe('evergreen.pricing', () => {
    it('keeps the good prices and names each bad one with its wrong fields', () => {
      const { prices, problems } = parsePriceOverrides({ good: price, negative: { ...price, input: -1 }, text: { ...price, output: '15', cacheRead: null }, five: 5 });
      assert.deepEqual(prices, { good: price });
      assert.deepEqual(problems, [
        'pricing for "negative" needs non-negative numbers for input',
        'pricing for "text" needs non-negative numbers for output, cacheRead',
        'pricing for "five" needs non-negative numbers for input, output, cacheRead, cacheWrite',
      ]);
      assert.deepEqual(parsePriceOverrides('cheap').problems, ['pricing must be an object keyed by model id']);
      assert.deepEqual(parsePriceOverrides(null), { prices: {}, problems: [] });
      // A note beside the numbers is no problem, and is not kept.
      assert.deepEqual(parsePriceOverrides({ m: { ...price, note: 'list price' } }), { prices: { m: price }, problems: [] });
    });
  });

  describe('evergreen.compression', () => {
    it('keeps the good numbers and names each bad key, in the order written', () => {
      const { settings, problems } = parseContextOverrides({ snipUtilization: 2, clearUtilization: 0.3, nope: 1, cacheTtlMs: 'soon' });
      assert.deepEqual(settings, { clearUtilization: 0.3 });
      assert.equal(problems.length, 3);
      assert.equal(problems[0], 'compression setting "snipUtilization" must be a number from 0 to 1');
      assert.match(problems[1]!, /^unknown compression setting "nope" \(known: persistThresholdBytes, /);
      assert.equal(problems[2], 'compression setting "cacheTtlMs" must be a number from 1000 to 86400000');
      assert.deepEqual(parseContextOverrides([1]).problems, ['compression settings must be an object of numbers']);
      // The CLI's --context-setting KEY=abc arrives as NaN.
      assert.deepEqual(parseContextOverrides({ restoreFiles: Number('abc') }).problems, ['compression setting "restoreFiles" must be a number from 0 to 20']);
    });

    it('refuses a key that only the object prototype has (the hand-written check took "toString" as a setting)', () => {
      const { settings, problems } = parseContextOverrides({ toString: 1, constructor: 2 });
      assert.deepEqual(settings, {});
      assert.equal(problems.length, 2);
      assert.match(problems[0]!, /^unknown compression setting "toString"/);
    });

    it('its JSON schema lists every key with its default and range, and takes no other key', () => {
      const schema = SETTING_JSON_SCHEMAS.compression as { properties: Record<string, { default: number; minimum: number; maximum: number }>; additionalProperties: boolean };
      assert.equal(schema.additionalProperties, false);
      for (const [key, property] of Object.entries(schema.properties)) {
        assert.equal(property.default, CONTEXT_DEFAULTS[key as keyof typeof CONTEXT_DEFAULTS], key);
        assert.deepEqual(parseContextOverrides({ [key]: property.default }), { settings: { [key]: property.default }, problems: [] }, `${key}: its default is in its range`);
        assert.equal(parseContextOverrides({ [key]: property.maximum + 1 }).problems.length, 1, `${key}: above its maximum`);
        assert.equal(accepts({ [key]: property.minimum - 1 }), false, `${key}: the schema's minimum`);
      }
      assert.equal(accepts({ nope: 1 }), false);
      assert.equal(accepts({ snipUtilization: 0.5, clearUtilization: 0.3 }), true);
    });
  });
});
