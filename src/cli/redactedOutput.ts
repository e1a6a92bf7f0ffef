/**
 * The CLI's stdout and stderr as the rest of the CLI sees them: every string written passes the
 * session's redaction first (the same `SecretRedactor` its events and log lines go through), so a
 * line the CLI writes itself (a start failure, a prompt, a hint) cannot show a key either.
 */
import type { SecretRedactor } from '../core/secrets';

export function redactedOutput<T extends NodeJS.WritableStream>(stream: T, redactor: SecretRedactor): T {
  const write = (chunk: unknown, ...rest: unknown[]): boolean => (stream.write as (...args: unknown[]) => boolean)(typeof chunk === 'string' ? redactor.text(chunk) : chunk, ...rest);
  // A proxy, not a wrapper object: readline and the TTY checks read the stream's other members (isTTY, columns, on).
  return new Proxy(stream, {
    get(target, property) {
      if (property === 'write') return write;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
