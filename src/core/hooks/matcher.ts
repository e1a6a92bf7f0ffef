/**
 * A matcher group's `matcher`, read as Claude Code reads it: `*`, `""` or none match everything; a
 * value of only letters, digits, `_`, `-`, spaces, `,` and `|` is a list of exact names (`Edit|Write`,
 * `Edit, Write`); anything else is a JavaScript regular expression tested unanchored
 * (`mcp__memory__.*`, `^Notebook`). A regular expression that does not compile is a problem for the
 * loader to report, never a throw at match time.
 */
import { errorMessage } from '../logger';
export type HookMatcher = { kind: 'all' } | { kind: 'names'; names: ReadonlySet<string> } | { kind: 'regex'; regex: RegExp };

const EXACT_LIST = /^[A-Za-z0-9_\- ,|]+$/;

/** A matcher that does not compile: the matcher as written (quoted) and the engine's message. */
interface MatcherProblem {
  matcher: string;
  error: string;
}

export function compileMatcher(matcher: string | undefined): HookMatcher | { problem: MatcherProblem } {
  const value = matcher ?? '';
  if (value === '' || value === '*') return { kind: 'all' };
  if (EXACT_LIST.test(value)) {
    const names = value
      .split(/[|,]/)
      .map((name) => name.trim())
      .filter((name) => name !== '');
    return names.length === 0 ? { kind: 'all' } : { kind: 'names', names: new Set(names) };
  }
  try {
    return { kind: 'regex', regex: new RegExp(value) };
  } catch (error) {
    return { problem: { matcher: JSON.stringify(value), error: errorMessage(error) } };
  }
}

/** Whether any of the targets (a tool's names, a source, a trigger) matches. Undefined targets: the event has no matcher. */
export function matches(matcher: HookMatcher, targets: readonly string[] | undefined): boolean {
  if (targets === undefined || matcher.kind === 'all') return true;
  if (matcher.kind === 'names') return targets.some((target) => matcher.names.has(target));
  // A regex with the g or y flag keeps state between tests; these are built without flags.
  return targets.some((target) => matcher.regex.test(target));
}
