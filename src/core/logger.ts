/**
 * The core's logger. The extension backs it with a LogOutputChannel, the CLI with stderr under
 * --verbose; tests collect lines. Every tier action, compaction, retry and swallowed error goes
 * through it, so nothing fails silently.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string, error?: unknown): void;
}

export const silentLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A logger that writes `[level] message` lines through `write` (CLI --verbose, tests). */
export function lineLogger(write: (line: string) => void, minimum: LogLevel = 'debug'): Logger {
  const order: LogLevel[] = ['debug', 'info', 'warn', 'error'];
  const enabled = (level: LogLevel) => order.indexOf(level) >= order.indexOf(minimum);
  const emit = (level: LogLevel, message: string) => {
    if (!enabled(level)) return;
    try {
      write(`[${level}] ${message}`);
    } catch {
      // A closed stderr must never break the agent.
    }
  };
  return {
    debug: (message) => emit('debug', message),
    info: (message) => emit('info', message),
    warn: (message) => emit('warn', message),
    error: (message, error) => emit('error', error === undefined ? message : `${message}: ${errorMessage(error)}`),
  };
}

/**
 * `inner` with every line (and an attached error's message) passed through `redact` first: the
 * extension's Output panel and the CLI's stderr must never show a URL's password or key.
 */
export function redactingLogger(inner: Logger, redact: (text: string) => string): Logger {
  return {
    debug: (message) => inner.debug(redact(message)),
    info: (message) => inner.info(redact(message)),
    warn: (message) => inner.warn(redact(message)),
    error: (message, error) => inner.error(redact(error === undefined ? message : `${message}: ${errorMessage(error)}`)),
  };
}
