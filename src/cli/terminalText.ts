/**
 * Text from the model (and from servers) made safe to print on a terminal: the escaping itself is
 * src/core/visibleText.ts, shared with the chat panel so both show a command the same way.
 */
import { escapeLine, escapeText, UNSAFE } from '../core/visibleText';

export { escapeLine, escapeText };

/**
 * One JSON line for stream-json. Programs get the exact text back from JSON.parse; only the
 * characters JSON.stringify leaves raw (DEL, C1, format characters, U+2028/2029) are written as
 * \u escapes, so a terminal showing the stream cannot be steered by them either.
 */
export function jsonLine(value: unknown): string {
  return JSON.stringify(value).replace(UNSAFE, (char) => {
    let out = '';
    for (let index = 0; index < char.length; index++) out += `\\u${char.charCodeAt(index).toString(16).padStart(4, '0')}`;
    return out;
  });
}
