/**
 * The panel's words (issue 27 item 6): the table the host put into the page (in the user's
 * language, extension/webviewStrings.ts), else English (WEBVIEW_STRINGS). The panel words nothing
 * itself: every sentence is `t(key, ...values)`.
 */
import { WEBVIEW_STRINGS, WEBVIEW_STRINGS_ELEMENT_ID, type WebviewStringKey, type WebviewStrings } from '../protocol';

/**
 * The table in `json` (the page's data block) over the English: only known keys with text values
 * are taken, so a broken or partial table still leaves every word readable.
 */
export function stringsFrom(json: string | undefined): WebviewStrings {
  const table: Record<WebviewStringKey, string> = { ...WEBVIEW_STRINGS };
  if (!json) return table;
  let given: unknown;
  try {
    given = JSON.parse(json);
  } catch {
    return table;
  }
  if (typeof given !== 'object' || given === null) return table;
  for (const key of Object.keys(WEBVIEW_STRINGS) as WebviewStringKey[]) {
    const text = (given as Record<string, unknown>)[key];
    if (typeof text === 'string') table[key] = text;
  }
  return table;
}

/** `{0}`, `{1}`… replaced by the values, in whatever order the text has them; an unknown index stays as written. */
export function fillPlaceholders(text: string, values: readonly (string | number)[]): string {
  return text.replace(/\{(\d+)\}/g, (match, index: string) => {
    const value = values[Number(index)];
    return value === undefined ? match : String(value);
  });
}

// Read once: the page is rebuilt (with a fresh table) whenever the host's language could change.
const strings = stringsFrom(typeof document === 'undefined' ? undefined : (document.getElementById(WEBVIEW_STRINGS_ELEMENT_ID)?.textContent ?? undefined));

/** The panel's text for `key`, its placeholders filled with `values`. */
export function t(key: WebviewStringKey, ...values: (string | number)[]): string {
  return fillPlaceholders(strings[key], values);
}
