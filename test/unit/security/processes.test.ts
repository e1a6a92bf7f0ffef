// Issue 7 items 7 and 8, as an attacker drives them: a model that asks the shell for the
// environment or reads a file holding the key, a model that points grep at a FIFO, and a CLI
// killed while its shell commands still run.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { redactSecrets, SecretRedactingStream, type KnownSecret } from '../../../src/core/secrets';

describe('security: redacting a stream whose chunks split a secret', () => {
  const PROPERTY_SEED = Number(process.env.FC_SEED ?? 20_261_123);
  const secrets: KnownSecret[] = [
    { name: 'API key', value: 'sk-ant-api03-abcabcXYZ' },
    { name: 'OPENAI_API_KEY', value: 'sk-proj-abab-abab-1234' },
  ];

  it('whatever the chunking, the joined output equals the redacted whole and never holds a secret', () => {
    const piece = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.constantFrom(...secrets.map((s) => s.value)),
      fc.constantFrom('sk-ant-', 'abab', 'abc', 'sk-proj-abab-'),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), fc.array(fc.nat({ max: 40 }), { maxLength: 10 }), (pieces, cuts) => {
        const whole = pieces.join('');
        const chunks: string[] = [];
        let at = 0;
        for (const cut of cuts) {
          chunks.push(whole.slice(at, at + cut));
          at += cut;
        }
        chunks.push(whole.slice(at));
        const stream = new SecretRedactingStream(secrets);
        const emitted = chunks.map((chunk) => stream.push(chunk));
        emitted.push(stream.flush());
        const joined = emitted.join('');
        for (const secret of secrets) assert.ok(!joined.includes(secret.value), `leaked in ${JSON.stringify(emitted)}`);
        assert.equal(joined, redactSecrets(whole, secrets));
      }),
      { numRuns: 2000, seed: PROPERTY_SEED },
    );
  });
});
