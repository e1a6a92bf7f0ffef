/**
 * The generated workspace the context benchmark's agent works on, and the deterministic plan of
 * its N steps (one tool call each). Everything derives from a seeded PRNG, so every strategy
 * replays exactly the same session.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import { prng } from '../random';

// The generator the context benchmark's files use (bench/random.ts), named here for them.
export { prng };

const WORDS = (
  'cache token window budget request reply module parser lexer buffer stream socket worker queue retry backoff ' +
  'schema record index cursor offset limit header footer layout render widget state reducer action effect ' +
  'session transcript summary boundary snapshot resume replay event listener handler config setting option ' +
  'compile bundle minify source target output input error warning notice trace debug metric counter gauge'
).split(' ');

export const SOURCE_FILES = 60;
export const LOG_FILES = 6;

export interface WorkspaceInfo {
  root: string;
  sourceFiles: string[];
  logFiles: string[];
  bytes: number;
}

function sourceText(index: number, targetBytes: number): string {
  const rand = prng(1000 + index);
  const word = () => WORDS[Math.floor(rand() * WORDS.length)]!;
  const lines: string[] = [`// mod${index}.ts: ${word()} ${word()} helpers (generated for the context benchmark)`, `import { ${word()}Of } from './base';`, ''];
  let size = lines.join('\n').length;
  for (let fn = 0; size < targetBytes; fn++) {
    const block = [
      `/** ${word()} the ${word()} of a ${word()} before the ${word()} ${word()} is sent. */`,
      `export function ${word()}${fn}_${index}(${word()}: number, ${word()}Limit = ${Math.floor(rand() * 5000)}): number {`,
      `  const ${word()} = ${word()}Of(${Math.floor(rand() * 997)}) * ${(rand() * 10).toFixed(3)};`,
      `  if (${word()}Limit > ${Math.floor(rand() * 100)}) return ${word()}Limit - ${Math.floor(rand() * 50)}; // TODO ${word()} ${word()}`,
      `  return Math.round(${word()}Limit / ${1 + Math.floor(rand() * 9)});`,
      '}',
      '',
    ].join('\n');
    lines.push(block);
    size += block.length + 1;
  }
  return lines.join('\n');
}

function logText(index: number, targetBytes: number): string {
  const rand = prng(5000 + index);
  const word = () => WORDS[Math.floor(rand() * WORDS.length)]!;
  const out: string[] = [];
  let size = 0;
  for (let line = 0; size < targetBytes; line++) {
    const ms = line * 37 + Math.floor(rand() * 30);
    const text = `2026-11-21T10:${String(Math.floor(ms / 60000) % 60).padStart(2, '0')}:${String(Math.floor(ms / 1000) % 60).padStart(2, '0')}.${String(ms % 1000).padStart(3, '0')}Z ${rand() < 0.1 ? 'WARN' : 'INFO'} [worker-${Math.floor(rand() * 8)}] ${word()} ${word()} mod${Math.floor(rand() * SOURCE_FILES)} in ${Math.floor(rand() * 900)}ms hash=${Math.floor(rand() * 0xffffffff).toString(16)}`;
    out.push(text);
    size += text.length + 1;
  }
  return out.join('\n') + '\n';
}

/** Sizes: sources log-uniform 1-40 KB; logs 35-220 KB (tier 0 territory, and over seed 000's 160k-char gate for the largest). */
export function createWorkspace(root: string): WorkspaceInfo {
  fs.mkdirSync(path.join(root, 'src'), { recursive: true });
  fs.mkdirSync(path.join(root, 'logs'), { recursive: true });
  const rand = prng(7);
  const sourceFiles: string[] = [];
  let bytes = 0;
  for (let i = 0; i < SOURCE_FILES; i++) {
    const size = Math.round(1024 * Math.exp(rand() * Math.log(40)));
    const rel = `src/mod${String(i).padStart(2, '0')}.ts`;
    const text = sourceText(i, size);
    fs.writeFileSync(path.join(root, rel), text);
    sourceFiles.push(rel);
    bytes += text.length;
  }
  const logSizes = [35, 48, 64, 90, 130, 220];
  const logFiles: string[] = [];
  for (let i = 0; i < LOG_FILES; i++) {
    const rel = `logs/build-${i}.log`;
    const text = logText(i, logSizes[i]! * 1024);
    fs.writeFileSync(path.join(root, rel), text);
    logFiles.push(rel);
    bytes += text.length;
  }
  fs.writeFileSync(path.join(root, 'src', 'base.ts'), 'export const cacheOf = (n: number): number => n;\n');
  return { root, sourceFiles, logFiles, bytes };
}

export interface StepPlan {
  step: number;
  name: 'read_file' | 'grep_search' | 'list_files' | 'run_shell';
  input: Record<string, unknown>;
  /** The sentence the assistant writes before the call ("Step k: ..."). */
  text: string;
  /**
   * An earlier step whose exact output this step needs (compare, quote, check it), and whether the
   * workload changed or deleted that step's file since (then running it again gives other output).
   */
  needs?: { step: number; reproducible: boolean };
}

