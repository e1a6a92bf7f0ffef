/**
 * The system prompt's sections: the skills list, the memory listing and the project instructions,
 * each opened by its mark (`# Skills\n`, …) at the start of a line after a blank line, in that order
 * after the base prompt. Found by the mark after a blank line, never by the mark alone: a skill's
 * description or a memory file's first line may contain a mark's words, but each is one line that
 * starts with "- ", so it can never follow a blank line. The breakdown counts each section from its
 * mark to the next one; a subagent gets its parent's sections as they were read.
 */

/** Where the section that `mark` opens starts in `system` (its mark's first character); -1: none. */
export function sectionStart(system: string, mark: string): number {
  if (system.startsWith(mark)) return 0;
  const at = system.indexOf(`\n\n${mark}`);
  return at < 0 ? -1 : at + 2;
}

/** Each mark's section as [start, end): from its mark to the next section found, or the end. Absent marks are left out. */
export function sectionSpans(system: string, marks: readonly string[]): Map<string, { start: number; end: number }> {
  const starts = marks.map((mark) => ({ mark, start: sectionStart(system, mark) })).filter((found) => found.start >= 0);
  starts.sort((a, b) => a.start - b.start);
  const spans = new Map<string, { start: number; end: number }>();
  starts.forEach((found, index) => spans.set(found.mark, { start: found.start, end: starts[index + 1]?.start ?? system.length }));
  return spans;
}

/** The text of the section `mark` opens (to the next of `marks`, or the end), trimmed; undefined when it is absent. */
export function sectionText(system: string, mark: string, marks: readonly string[]): string | undefined {
  const span = sectionSpans(system, marks).get(mark);
  return span === undefined ? undefined : system.slice(span.start, span.end).trimEnd();
}
