/**
 * The extension's Output panel logger redacts like the CLI: a base URL's password or a key in its
 * query never reaches a log line, also when it sits in an attached error's message.
 */
import assert from 'node:assert/strict';
import { lineLogger, redactingLogger } from '../../src/core/logger';
import { redactUrlSecrets } from '../../src/core/model/errors';

describe('logger redaction', () => {
  it('removes URL credentials and secret query values from every level and from errors', () => {
    const lines: string[] = [];
    const logger = redactingLogger(lineLogger((line) => lines.push(line)), redactUrlSecrets);
    logger.info('POST https://alice:hunter2@gateway.example/v1/chat/completions');
    logger.warn('model info from http://127.0.0.1:8000/v1/models?api_key=sk-live-123 timed out');
    logger.debug('plain line stays as it is');
    logger.error('request failed', new Error('connect ECONNREFUSED https://bob:s3cret@host.example/v1'));
    const text = lines.join('\n');
    for (const secret of ['hunter2', 'sk-live-123', 's3cret']) assert.ok(!text.includes(secret), `${secret} leaked:\n${text}`);
    assert.match(lines[0]!, /^\[info\] POST https:\/\/\*\*\*@gateway\.example\/v1\/chat\/completions$/);
    assert.match(lines[1]!, /api_key=\*\*\*/);
    assert.equal(lines[2], '[debug] plain line stays as it is');
    assert.match(lines[3]!, /^\[error\] request failed: connect ECONNREFUSED https:\/\/\*\*\*@host\.example\/v1$/);
  });
});
