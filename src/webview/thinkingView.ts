/**
 * A reply's thinking on screen: a <details> "Thinking" above its text, collapsed unless the user
 * opens it. It streams in place (the text grows while it is closed, so opening it shows what the
 * model has thought so far), and the user's open or closed choice survives the reply being drawn
 * again. Thinking is model text: it is set as text, never as HTML, with every control, bidi or
 * zero-width character made visible (escapeText, as the CLI shows it).
 */
import { escapeText } from '../protocol';
import { thinkingSummary, type ChatItem } from './chatModel';
import { t } from './strings';

type Assistant = Extract<ChatItem, { kind: 'assistant' }>;
type El = <K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string) => HTMLElementTagNameMap[K];

/**
 * What the user chose for each reply's section: a finished reply is drawn afresh and keeps it. Keyed
 * by the item itself (the model mutates items in place), so a new chat's items, whose keys repeat
 * the old chat's, start collapsed.
 */
const openChoices = new WeakMap<Assistant, boolean>();
/** Characters of the thinking each section already shows: a delta appends only what is new. */
const shownChars = new WeakMap<HTMLElement, number>();

export function hasThinking(item: Assistant): boolean {
  return item.thinking !== '' || item.redactedThinking > 0;
}

export function renderThinking(item: Assistant, el: El): HTMLDetailsElement {
  const details = el('details', 'eg-thinking');
  details.open = openChoices.get(item) ?? false;
  details.append(el('summary', 'eg-thinking-summary'), el('pre', 'eg-thinking-text'), el('div', 'eg-thinking-redacted', '(redacted)'));
  details.addEventListener('toggle', () => openChoices.set(item, details.open));
  update(details, item);
  return details;
}

/**
 * Brings a streaming reply's section up to date in place (added when the first thinking arrives),
 * leaving its open state alone. False when the element cannot show the item (the caller redraws).
 */
export function patchThinking(element: HTMLElement, item: Assistant, el: El): boolean {
  const details = element.querySelector<HTMLDetailsElement>(':scope > .eg-thinking');
  if (!details) {
    if (hasThinking(item)) element.prepend(renderThinking(item, el));
    return true;
  }
  if (!hasThinking(item)) return false;
  update(details, item);
  return true;
}

function update(details: HTMLDetailsElement, item: Assistant): void {
  const summary = details.querySelector<HTMLElement>(':scope > .eg-thinking-summary')!;
  const text = details.querySelector<HTMLElement>(':scope > .eg-thinking-text')!;
  const label = thinkingSummary(item);
  if (summary.textContent !== label) summary.textContent = label;
  details.classList.toggle('eg-thinking-live', label === t('thinking.live'));
  appendText(text, item.thinking, !item.streaming);
  text.hidden = item.thinking === '';
  details.querySelector<HTMLElement>(':scope > .eg-thinking-redacted')!.hidden = item.redactedThinking === 0;
}

function appendText(pre: HTMLElement, thinking: string, final: boolean): void {
  let shown = shownChars.get(pre) ?? 0;
  let end = thinking.length;
  // A character split across two deltas (a surrogate pair) waits for its second half, so the
  // escaping sees the whole character (an invisible tag character must show as its escape).
  if (!final && end > shown && /[\uD800-\uDBFF]/.test(thinking.charAt(end - 1))) end--;
  if (end < shown) {
    pre.textContent = '';
    shown = 0;
  }
  if (end > shown) pre.append(escapeText(thinking.slice(shown, end)));
  shownChars.set(pre, end);
}
