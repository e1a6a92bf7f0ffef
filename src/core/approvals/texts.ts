/**
 * Builders of the kinds in texts/approvals.ts (tool cards' headlines, approval cards): the core
 * says these, each front end words them (src/frontends/words/approvals.ts).
 */
import type { HeldWhyText, ProtectedWhy, ProtectedWhyKind } from '../texts/approvals';

/** The kind that says why a path is protected ('git' -> 'approval.protectedGit'). */
export function protectedWhyKind<Why extends ProtectedWhy>(why: Why): ProtectedWhyKind<Why> {
  return `approval.protected${why.charAt(0).toUpperCase()}${why.slice(1)}` as ProtectedWhyKind<Why>;
}

/** Why a path is protected, as an approval card says it. */
export function protectedWhyText(why: ProtectedWhy): HeldWhyText {
  return { kind: protectedWhyKind(why), data: {} } as HeldWhyText;
}