/** Every 14th step from step 28 needs an earlier output exactly: 20 of 300 steps, 84 of 1,200. */
export const NEED_EVERY = 14;
const isNeedStep = (step: number) => step >= 2 * NEED_EVERY && step % NEED_EVERY === 0;
/** Seven steps before a need step, every other time, the workload changes or deletes the file it will need. */
const isMutationFor = (step: number) => isNeedStep(step + 7) && ((step + 7) / NEED_EVERY) % 2 === 0;

/** The earlier read or search (20-60 steps back) whose exact output step `step` needs. */
function neededStep(step: number, info: Pick<WorkspaceInfo, 'sourceFiles' | 'logFiles'>): number | undefined {
  const rand = prng(70_000 + step);
  for (let tries = 0; tries < 40; tries++) {
    const back = step - 20 - Math.floor(rand() * 41);
    if (back < 1 || isNeedStep(back) || isMutationFor(back)) continue;
    const plan = basePlan(back, info);
    if (plan.name === 'read_file' || plan.name === 'grep_search') return back;
  }
  return undefined;
}

/** Step k's tool call, a pure function of k (re-reads refer to earlier steps' files; see NEED_EVERY). */
export function planStep(step: number, info: Pick<WorkspaceInfo, 'sourceFiles' | 'logFiles'>): StepPlan {
  if (isMutationFor(step)) {
    const need = neededStep(step + 7, info);
    const target = need !== undefined ? basePlan(need, info) : undefined;
    if (target?.name === 'read_file') {
      const file = String(target.input.path);
      // Alternately an edit and a deletion: either way, reading it again shows something else.
      const remove = ((step + 7) / NEED_EVERY) % 4 === 0;
      const command = remove ? `rm -f ${file}` : `printf '\\n// changed at step ${step}\\n' >> ${file}`;
      return { step, name: 'run_shell', input: { command }, text: `Step ${step}: ${remove ? 'deleting' : 'changing'} ${file} as the plan says, so the module layout matches the new design.` };
    }
  }
  const plan = basePlan(step, info);
  if (isNeedStep(step)) {
    const need = neededStep(step, info);
    if (need !== undefined) {
      const target = basePlan(need, info);
      let reproducible = true;
      if (target.name === 'read_file') for (let m = need + 1; m < step; m++) if (isMutationFor(m) && String(planStep(m, info).input.command ?? '').includes(String(target.input.path))) reproducible = false;
      return { ...plan, needs: { step: need, reproducible } };
    }
  }
  return plan;
}

const GREPS = ['export function', 'TODO', 'return Math.round', 'Limit - ', 'import \\{'];

/** The step's ordinary call, before needs and mutations. */
function basePlan(step: number, info: Pick<WorkspaceInfo, 'sourceFiles' | 'logFiles'>): StepPlan {
  const rand = prng(90_000 + step);
  const r = rand();
  const word = () => WORDS[Math.floor(rand() * WORDS.length)]!;
  const why = `to check how the ${word()} ${word()} feeds the ${word()} ${word()}, so the ${word()} change stays consistent with its callers; after that I continue with the next step of the plan`;
  if (r < 0.5) {
    const file = info.sourceFiles[Math.floor(rand() * info.sourceFiles.length)]!;
    return { step, name: 'read_file', input: { path: file }, text: `Step ${step}: reading ${file} ${why}.` };
  }
  if (r < 0.6 && step > 1) {
    // A re-read of the file of the newest earlier read step.
    for (let back = step - 1; back >= 1; back--) {
      const earlier = basePlan(back, info);
      if (earlier.name === 'read_file') {
        return { step, name: 'read_file', input: { ...earlier.input }, text: `Step ${step}: re-reading ${String(earlier.input.path)} (it may have changed) ${why}.` };
      }
    }
  }
  if (r < 0.72) {
    const pattern = GREPS[Math.floor(rand() * GREPS.length)]!;
    return { step, name: 'grep_search', input: { pattern, path: 'src', max_results: 40 + Math.floor(rand() * 160) }, text: `Step ${step}: searching for "${pattern}" ${why}.` };
  }
  if (r < 0.8) {
    return { step, name: 'list_files', input: { pattern: '**/*' }, text: `Step ${step}: listing the workspace ${why}.` };
  }
  if (r < 0.92) {
    const log = info.logFiles[Math.floor(rand() * info.logFiles.length)]!;
    return { step, name: 'run_shell', input: { command: `cat ${log}` }, text: `Step ${step}: printing ${log} ${why}.` };
  }
  return { step, name: 'run_shell', input: { command: 'ls -la src logs' }, text: `Step ${step}: listing file sizes ${why}.` };
}
