/** Quotes one word for a POSIX shell: single quotes, each `'` inside written as `'\''`. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
