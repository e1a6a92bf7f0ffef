import assert from 'node:assert/strict';
import { screenText, TERMINAL_OUTPUT_MAX_CHARS, terminalCommandText, withRecoveredOutput, type TerminalCommand, type WorkbenchTerminalCopy } from '../../src/core/agent/terminalCapture';
import { lineLogger } from '../../src/core/logger';

/** A clipboard and a workbench whose record of the last command holds `lastOutput` (none: it has no output). */
function fakeWorkbench(clipboard: string, lastOutput: string | undefined, faults: { read?: 'first' | 'second'; copy?: boolean; write?: boolean } = {}) {
  const state = { clipboard, reads: 0, copies: 0, writes: [] as string[] };
  const workbench: WorkbenchTerminalCopy = {
    readClipboard: async () => {
      state.reads++;
      if ((faults.read === 'first' && state.reads === 1) || (faults.read === 'second' && state.reads === 2)) throw new Error('clipboard read refused');
      return state.clipboard;
    },
    writeClipboard: async (text) => {
      if (faults.write) throw new Error('clipboard write refused');
      state.writes.push(text);
      state.clipboard = text;
    },
    copyLastCommandOutput: async () => {
      state.copies++;
      if (faults.copy) throw new Error('no such command');
      // As the workbench does: nothing written when the command has no output.
      if (lastOutput !== undefined) state.clipboard = lastOutput;
    },
  };
  return { state, workbench };
}

const lost: TerminalCommand = { commandLine: 'git status', output: '', exitCode: 0, droppedChars: 0 };

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

describe('@terminal output VS Code lost (the CI failure of stop 25)', () => {
  it('keeps output the stream carried and never touches the clipboard', async () => {
    const { state, workbench } = fakeWorkbench('user text', 'other');
    const command = { ...lost, output: 'On branch main\r\n' };
    assert.equal(await withRecoveredOutput(command, workbench, lineLogger(() => {})), command);
    assert.deepEqual([state.reads, state.copies, state.writes], [0, 0, []]);
  });

  it("attaches the workbench's copy of an output the stream lost, as the screen showed it, and puts the user's clipboard back", async () => {
    const { state, workbench } = fakeWorkbench('user text', 'On branch main\nnothing to commit\n');
    const lines: string[] = [];
    const attached = await withRecoveredOutput({ ...lost, output: '\u001b]633;C\u0007\r\n' }, workbench, lineLogger((line) => lines.push(line)));
    assert.equal(attached.outputSource, 'workbench');
    assert.equal(terminalCommandText(attached), '$ git status\nOn branch main\nnothing to commit\n[exit code: 0]');
    assert.equal(state.clipboard, 'user text');
    assert.deepEqual(state.writes, ['user text']);
    assert.ok(lines.some((line) => line.startsWith('[info] @terminal: the shell integration stream gave no output')));
  });

  it('caps a recovered output like a captured one and counts the rest', async () => {
    const { workbench } = fakeWorkbench('user text', 'x'.repeat(TERMINAL_OUTPUT_MAX_CHARS + 5));
    const attached = await withRecoveredOutput(lost, workbench, lineLogger(() => {}));
    assert.equal(attached.output.length, TERMINAL_OUTPUT_MAX_CHARS);
    assert.equal(attached.droppedChars, 5);
    assert.match(terminalCommandText(attached), /\[… 5 more characters of output not captured\]/);
  });

  it('says so, without a guess, when the workbench holds no output either, and leaves the clipboard as it was', async () => {
    const { state, workbench } = fakeWorkbench('user text', undefined);
    const attached = await withRecoveredOutput(lost, workbench, lineLogger(() => {}));
    assert.equal(attached.outputSource, 'missing');
    assert.match(terminalCommandText(attached), /^\$ git status\n\[no output reached Evergreen: the command printed nothing, or VS Code's shell integration lost it .*copy it from the terminal into the message\]\n\[exit code: 0\]$/);
    assert.deepEqual([state.copies, state.writes, state.clipboard], [1, [], 'user text']);
  });

  it('never borrows a clipboard without text (it may hold an image text cannot restore)', async () => {
    const { state, workbench } = fakeWorkbench('', 'On branch main\n');
    const lines: string[] = [];
    const attached = await withRecoveredOutput(lost, workbench, lineLogger((line) => lines.push(line)));
    assert.equal(attached.outputSource, 'missing');
    assert.deepEqual([state.copies, state.writes], [0, []]);
    assert.ok(lines.some((line) => line.includes('clipboard holds no text')));
  });

  it('names a command that started before Evergreen listened when its output cannot be recovered', async () => {
    const { workbench } = fakeWorkbench('', undefined);
    const attached = await withRecoveredOutput({ ...lost, startedBeforeCapture: true }, workbench, lineLogger(() => {}));
    assert.match(terminalCommandText(attached), /^\$ git status\n\[output not captured: the command started before Evergreen did; to attach it, copy it from the terminal into the message\]/);
  });

  it('logs each failure, marks the output missing and puts the clipboard back whenever a copy may have replaced it', async () => {
    const unreadable = fakeWorkbench('user text', 'out\n', { read: 'first' });
    const lines: string[] = [];
    const log = lineLogger((line) => lines.push(line));
    assert.equal((await withRecoveredOutput(lost, unreadable.workbench, log)).outputSource, 'missing');
    assert.equal(unreadable.state.copies, 0);
    assert.ok(lines.some((line) => line.startsWith('[warn] @terminal: the clipboard could not be read')));

    // The copy happened, reading it back failed: the clipboard holds the output, so it is put back.
    const readBackFails = fakeWorkbench('user text', 'out\n', { read: 'second' });
    assert.equal((await withRecoveredOutput(lost, readBackFails.workbench, log)).outputSource, 'missing');
    assert.equal(readBackFails.state.clipboard, 'user text');

    const noCommand = fakeWorkbench('user text', 'out\n', { copy: true });
    assert.equal((await withRecoveredOutput(lost, noCommand.workbench, log)).outputSource, 'missing');
    assert.equal(noCommand.state.clipboard, 'user text');

    lines.length = 0;
    const stuck = fakeWorkbench('user text', 'out\n', { write: true });
    assert.equal((await withRecoveredOutput(lost, stuck.workbench, log)).outputSource, 'workbench');
    assert.ok(lines.some((line) => line.startsWith('[error] @terminal: the clipboard could not be put back')));
  });
});
