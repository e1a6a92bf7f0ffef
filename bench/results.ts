/** bench/RESULTS.md: each suite owns a section between its own start/end marker comments. */
import * as fs from 'node:fs';
import * as path from 'node:path';

export const RESULTS_FILE = path.join(__dirname, 'RESULTS.md');

/** Replaces the section between `start` and `end` (`section` includes both markers), or appends it. */
export function writeResultsSection(section: string, start: string, end: string): void {
  const existing = fs.existsSync(RESULTS_FILE) ? fs.readFileSync(RESULTS_FILE, 'utf8') : '# Benchmark results\n';
  const from = existing.indexOf(start);
  const to = existing.indexOf(end);
  const next = from >= 0 && to > from ? existing.slice(0, from) + section + existing.slice(to + end.length) : `${existing.trimEnd()}\n\n${section}\n`;
  fs.writeFileSync(RESULTS_FILE, next);
}

/**
 * A bench run as a script (`node --require tsx/cjs bench/<name>.ts`): prints its section, or the
 * error with exit code 1; `after` runs either way (the OS sandbox's proxies, or a keep-alive socket,
 * would otherwise keep the process alive).
 */
export function runAsScript(run: () => Promise<string>, after?: () => unknown): void {
  run()
    .then((section) => console.log(section))
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    })
    .finally(() => after?.());
}
