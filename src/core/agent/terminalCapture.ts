/**
 * `@terminal` (issue 17): a terminal command's captured output as the attachment's text. What a
 * terminal's shell integration hands over is the raw stream: colours, cursor moves, the shell's
 * own OSC 633 marks, CRLF line ends and progress bars redrawn with a bare CR. The model gets what
 * the user saw on screen, not the bytes that drew it.
 *
 * VS Code (1.100) can drop a fast command's whole output from `TerminalShellExecution.read()`:
 * when the start, the output and the end of a command reach the extension host in one batch, the
 * output is emitted before the stream has a listener (its executor runs a microtask later). The
 * workbench still holds the output in its own record of the command, which only its "Copy Last
 * Command Output" command hands out, through the clipboard. So an empty capture is recovered from
 * there, with the user's clipboard put back.
 */
import { errorMessage, type Logger } from '../logger';
import { stripAnsi } from '../visibleText';

/** What one terminal command's captured output may hold (the rest is counted). */
export const TERMINAL_OUTPUT_MAX_CHARS = 200_000;

/** One finished command of a terminal, as captured (output already capped by the capturer). */
export interface TerminalCommand {
  commandLine: string;
  output: string;
  exitCode: number | undefined;
  /** Characters past the capture limit, not kept. */
  droppedChars: number;
  /** The command started before Evergreen listened, so its stream was never read. */
  startedBeforeCapture?: boolean;
  /** Where the output came from when the stream gave none; absent: the stream. */
  outputSource?: 'workbench' | 'missing';
}

/** What VS Code offers to reach the workbench's own copy of the active terminal's last output. */
export interface WorkbenchTerminalCopy {
  readClipboard(): Promise<string>;
  writeClipboard(text: string): Promise<void>;
  /** Runs the workbench's "Copy Last Command Output" on the active terminal. */
  copyLastCommandOutput(): Promise<void>;
}

/** Escapes removed, CRLF as LF, and a line redrawn with CR reduced to its last drawing. */
export function screenText(raw: string): string {
  return stripAnsi(raw)
    .replace(/\r\n/g, '\n')
    .split('\n')
    .map((line) => line.split('\r').filter((drawing) => drawing !== '').at(-1) ?? '')
    .join('\n')
    .trimEnd();
}

/**
 * `command` as attached: unchanged when its stream carried output; otherwise with the workbench's
 * copy of the output, or marked missing. The clipboard is borrowed only when it holds text, and
 * that text is written back: an empty reading may be an image (or a browser that refuses to read
 * it), which text could not restore.
 */
export async function withRecoveredOutput(command: TerminalCommand, workbench: WorkbenchTerminalCopy, logger: Logger): Promise<TerminalCommand> {
  if (screenText(command.output) !== '') return command;
  const missing: TerminalCommand = { ...command, output: '', outputSource: 'missing' };
  let original: string;
  try {
    original = await workbench.readClipboard();
  } catch (error) {
    logger.warn(`@terminal: the clipboard could not be read, so the workbench's copy of the output was not asked for: ${errorMessage(error)}`);
    return missing;
  }
  if (original === '') {
    logger.info('@terminal: no output was captured and the clipboard holds no text (perhaps an image), so it is left alone');
    return missing;
  }
  let copied: string | undefined;
  try {
    await workbench.copyLastCommandOutput();
    copied = await workbench.readClipboard();
  } catch (error) {
    logger.warn(`@terminal: the workbench's copy of the last command's output could not be read: ${errorMessage(error)}`);
  } finally {
    // Put back unless it is known to hold the user's text still (a failed read may hide a copy).
    if (copied !== original) {
      await workbench.writeClipboard(original).catch((error: unknown) => logger.error('@terminal: the clipboard could not be put back after reading the terminal output through it', error));
    }
  }
  // Unchanged: the workbench holds no output for the command (or the copy failed).
  if (copied === undefined || copied === original || screenText(copied) === '') return missing;
  logger.info("@terminal: the shell integration stream gave no output; the workbench's copy of it is attached");
  return { ...command, output: copied.slice(0, TERMINAL_OUTPUT_MAX_CHARS), droppedChars: Math.max(0, copied.length - TERMINAL_OUTPUT_MAX_CHARS), outputSource: 'workbench' };
}

/** The attachment text: the command, its output as seen, what was not captured, and its exit code. */
export function terminalCommandText(command: TerminalCommand): string {
  const dropped = command.droppedChars > 0 ? `\n[… ${command.droppedChars} more characters of output not captured]` : '';
  const copyIt = 'to attach it, copy it from the terminal into the message';
  const output =
    command.outputSource !== 'missing'
      ? screenText(command.output)
      : command.startedBeforeCapture
        ? `[output not captured: the command started before Evergreen did; ${copyIt}]`
        : `[no output reached Evergreen: the command printed nothing, or VS Code's shell integration lost it (it can, for a command that ends within milliseconds); ${copyIt}]`;
  return `$ ${screenText(command.commandLine)}\n${output}${dropped}\n[exit code: ${command.exitCode ?? 'unknown'}]`;
}
