/**
 * HTTP status -> error kind is one table for every back end (errorForStatus in
 * src/core/model/errors.ts); each back end only adds what its own bodies say first.
 */
import assert from 'node:assert/strict';
import { errorForStatus, RETRYABLE_KINDS, type ModelErrorKind } from '../../src/core/model/errors';

describe('model errors: HTTP status -> kind', () => {
  const cases: [number, ModelErrorKind][] = [
    [401, 'authentication'],
    [403, 'permission'],
    [404, 'model_not_found'],
    [429, 'rate_limited'],
    [503, 'overloaded'],
    [529, 'overloaded'],
    [500, 'server'],
    [504, 'server'],
    [408, 'server'],
    [409, 'server'],
    [400, 'invalid_request'],
    [422, 'invalid_request'],
    [0, 'invalid_request'],
  ];
  for (const [status, kind] of cases) {
    it(`${status} -> ${kind}, naming the status and the server's words`, () => {
      const error = errorForStatus(status, 'the detail', 'server', 'openai', { retryAfterMs: 7 });
      assert.equal(error.kind, kind);
      assert.equal(error.status, status);
      assert.equal(error.retry.retryAfterMs, 7);
      assert.match(error.message, /the detail$/);
      assert.match(error.message, new RegExp(`\\(${status === 0 ? 'stream error' : status}\\)`));
      assert.ok(error.hint, 'every status gets a next step');
    });
  }

  it('retries exactly the transient statuses', () => {
    const retried = cases.filter(([status]) => RETRYABLE_KINDS.has(errorForStatus(status, '', 'api', 'anthropic', {}).kind)).map(([status]) => status);
    assert.deepEqual(retried, [429, 503, 529, 500, 504, 408, 409]);
  });

  it("words the other side as the back end names it and gives that provider's hint kinds", () => {
    assert.match(errorForStatus(500, 'x', 'api', 'anthropic', {}).message, /^The API failed \(500\)/);
    assert.deepEqual(errorForStatus(401, 'x', 'api', 'anthropic', {}).hint, { kind: 'badKey', provider: 'anthropic' });
    assert.deepEqual(errorForStatus(401, 'x', 'server', 'openai', {}).hint, { kind: 'badKey', provider: 'openai' });
  });
});
