import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as readline from 'node:readline';
import type { AgentEvent } from '../core/agent/events';
import { startAgentSession, type StartedSession } from '../core/agent/factory';
import { lineLogger, silentLogger } from '../core/logger';
import { ModelError } from '../core/model/client';
import { FileSessionStore, SessionLockedError, SessionNotFoundError } from '../core/storage/sessionStore';
import type { ApprovalDecision, ApprovalRequest, Approver } from '../core/tools/approval';
import { findRipgrepOnPath } from '../core/tools/grepSearch';
import { parseCliArgs, USAGE, UsageError, type CliOptions } from './args';

export interface CliIO {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Fires on Ctrl-C; the run cancels cleanly and exits 130. */
  interrupt?: AbortSignal;
}

export const EXIT = { ok: 0, failed: 1, usage: 2, cancelled: 130 } as const;

/** The headless runner: same engine as the extension, events printed as text or JSON lines. */
export async function runCli(argv: string[], io: CliIO): Promise<number> {
  let options: CliOptions;
  try {
    options = parseCliArgs(argv, io.cwd);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`evergreen: ${error.message}\n${USAGE}\n`);
      return EXIT.usage;
    }
    throw error;
  }
  if (options.help) {
    io.stdout.write(`${USAGE}\n`);
    return EXIT.ok;
  }
  const fail = (message: string, code: number = EXIT.failed): number => {
    io.stderr.write(`evergreen: ${message}\n`);
    return code;
  };

  const workspace = path.resolve(io.cwd, options.workspace);
  if (!fs.existsSync(workspace) || !fs.statSync(workspace).isDirectory()) return fail(`workspace "${workspace}" is not a directory`);
  const prompts = options.prompts.length > 0 ? options.prompts : [await readStdin(io.stdin)].filter((text) => text.trim().length > 0);
  if (prompts.length === 0) return fail('no prompt: pass -p TEXT or pipe the prompt on standard input', EXIT.usage);

  const printer = options.outputFormat === 'stream-json' ? jsonPrinter(io.stdout, io.stderr) : textPrinter(io.stdout, io.stderr);
  const logger = options.verbose ? lineLogger((line) => io.stderr.write(`evergreen: ${line}\n`)) : silentLogger;
  const store = new FileSessionStore(options.storageDir ? path.resolve(io.cwd, options.storageDir) : path.join(os.homedir(), '.evergreen'), undefined, logger);
  let started: StartedSession | undefined;
  try {
    started = await startAgentSession({
      config: {
        apiKey: io.env.ANTHROPIC_API_KEY,
        baseURL: options.baseUrl ?? io.env.ANTHROPIC_BASE_URL,
        model: options.model,
        maxOutputTokens: options.maxOutputTokens,
        approvalPolicy: { writes: options.yes ? 'auto' : 'ask', shell: options.yes ? 'auto' : 'ask', shellAllowList: [] },
        trusted: true,
        ripgrepPath: findRipgrepOnPath(io.env.PATH),
        contextWindow: options.contextWindow,
        autoCompactPercent: options.autoCompactPercent,
        contextSettings: options.contextSettings,
      },
      logger,
      workspaceRoot: workspace,
      store,
      resumeId: options.resume,
      // Ctrl-C at an approval prompt reaches readline, not the process: it cancels the turn too.
      approver: terminalApprover(io, () => started?.session.cancel()),
      onEvent: printer,
      signal: io.interrupt,
    });
  } catch (error) {
    if (error instanceof SessionNotFoundError) return fail(`${error.message} Run without --resume to start a new session.`);
    if (error instanceof SessionLockedError) return fail(error.message);
    if (error instanceof ModelError) return fail(error.kind === 'cancelled' ? 'cancelled' : oneLine(error), error.kind === 'cancelled' ? EXIT.cancelled : EXIT.failed);
    return fail(error instanceof Error ? error.message : String(error));
  }

  let exitCode: number = EXIT.ok;
  const session = started.session;
  const unsubscribe = onAbort(io.interrupt, () => session.cancel());
  try {
    for (const prompt of prompts) {
      if (io.interrupt?.aborted) {
        exitCode = EXIT.cancelled;
        break;
      }
      const trimmed = prompt.trim();
      if (trimmed === '/compact' || trimmed.startsWith('/compact ')) {
        // As in the chat: compact now, with the optional focus; the engine's events report it.
        const outcome = await started.session.compact(trimmed.slice('/compact'.length).trim() || undefined, io.interrupt);
        io.stderr.write(`evergreen: ${outcome.message}\n`);
        if (!outcome.ok) {
          exitCode = EXIT.failed;
          break;
        }
        continue;
      }
      const stop = await started.session.send(prompt, undefined);
      if (stop === 'cancelled') {
        exitCode = EXIT.cancelled;
        break;
      }
      if (stop === 'error') {
        exitCode = EXIT.failed;
        break;
      }
    }
  } finally {
    unsubscribe();
    await started.handle.flushMeta().catch((error: unknown) => logger.error('could not write meta.json', error));
    started.handle.close();
  }
  if (options.outputFormat === 'text') io.stderr.write(`\n[session ${started.handle.id} · $${started.session.costUsd.toFixed(4)}]\n`);
  if (exitCode === EXIT.cancelled) io.stderr.write('evergreen: cancelled\n');
  return exitCode;
}

