// axe-core (npm) run in a page or a webview's frame, as the browser tests check accessibility:
// the WCAG 2.x A and AA rules, and every violation of impact serious or critical, in words.
// Injected with evaluate (over the DevTools protocol), which no page's CSP blocks.
import { readFileSync } from 'node:fs';
import type { Frame, Page } from 'playwright-core';

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeFinding {
  id: string;
  impact: string;
  help: string;
  /** Each element's selector and axe's summary of what is wrong there (a contrast ratio, a missing name). */
  nodes: string[];
}

/** The serious and critical violations under `selector` (the whole document by default). */
export async function seriousAxeViolations(target: Page | Frame, selector = 'body'): Promise<AxeFinding[]> {
  if (!(await target.evaluate(() => 'axe' in window))) await target.evaluate(AXE_SOURCE);
  const results = await target.evaluate(async (context) => {
    const axe = (window as unknown as { axe: { run(context: string, options: object): Promise<{ violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown[]; failureSummary?: string }> }> }> } }).axe;
    const outcome = await axe.run(context, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] }, resultTypes: ['violations'] });
    return outcome.violations.map((violation) => ({ id: violation.id, impact: violation.impact ?? 'unknown', help: violation.help, nodes: violation.nodes.map((node) => `${JSON.stringify(node.target)}: ${(node.failureSummary ?? '').replace(/\s+/g, ' ')}`) }));
  }, selector);
  return results.filter((finding) => finding.impact === 'serious' || finding.impact === 'critical');
}

/** One line per finding, for an assertion's message. */
export function describeFindings(findings: readonly AxeFinding[]): string {
  return findings.map((finding) => `${finding.impact} ${finding.id} (${finding.help}):\n  ${finding.nodes.join('\n  ')}`).join('\n');
}
