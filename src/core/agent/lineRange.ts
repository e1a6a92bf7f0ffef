/**
 * `path`, `path:12` or `path:10-40`: a file and the lines of it to attach (1-based, inclusive). One
 * reading for the CLI's --attach, the composer's @file and its picker query; dependency-free, so the
 * chat panel's bundle takes it through src/protocol.ts.
 */
export function splitLineRange(value: string): { path: string; range?: { fromLine: number; toLine: number; valid: boolean } } {
  const match = /^(.*):(\d+)(?:-(\d+))?$/.exec(value);
  if (!match) return { path: value };
  const fromLine = Number(match[2]);
  const toLine = match[3] === undefined ? fromLine : Number(match[3]);
  return { path: match[1]!, range: { fromLine, toLine, valid: fromLine >= 1 && toLine >= fromLine } };
}
