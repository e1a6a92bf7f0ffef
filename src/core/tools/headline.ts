/**
 * A tool card's headline (ToolDefinition.headline) is one short line: the model's values in it are
 * cut to their first line here, and the front end cuts the worded line again (its words may be longer).
 */
import type { NestedText, UserText, UserTextValue } from '../texts/userText';

export const MAX_HEADLINE_CHARS = 160;

/** The first line of a headline, at most MAX_HEADLINE_CHARS long. */
export function headlineLine(text: string): string {
  return (text.split('\n')[0] ?? '').slice(0, MAX_HEADLINE_CHARS);
}

/** A headline whose every string (the model's paths, patterns, commands) is one bounded line. */
export function boundedHeadline(text: UserText): UserText {
  const data = Object.fromEntries(Object.entries(text.data as Readonly<Record<string, UserTextValue>>).map(([key, value]) => [key, bounded(value)]));
  return { kind: text.kind, data } as UserText;
}

function bounded(value: UserTextValue): UserTextValue {
  if (typeof value === 'string') return headlineLine(value);
  if (value === undefined || typeof value !== 'object') return value;
  // A nested text is a kind with its data like any other (texts/value.ts).
  return isStringList(value) ? value.map(headlineLine) : boundedHeadline(value as UserText);
}

function isStringList(value: readonly string[] | NestedText): value is readonly string[] {
  return Array.isArray(value);
}
