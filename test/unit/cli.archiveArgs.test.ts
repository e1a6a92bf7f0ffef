import assert from 'node:assert/strict';
import { parseCliArgs, UsageError } from '../../src/cli/args';

describe('CLI flags of issue 32: --export-session, --import-session, --require-sandbox', () => {
  it('--export-session takes a session id and a file; --import-session a file or folder', () => {
    assert.deepEqual(parseCliArgs(['--export-session', '20260101-000000-abc123', 'run.zip', '--storage-dir', 's'], '/w').archiveCommand, { kind: 'export', sessionId: '20260101-000000-abc123', file: 'run.zip' });
    assert.deepEqual(parseCliArgs(['--import-session', 'evergreen-4242.zip'], '/w').archiveCommand, { kind: 'import', file: 'evergreen-4242.zip' });
    assert.equal(parseCliArgs(['-p', 'hi'], '/w').archiveCommand, undefined);
  });

  it('refuses them half-given or mixed with other commands, saying how they are written', () => {
    const refused = (argv: string[], words: RegExp) => assert.throws(() => parseCliArgs(argv, '/w'), (error: unknown) => error instanceof UsageError && words.test(error.message));
    refused(['--export-session', 'abc'], /--export-session ID FILE\.zip/);
    refused(['--export-session', 'abc', '--yes'], /--export-session ID FILE\.zip/);
    refused(['--export-session', 'abc', 'a.zip', '--import-session', 'b.zip'], /not both/);
    refused(['--import-session', 'b.zip', '--resume', 'abc'], /runs alone/);
    refused(['--import-session', ' '], /needs a file or folder/);
  });

  it('--require-sandbox stops instead of asking; it cannot go with --no-sandbox', () => {
    assert.equal(parseCliArgs(['--require-sandbox', '-p', 'x'], '/w').requireSandbox, true);
    assert.equal(parseCliArgs(['-p', 'x'], '/w').requireSandbox, false);
    assert.throws(() => parseCliArgs(['--require-sandbox', '--no-sandbox', '-p', 'x'], '/w'), /--require-sandbox or --no-sandbox, not both/);
  });
});
