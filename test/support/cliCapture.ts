import { PassThrough, Readable } from 'node:stream';
import type { WordedEvent as AgentEvent } from '../../src/frontends/words/wordEvent';
import { runCli } from '../../src/cli/run';

export interface CapturedRun {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON lines (empty unless --output-format stream-json). */
  events: AgentEvent[];
}

/** Runs the CLI in-process with captured output, as a terminal-less script would. */
export async function runCliCaptured(argv: string[], env: Record<string, string | undefined>, cwd: string, stdinText?: string): Promise<CapturedRun> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const stdin = Readable.from(stdinText === undefined ? [] : [stdinText]);
  const code = await runCli(argv, { stdin, stdout, stderr, env, cwd });
  await new Promise((resolve) => setImmediate(resolve));
  const events = argv.includes('stream-json') ? out.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as AgentEvent) : [];
  return { code, stdout: out, stderr: err, events };
}
