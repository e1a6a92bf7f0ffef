/**
 * zod for every trust boundary, with its English messages. zod's package declares no side effects,
 * so a bundler drops the locale its entry would set and every message reads "Invalid input": the
 * English locale is set here, once. Import it as a namespace, `import * as z from '../zod'`: a
 * bundler then keeps only what is used (zod's own `z` object would bring every locale, ~180 KB).
 */
import { config, type ZodError } from 'zod/v4';
import en from 'zod/v4/locales/en.js';

config(en());

export * from 'zod/v4';

type Issue = ZodError['issues'][number];

/** A parse path as a JSON-path suffix: `.servers.name`, `[0]`, `["odd key"]`. */
export function pathSuffix(path: readonly PropertyKey[]): string {
  return path.map((key) => (typeof key === 'number' ? `[${key}]` : /^[A-Za-z_][\w]*$/.test(String(key)) ? `.${String(key)}` : `[${JSON.stringify(String(key))}]`)).join('');
}

/** What the parsed value holds at `path` (undefined where it has nothing). */
function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let at = value;
  for (const key of path) at = typeof at === 'object' && at !== null ? (at as Record<PropertyKey, unknown>)[key] : undefined;
  return at;
}

/**
 * The issue a reader needs. A union reports only "Invalid input" with each option's issues: the
 * option that got furthest (a block of the right kind, one field wrong) says what is wrong.
 */
function innermost(issue: Issue): Issue {
  if (issue.code !== 'invalid_union') return issue;
  const firsts = issue.errors.flatMap((option) => option.slice(0, 1));
  const furthest = firsts.reduce<Issue | undefined>((best, next) => (best === undefined || next.path.length > best.path.length ? next : best), undefined);
  if (!furthest || furthest.path.length === 0) return issue;
  return innermost({ ...furthest, path: [...issue.path, ...furthest.path] });
}

/** An issue in words, where zod's own would say only "Invalid input". */
function issueMessage(issue: Issue, input: unknown): string {
  if (issue.code !== 'invalid_union') return issue.message;
  // Every option refused the value's own type: say which types would do.
  const expected = issue.errors.map((option) => option[0]).flatMap((first) => (first?.code === 'invalid_type' && first.path.length === 0 ? [first.expected] : []));
  if (expected.length > 0 && expected.length === issue.errors.length) return `Invalid input: expected ${expected.join(' or ')}`;
  return unknownKind(issue.path, input);
}

/** A discriminated union met a kind it does not know (its issue does not carry the value, so it is looked up). */
function unknownKind(path: readonly PropertyKey[], input: unknown): string {
  const met = valueAt(input, path);
  return met === undefined ? 'is missing' : `${JSON.stringify(met)} is not a known ${String(path.at(-1))} here`;
}

/**
 * A zod failure as `path: message` (the first issue: one fix at a time reads better than a list).
 * `input`: what was parsed, so an unknown kind can be named.
 */
export function zodProblem(error: ZodError, base: string, input?: unknown): { where: string; message: string } {
  const first = error.issues[0];
  if (!first) return { where: base, message: 'is not valid' };
  const issue = innermost(first);
  return { where: `${base}${pathSuffix(issue.path)}`, message: issueMessage(issue, input) };
}

/** A zod failure as one phrase: `compaction.id: Invalid input: …`, or only the message when the value itself is wrong. */
export function zodIssueText(error: ZodError, input: unknown): string {
  const { where, message } = zodProblem(error, '', input);
  return where ? `${where.replace(/^\./, '')}: ${message}` : message;
}

/** True only when A and B are the same type (each assignable to the other, `any` never matching). */
export type SameType<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/**
 * A compile-time proof that a schema's type and a type declared elsewhere did not drift apart:
 * `sameType<z.infer<typeof Schema>, Declared>(true)` fails to compile when they differ.
 */
export function sameType<A, B>(proof: SameType<A, B>): void {
  void proof;
}
