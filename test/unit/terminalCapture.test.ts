import assert from 'node:assert/strict';
import { screenText, terminalCommandText } from '../../src/core/agent/terminalCapture';

describe('@terminal text (issue 17)', () => {
  it('gives the model what the screen showed: no colours, no shell-integration marks, CRLF as LF, a redrawn line as its last drawing', () => {
    const raw = '\u001b]633;C\u0007\u001b[32mok\u001b[0m 3 tests\r\n  10%\r  55%\r 100%\r\ndone\u001b]633;D;0\u0007\r\n';
    assert.equal(screenText(raw), 'ok 3 tests\n 100%\ndone');
  });

  it('names the command, what was not captured and the exit code, or says the code is unknown', () => {
    assert.equal(terminalCommandText({ commandLine: 'npm test', output: 'FAIL a.test.ts\r\n', exitCode: 1, droppedChars: 0 }), '$ npm test\nFAIL a.test.ts\n[exit code: 1]');
    assert.equal(
      terminalCommandText({ commandLine: 'yes | head', output: 'y\r\ny\r\n', exitCode: undefined, droppedChars: 12 }),
      '$ yes | head\ny\ny\n[… 12 more characters of output not captured]\n[exit code: unknown]',
    );
  });
});