function oneLine(error: ModelError): string {
  return `${error.message}${error.hint ? ` (${error.hint})` : ''}`.replace(/\s*\n\s*/g, ' ');
}

function onAbort(signal: AbortSignal | undefined, listener: () => void): () => void {
  if (!signal) return () => undefined;
  signal.addEventListener('abort', listener);
  return () => signal.removeEventListener('abort', listener);
}

async function readStdin(stdin: CliIO['stdin']): Promise<string> {
  if (stdin.isTTY) return '';
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

function jsonPrinter(stdout: NodeJS.WritableStream, stderr: NodeJS.WritableStream): (event: AgentEvent) => void {
  return (event) => {
    stdout.write(`${JSON.stringify(event)}\n`);
    // The one-line reason also goes to stderr, where scripts look for it.
    if (event.type === 'error') stderr.write(`evergreen: ${event.message}${event.hint ? ` (${event.hint})` : ''}\n`);
  };
}

function textPrinter(stdout: NodeJS.WritableStream, stderr: NodeJS.WritableStream): (event: AgentEvent) => void {
  let midLine = false;
  const breakLine = () => {
    if (midLine) stdout.write('\n');
    midLine = false;
  };
  return (event) => {
    switch (event.type) {
      case 'text_delta':
        stdout.write(event.text);
        midLine = !event.text.endsWith('\n');
        break;
      case 'tool_call_started':
        breakLine();
        stderr.write(`▸ ${event.name} ${JSON.stringify(event.input)}\n`);
        break;
      case 'tool_call_finished':
        stderr.write(`  ${event.isError ? '✗' : '✓'} ${event.name} (${event.content.length} chars, ${event.durationMs} ms)\n`);
        break;
      case 'compaction':
        breakLine();
        stderr.write(`  ⟳ context compacted (${event.trigger}): ~${event.tokensBefore} -> ~${event.tokensAfter} tokens, ${event.messagesSummarized} message(s) summarized\n`);
        break;
      case 'compaction_failed':
        breakLine();
        stderr.write(`  ! ${event.message}\n    ${event.hint}\n`);
        break;
      case 'tier':
        stderr.write(`  · ${event.tier}: ${event.detail} (~${event.tokensBefore} -> ~${event.tokensAfter} tokens)\n`);
        break;
      case 'storage_warning':
        breakLine();
        stderr.write(`warning: ${event.message}\n`);
        break;
      case 'retrying':
        breakLine();
        stderr.write(`  retrying in ${Math.round(event.delayMs)} ms (attempt ${event.attempt}): ${event.reason}\n`);
        break;
      case 'error':
        breakLine();
        stderr.write(`error: ${event.message}${event.hint ? `\n  ${event.hint}` : ''}\n`);
        break;
      case 'turn_finished':
        breakLine();
        break;
      default:
        break;
    }
  };
}

/** Asks on the terminal; without a terminal it declines with a reason the model and the user can act on. */
function terminalApprover(io: CliIO, onInterrupt: () => void): Approver {
  return {
    async requestApproval(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision> {
      if (!io.stdin.isTTY) {
        io.stderr.write(`evergreen: declined ${describe(request)}: no terminal to ask on (run with --yes to approve automatically)\n`);
        return { approved: false, reason: 'Not approved: the CLI runs without a terminal and without --yes.' };
      }
      io.stderr.write(request.kind === 'write' ? `\n${request.diff}\n` : `\n$ ${request.command}\n`);
      const rl = readline.createInterface({ input: io.stdin, output: io.stderr });
      try {
        const answer = await new Promise<string>((resolve) => {
          const onAbortSignal = () => resolve('n');
          signal.addEventListener('abort', onAbortSignal, { once: true });
          rl.on('SIGINT', () => {
            resolve('n');
            onInterrupt();
          });
          rl.on('close', () => resolve('n'));
          rl.question(`Allow ${describe(request)}? [y/N] `, (reply) => {
            signal.removeEventListener('abort', onAbortSignal);
            resolve(reply);
          });
        });
        return /^y(es)?$/i.test(answer.trim()) ? { approved: true } : { approved: false };
      } finally {
        rl.close();
      }
    },
  };
}

function describe(request: ApprovalRequest): string {
  return request.kind === 'write' ? `${request.isNew ? 'creating' : 'changing'} ${request.path}` : `running \`${request.command}\``;
}
