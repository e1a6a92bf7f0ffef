/** The hover as one text: lines joined by a newline, paragraphs by a blank line (every front end joins the worded lines so). */
export function gaugeTooltipText(tooltip: ReadonlyArray<readonly string[]>): string {
  return tooltip.map((lines) => lines.join('\n')).join('\n\n');
}
