/**
 * `@terminal` (issue 17): a terminal command's captured output as the attachment's text. What a
 * terminal's shell integration hands over is the raw stream: colours, cursor moves, the shell's
 * own OSC 633 marks, CRLF line ends and progress bars redrawn with a bare CR. The model gets what
 * the user saw on screen, not the bytes that drew it.
 */
import { stripAnsi } from '../visibleText';

/** One finished command of a terminal, as captured (output already capped by the capturer). */
export interface TerminalCommand {
  commandLine: string;
  output: string;
  exitCode: number | undefined;
  /** Characters past the capture limit, not kept. */
  droppedChars: number;
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

/** The attachment text: the command, its output as seen, what was not captured, and its exit code. */
export function terminalCommandText(command: TerminalCommand): string {
  const dropped = command.droppedChars > 0 ? `\n[… ${command.droppedChars} more characters of output not captured]` : '';
  return `$ ${screenText(command.commandLine)}\n${screenText(command.output)}${dropped}\n[exit code: ${command.exitCode ?? 'unknown'}]`;
}
