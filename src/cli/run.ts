import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as readline from 'node:readline';
import type { TurnStopReason } from '../core/agent/events';
import { subagentStatusText } from '../frontends/words/subagents';
import { wordEvent, type WordedEvent } from '../frontends/words/wordEvent';
import { word } from '../frontends/words';
import { startAgentSession, type McpSettings, type StartedSession } from '../core/agent/factory';
import { contextBudget } from '../core/context/gauge';
import { errorMessage, lineLogger, silentLogger, type Logger } from '../core/logger';
import { knownSecrets, SecretRedactor } from '../core/secrets';
import { PROVIDER_INFO } from '../core/model/backend';
import { formatCost } from '../core/model/cost';
import { ModelError, redactUrlSecrets } from '../core/model/errors';
import { CheckpointError } from '../core/checkpoints/store';
import { runCheckpointCommand } from './checkpoints';
import { runArchiveCommand } from './sessionArchive';
import { WorktreeManager } from '../core/worktrees/manager';
import { placeForRun, runWorktreeCommand, worktreeFailureText } from './worktrees';
import { AttachmentError } from '../core/agent/attachments';
import { FileSessionStore, SessionLockedError, SessionNotFoundError } from '../core/storage/sessionStore';
import { applyConsent, loadMcpConfig } from '../core/mcp/load';
import type { ApprovalContext, ApprovalDecision, ApprovalRequest, Approver } from '../core/approvals/approval';
import { findRipgrepOnPath } from '../core/tools/grepSearch';
import { runMemory } from '../core/web/access';
import { todoCountsText } from '../core/todos/todos';
import { parseCliArgs, USAGE, UsageError, type CliOptions } from './args';
import { promptStep, type SlashRun } from './slash';
import { loadCommandCatalog } from '../frontends/slashCommands';
import { memoryFolderFor } from '../core/memory/location';
import { cliHint } from './errorHints';
import { commandPreview, commandSize, commandView, hiddenText, MODEL_DESCRIPTION_LABEL, NEWLINE_MARKER, visibleCommandLine, visibleDescription } from '../core/visibleText';
import { escapeLine, escapeText, jsonLine } from './terminalText';
import { redactedOutput } from './redactedOutput';
import { isModeEvent, modeEventText, planHint } from './modes';
import { PlanDecisionError, UnknownModeError } from '../core/agent/modes';
import { cliHooksConfig, hookRunLine } from './hooks';

export interface CliIO {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Fires on Ctrl-C; the run cancels cleanly and exits 130. */
  interrupt?: AbortSignal;
}

/** The SearXNG instance's key for --searxng-url (removed from the environment once read, like the API keys). */
const SEARXNG_KEY_ENV = 'EVERGREEN_SEARXNG_KEY';

export const EXIT = { ok: 0, failed: 1, usage: 2, sandbox: 3, cancelled: 130 } as const;

/**
 * The headless runner: same engine as the extension, events printed as text or JSON lines. Every
 * byte it writes goes through one redaction (the session's events and log lines already did; what
 * the CLI writes itself does here), and an unexpected error is reported through it too.
 */
export async function runCli(argv: string[], rawIo: CliIO): Promise<number> {
  // Read before anything runs: the keys leave the environment below, but stay known to the redactor.
  const secretEnv = { ...rawIo.env };
  const redactor = new SecretRedactor();
  const io: CliIO = { ...rawIo, stdout: redactedOutput(rawIo.stdout, redactor), stderr: redactedOutput(rawIo.stderr, redactor) };
  try {
    return await run(argv, io, secretEnv, redactor);
  } catch (error) {
    io.stderr.write(`evergreen: ${line(errorMessage(error))}\n`);
    return EXIT.failed;
  }
}

/** The parsed flags, or the exit code when the run ends here (a usage error, --help). */
function optionsOrExit(argv: string[], io: CliIO): CliOptions | number {
  let options: CliOptions;
  try {
    options = parseCliArgs(argv, io.cwd);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`evergreen: ${line(error.message)}\n${USAGE}\n`);
      return EXIT.usage;
    }
    throw error;
  }
  if (options.help) {
    io.stdout.write(`${USAGE}\n`);
    return EXIT.ok;
  }
  return options;
}

async function run(argv: string[], io: CliIO, secretEnv: NodeJS.ProcessEnv, redactor: SecretRedactor): Promise<number> {
  const options = optionsOrExit(argv, io);
  if (typeof options === 'number') return options;
  redactor.learn(knownSecrets(secretEnv[PROVIDER_INFO[options.provider].apiKeyEnv], secretEnv));
  const fail = (message: string, code: number = EXIT.failed): number => {
    io.stderr.write(`evergreen: ${line(message)}\n`);
    return code;
  };

  const workspace = path.resolve(io.cwd, options.workspace);
  if (!fs.existsSync(workspace) || !fs.statSync(workspace).isDirectory()) return fail(`workspace "${workspace}" is not a directory`);
  const logger = options.verbose ? lineLogger((text) => io.stderr.write(`evergreen: ${line(text)}\n`)) : silentLogger;
  const storageRoot = options.storageDir ? path.resolve(io.cwd, options.storageDir) : path.join(os.homedir(), '.evergreen');
  const store = new FileSessionStore(storageRoot, undefined, logger);
  const storedSessionRun = storedSessionCommand(options, store, workspace, io, logger, fail);
  if (storedSessionRun) return storedSessionRun;
  const worktrees = new WorktreeManager({ storageRoot: store.rootDir, logger });
  if (options.worktreeCommand) return runWorktreeCommand(options.worktreeCommand, worktrees, workspace, options.yes, (text) => io.stdout.write(`${text}\n`)).catch((error: unknown) => fail(worktreeFailureText(error)));
  const prompts = options.prompts.length > 0 || options.buildPlan ? options.prompts : [await readStdin(io.stdin)].filter((text) => text.trim().length > 0); // --build-plan is a turn of its own: a prompt is only its note
  if (prompts.length === 0 && !options.buildPlan) return fail('no prompt: pass -p TEXT or pipe the prompt on standard input', EXIT.usage);
  const place = await placeForRun(worktrees, workspace, options, prompts[0] ?? '', (text) => io.stderr.write(`evergreen: ${line(text)}\n`)).catch((error: unknown) => fail(worktreeFailureText(error)));
  if (typeof place === 'number') return place;

  const printer = options.outputFormat === 'stream-json' ? jsonPrinter(io.stdout, io.stderr) : textPrinter(io.stdout, io.stderr);
  // Once read, the keys leave this process's environment: code that runs later in it, and any child
  // started without childProcessEnv, cannot find them there. (/proc/<pid>/environ still shows the
  // block the process started with; only the sandbox keeps commands from reading it.)
  for (const { apiKeyEnv } of Object.values(PROVIDER_INFO)) delete io.env[apiKeyEnv];
  delete io.env[SEARXNG_KEY_ENV];
  const memoryFolder = options.memory ? memoryFolderFor(storageRoot, workspace) : undefined;
  let started: StartedSession | undefined;
  let sandboxWarning: string | undefined; // --require-sandbox refuses a start that warned the sandbox cannot run here.
  try {
    started = await startAgentSession({
      config: {
        provider: options.provider,
        apiKey: secretEnv[PROVIDER_INFO[options.provider].apiKeyEnv],
        secretEnv,
        baseURL: options.baseUrl ?? io.env[PROVIDER_INFO[options.provider].baseUrlEnv],
        model: options.model,
        maxOutputTokens: options.maxOutputTokens,
        maxToolRoundsPerTurn: options.maxToolRoundsPerTurn,
        thinking: options.thinking,
        approvalPolicy: { writes: options.yes ? 'auto' : 'ask', shell: options.yes ? 'auto' : 'ask', shellAllowList: options.shellAllowList, mcp: options.yes ? 'auto' : 'ask' },
        trusted: true,
        ripgrepPath: findRipgrepOnPath(io.env.PATH),
        contextWindow: options.contextWindow,
        autoCompactPercent: options.autoCompactPercent,
        contextSettings: options.contextSettings,
        subagents: options.subagents,
        sandbox: { enabled: options.sandbox, allowedDomains: options.allowedDomains },
        instructions: { enabled: options.instructions, ...(io.env.HOME ? { home: io.env.HOME } : {}) },
        modes: { start: options.mode, planMcpTools: options.planMcpTools, ...(io.env.HOME ? { home: io.env.HOME } : {}) },
        // The CLI trusts the workspace it is given for skills and commands, as for AGENTS.md: they are text, not code.
        skills: { home: home(io) },
        ...(memoryFolder ? { memory: { folder: memoryFolder } } : {}),
        mcp: await cliMcpSettings(options, place.workspace, io),
        hooks: await cliHooksConfig(options, place.workspace, io),
        // --allow-web pre-approves; an "a" answer at the prompt lasts for this run only.
        web: {
          allowedDomains: options.webDomains,
          memory: runMemory(),
          search: options.webSearch,
          ...(options.searxngUrl ? { searxng: { url: options.searxngUrl, key: secretEnv[SEARXNG_KEY_ENV] } } : {}),
        },
      },
      logger,
      workspaceRoot: place.workspace,
      ...(place.worktree ? { worktree: place.worktree.access } : {}),
      store,
      resumeId: options.resume,
      // Ctrl-C at an approval prompt reaches readline, not the process: it cancels the turn too.
      approver: oneAtATime(terminalApprover(io, () => started?.session.cancel())),
      onEvent: (core) => {
        const event = wordEvent(core); // the CLI's words: English
        if (event.type === 'sandbox_notice' && event.level === 'warning') sandboxWarning = event.message;
        printer(event);
      },
      redactor,
      signal: io.interrupt,
    });
  } catch (error) {
    return failStart(error, fail);
  }

  if (options.requireSandbox && sandboxWarning !== undefined) return refuseUnsandboxed(started, store, sandboxWarning, fail);
  warnAboutStart(started, options, io);
  if (place.worktree && place.worktree.record.sessionId === undefined) await worktrees.attachSession(place.worktree.record, started.handle.id);
  // A resumed session's task list, once: a script reading stream-json learns the plan it goes on with.
  const restoredTodos = started.replay.filter((event) => event.type === 'todos').at(-1);
  if (restoredTodos) printer(restoredTodos);

  let exitCode: number = EXIT.ok;
  const session = started.session;
  const unsubscribe = onAbort(io.interrupt, () => session.cancel());
  try {
    const catalog = await loadCommandCatalog({ workspaceRoot: place.workspace, workspaceTrusted: true, home: home(io) });
    exitCode = await runPrompts(prompts, { started, catalog, workspaceRoot: place.workspace, memoryFolder, thinking: String(options.thinking) }, options, io);
  } finally {
    unsubscribe();
    await started.handle.flushMeta().catch((error: unknown) => logger.error('could not write meta.json', error));
    // Every MCP server and whatever it started ends with the session, and its lock is released.
    await started.close();
  }
  // No price hint here: prices are set in VS Code ("evergreen.pricing"); the CLI uses the built-in tables.
  if (options.outputFormat === 'text') io.stderr.write(`\n[session ${started.handle.id} · ${formatCost(started.session.costUsd, started.session.unpricedRequestCount, 4)}]\n`);
  if (exitCode === EXIT.cancelled) io.stderr.write('evergreen: cancelled\n');
  return exitCode;
}

/** The archive and checkpoint commands, which run on stored sessions instead of prompts; undefined when none was asked for. */
function storedSessionCommand(options: CliOptions, store: FileSessionStore, workspace: string, io: CliIO, logger: Logger, fail: (message: string, code?: number) => number): Promise<number> | undefined {
  if (options.archiveCommand) return runArchiveCommand(options.archiveCommand, store, workspace, io.cwd, { say: (text) => io.stdout.write(`${line(text)}\n`), warn: (text) => io.stderr.write(`${line(text)}\n`) });
  if (options.checkpointCommand === undefined || options.resume === undefined) return undefined;
  return runCheckpointCommand(options.checkpointCommand, options.resume, store, workspace, (text) => io.stdout.write(`${text}\n`), logger).then(
    () => EXIT.ok,
    (error: unknown) => (error instanceof CheckpointError ? fail(error.message) : failStart(error, fail)),
  );
}

/** --require-sandbox without a sandbox: nothing was sent, so the session (a system prompt only) is not kept. */
async function refuseUnsandboxed(started: StartedSession, store: FileSessionStore, warning: string, fail: (message: string, code: number) => number): Promise<number> {
  await started.close();
  await store.discard(started.handle.id);
  return fail(`${warning} --require-sandbox stopped the run before anything was sent to the model.`, EXIT.sandbox);
}

/** Says why the session could not start and gives the exit code that says so. */
function failStart(error: unknown, fail: (message: string, code: number) => number): number {
  const failure = startFailure(error);
  return fail(failure.message, failure.code);
}

/** Why the session could not start, in the terminal's words, and the exit code that says so. */
function startFailure(error: unknown): { message: string; code: number } {
  if (error instanceof SessionNotFoundError) return { message: `${error.message} Run without --resume to start a new session.`, code: EXIT.failed };
  if (error instanceof SessionLockedError) {
    const owner = error.ownerPid > 0 ? ` (pid ${error.ownerPid})` : '';
    // The store's words suit the extension ("start a New Chat here"); the terminal gets its own way on.
    return {
      message: `Session "${error.sessionId}" is open in another Evergreen window or process${owner}; two writers would interleave its transcript. Wait for it to finish or close it there, or run without --resume to start a new session.`,
      code: EXIT.failed,
    };
  }
  if (error instanceof ModelError) return error.kind === 'cancelled' ? { message: 'cancelled', code: EXIT.cancelled } : { message: oneLine(error), code: EXIT.failed };
  if (error instanceof UnknownModeError) return { message: `--mode: ${word(error.said)}`, code: EXIT.usage };
  return { message: error instanceof Error ? error.message : String(error), code: EXIT.failed };
}

/** What the user must know before the first prompt: a guessed window, transcript lines resume skipped. */
function warnAboutStart(started: StartedSession, options: CliOptions, io: CliIO): void {
  const modelInfoWarning = started.client.modelInfoWarning;
  if (modelInfoWarning) {
    const how = options.contextWindow === undefined ? 'the default; set it with --context-window N' : 'from --context-window';
    io.stderr.write(`warning: ${line(`${word(modelInfoWarning)} Using a context window of ${started.window.toLocaleString('en-US')} tokens (${how}).`)}\n`);
  }
  const problems = started.transcriptProblems;
  if (problems.length > 0) {
    // Resume never fails for a bad line, but the user must know what was left out.
    const where = problems.map((problem) => problem.line).join(', ');
    io.stderr.write(`warning: ${line(`${problems.length} unreadable line(s) of the transcript were skipped (line ${where}); the rest of the conversation was restored.`)}\n`);
  }
}

/** The home folder `~` means for skills and commands: the environment's, as for instruction files. */
function home(io: CliIO): string {
  return io.env.HOME ?? os.homedir();
}

/** Sends the prompts in order (a slash command acts or expands first, slash.ts); stops at the first that does not end well. */
async function runPrompts(prompts: readonly string[], run: SlashRun, options: CliOptions, io: CliIO): Promise<number> {
  const { started } = run;
  if (options.buildPlan) {
    // --build-plan's turn comes first and carries the first -p as its note; the other prompts follow.
    const code = await buildPlanTurn(prompts[0], started, options, io);
    if (code !== undefined) return code;
  }
  for (const [index, prompt] of (options.buildPlan ? prompts.slice(1) : prompts).entries()) {
    if (io.interrupt?.aborted) return EXIT.cancelled;
    const step = await promptStep(prompt, run);
    if (step.kind === 'refuse') {
      io.stderr.write(`evergreen: ${line(step.message)}\n`);
      return EXIT.usage;
    }
    if (step.kind === 'print') {
      // stream-json's stdout holds events only: a command's answer goes beside its notes there.
      (options.outputFormat === 'text' ? io.stdout : io.stderr).write(`${escapeText(step.text)}\n`);
      continue;
    }
    if (step.kind === 'compact') {
      // As in the chat: compact now, with the optional focus; the engine's events report it.
      const outcome = await started.session.compact(step.focus, io.interrupt);
      io.stderr.write(`evergreen: ${line(word(outcome.message))}\n`);
      if (!outcome.ok) return EXIT.failed;
      continue;
    }
    for (const notice of step.notices) io.stderr.write(`note: ${line(notice)}\n`);
    let stop: TurnStopReason;
    try {
      // --attach goes with the first message, before what a command attaches.
      stop = await started.session.send(step.text, undefined, [...(index === 0 ? options.attachments : []), ...step.attachments], step.turn);
    } catch (error) {
      if (!(error instanceof AttachmentError)) throw error;
      io.stderr.write(`evergreen: ${line(error.message)}; nothing was sent\n`);
      return EXIT.usage;
    }
    const code = await turnOutcome(stop, started, options, io);
    if (code !== undefined) return code;
  }
  const hint = planHint(started.session.history, started.handle.id);
  if (hint) io.stderr.write(`evergreen: ${line(hint)}\n`);
  return EXIT.ok;
}

/** --build-plan: builds the plan the session proposed, `note` going with it; an exit code when the run stops here. */
async function buildPlanTurn(note: string | undefined, started: StartedSession, options: CliOptions, io: CliIO): Promise<number | undefined> {
  let stop: TurnStopReason;
  try {
    stop = await started.session.decidePlan('build', { ...(note !== undefined ? { note } : {}) });
  } catch (error) {
    if (!(error instanceof PlanDecisionError)) throw error;
    io.stderr.write(`evergreen: ${line(error.message)}\n`);
    return EXIT.failed;
  }
  return turnOutcome(stop, started, options, io);
}

/** How a turn ended, as the run's exit code when it must stop (cancelled, failed, a cut reply); undefined: go on. */
async function turnOutcome(stop: TurnStopReason, started: StartedSession, options: CliOptions, io: CliIO): Promise<number | undefined> {
  if (stop === 'cancelled') return EXIT.cancelled;
  if (stop === 'error') return EXIT.failed;
  const incomplete = await incompleteReply(stop, started, options);
  if (!incomplete) return undefined;
  // A cut reply is not an answer: scripts must not mistake it for one (the webview says so too).
  io.stderr.write(options.outputFormat === 'text' ? textError(incomplete.message, incomplete.hint) : jsonError(incomplete.message, incomplete.hint));
  return EXIT.failed;
}

function oneLine(error: ModelError): string {
  const hint = cliHint(error.hint);
  return `${word(error.text)}${hint ? ` (${hint})` : ''}`.replace(/\s*\n\s*/g, ' ');
}

/** One terminal line: secrets in URLs redacted, every control, bidi or zero-width character visible. */
function line(text: string): string {
  return escapeLine(redactUrlSecrets(text));
}

/** `hint`: in the terminal's words already (cliHint words the core's kinds). */
function textError(message: string, hint: string | undefined): string {
  return `error: ${line(message)}${hint ? `\n  ${line(hint)}` : ''}\n`;
}

function jsonError(message: string, hint: string | undefined): string {
  return `evergreen: ${line(message)}${hint ? ` (${line(hint)})` : ''}\n`;
}

/** Why a turn that ended at a limit left its reply incomplete, with the way on. */
async function incompleteReply(stop: TurnStopReason, started: StartedSession, options: CliOptions): Promise<{ message: string; hint: string } | undefined> {
  const id = started.handle.id;
  if (stop === 'max_tokens') {
    const modelMax = (await started.client.getModelInfo().catch(() => undefined))?.maxOutputTokens ?? Number.POSITIVE_INFINITY;
    const limit = Math.min(contextBudget(started.window, options.maxOutputTokens).outputReserve, modelMax);
    return {
      message: `The reply hit the output token limit (${limit} tokens) before it was complete.`,
      hint: `Raise --max-output-tokens (replies are also capped at 20% of the context window) or ask for smaller steps; to go on, run with --resume ${id} -p "continue".`,
    };
  }
  if (stop === 'context_window_exceeded') {
    return {
      message: 'The conversation filled the context window before the reply was complete.',
      hint: `Compact it (--resume ${id} -p "/compact") and go on, or run without --resume to start a new session; this transcript stays saved.`,
    };
  }
  return undefined;
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

/** Exact text for programs (see jsonLine for the characters written as \u escapes). */
function jsonPrinter(stdout: NodeJS.WritableStream, stderr: NodeJS.WritableStream): (event: WordedEvent) => void {
  return (event) => {
    stdout.write(`${jsonLine(event)}\n`);
    // The one-line reason also goes to stderr, where scripts look for it.
    if (event.type === 'error') stderr.write(jsonError(event.message, cliHint(event.errorHint ?? event.hint)));
  };
}

/** Everything the model or a server controls is escaped (see terminalText.ts) before it reaches the terminal. */
function textPrinter(stdout: NodeJS.WritableStream, stderr: NodeJS.WritableStream): (event: WordedEvent) => void {
  let midLine = false;
  // Text streamed by the current attempt: a retry sends the reply again from its start.
  let attemptText = false;
  const breakLine = () => {
    if (midLine) stdout.write('\n');
    midLine = false;
  };
  return (event) => {
    switch (event.type) {
      case 'request_started':
        attemptText = false;
        break;
      case 'text_delta':
        stdout.write(escapeText(event.text));
        midLine = !event.text.endsWith('\n');
        attemptText ||= event.text.length > 0;
        break;
      case 'tool_call_started':
        breakLine();
        // Padding folded here too: 20,000 spaces in an input would scroll everything before them away.
        stderr.write(`▸ ${line(event.name)} ${visibleCommandLine(redactUrlSecrets(JSON.stringify(event.input) ?? ''))}\n`);
        break;
      case 'tool_call_finished':
        stderr.write(`  ${event.isError ? '✗' : '✓'} ${line(event.name)} (${event.content.length} chars, ${event.durationMs} ms)\n`);
        break;
      case 'compaction':
        breakLine();
        stderr.write(`  ⟳ context compacted (${line(event.trigger)}): ~${event.tokensBefore} -> ~${event.tokensAfter} tokens, ${event.messagesSummarized} message(s) summarized\n`);
        break;
      case 'compaction_failed':
        breakLine();
        stderr.write(`  ! ${line(event.message)}\n    ${line(event.hint)}\n`);
        break;
      case 'context_window_learned':
        breakLine();
        stderr.write(`  ! ${line(event.message)}\n`);
        break;
      case 'tier':
        stderr.write(`  · ${line(event.tier)}: ${line(event.detail)} (~${event.tokensBefore} -> ~${event.tokensAfter} tokens)\n`);
        break;
      case 'subagent_started':
        breakLine();
        stderr.write(`  ⇉ subagent ${line(event.agentType)} started: ${line(event.description)} (transcript ${line(event.transcriptPath)})\n`);
        break;
      case 'subagent_finished':
        breakLine();
        stderr.write(`  ⇇ subagent ${word(subagentStatusText(event.status))}: ${event.toolCalls} tool call(s), ${Math.round(event.elapsedMs / 1000)} s, ${formatCost(event.costUsd, event.unpricedRequests, 4)}\n`);
        break;
      case 'storage_warning':
      case 'sandbox_notice':
      case 'mcp_notice':
      case 'web_notice':
        breakLine();
        stderr.write(`warning: ${line(event.message)}\n`);
        break;
      case 'hook_run':
        breakLine();
        stderr.write(`${hookRunLine(event.run)}\n`);
        break;
      case 'instructions_notice':
      case 'thinking_notice':
      case 'hook_notice':
      case 'customization_notice':
        breakLine();
        stderr.write(`${event.level === 'warning' ? 'warning' : 'note'}: ${line(event.message)}\n`);
        break;
      case 'todos': {
        const current = event.items.filter((item) => item.status === 'in_progress').map((item) => item.text);
        stderr.write(`  ☰ task list: ${event.items.length === 0 ? 'cleared' : todoCountsText(event.items)}${current.length > 0 ? ` — now: ${line(current.join('; ').slice(0, 200))}` : ''}\n`);
        break;
      }
      case 'retrying':
        breakLine();
        if (attemptText) {
          // On stdout, with the text it disowns: a reader of stdout alone must not take it as the answer.
          stdout.write('[reply interrupted; retrying: the partial text above is discarded]\n');
          attemptText = false;
        }
        stderr.write(`  retrying in ${Math.round(event.delayMs)} ms (attempt ${event.attempt}): ${line(event.reason)}\n`);
        break;
      case 'error':
        breakLine();
        stderr.write(textError(event.message, cliHint(event.errorHint ?? event.hint)));
        break;
      case 'turn_finished':
        breakLine();
        break;
      default:
        if (isModeEvent(event)) {
          breakLine();
          const text = modeEventText(event);
          if (text.stdout) stdout.write(text.stdout);
          if (text.stderr) stderr.write(text.stderr);
        }
        break;
    }
  };
}

/**
 * Subagents may ask at the same time as each other or as the parent: one terminal shows one
 * question at a time, so the others wait their turn (each still resolves its own tool call).
 */
function oneAtATime(approver: Approver): Approver {
  let queue: Promise<unknown> = Promise.resolve();
  return {
    requestApproval(request, signal, context) {
      const turn = queue.then(() => (signal.aborted ? { approved: false as const, reason: 'Cancelled.' } : approver.requestApproval(request, signal, context)));
      queue = turn.catch(() => undefined);
      return turn;
    },
  };
}

/** Asks on the terminal; without a terminal it declines with a reason the model and the user can act on. */
function terminalApprover(io: CliIO, onInterrupt: () => void): Approver {
  return {
    async requestApproval(request: ApprovalRequest, signal: AbortSignal, context?: ApprovalContext): Promise<ApprovalDecision> {
      // Several subagents may ask in turn: each prompt says which one asks.
      const asker = context?.subagent === undefined ? '' : ` for subagent "${escapeLine(context.subagent)}"`;
      const outside = request.kind === 'shell' && request.isolation === 'outside';
      if (!io.stdin.isTTY) {
        if (outside) {
          // --yes never covers leaving the sandbox: only a person at a terminal can allow that.
          io.stderr.write(`evergreen: declined ${describe(request)}${asker} outside the sandbox: no terminal to ask on (--yes never approves leaving the sandbox)\n`);
          return { approved: false, reason: 'Not approved: running outside the sandbox needs a person to approve it at a terminal; --yes does not cover it.' };
        }
        if (request.kind === 'web') {
          // --yes never opens the network: a URL can carry the workspace's content to any server.
          io.stderr.write(`evergreen: declined ${describe(request)}${asker}: no terminal to ask on (allow the host with --allow-web ${escapeLine(request.host)}; --yes does not cover web fetches)\n`);
          return { approved: false, reason: `Not approved: ${request.host} is not allowed and there is no terminal to ask on. The user can allow it with --allow-web ${request.host}; --yes does not cover web fetches.` };
        }
        if (request.kind === 'hook') {
          io.stderr.write(`evergreen: declined ${describe(request)}${asker}: no terminal to ask on (a hook asked for your answer; --yes does not give it)\n`);
          return { approved: false, reason: 'Not approved: a hook asked the user to decide on this call, and there is no terminal to ask on (--yes does not answer for the user).' };
        }
        if (request.kind === 'sandbox_changes') {
          io.stderr.write(`evergreen: declined ${describe(request)}${asker}: no terminal to ask on (--yes never approves what would run outside the sandbox)\n`);
          return { approved: false, reason: 'Not approved: what would run outside the sandbox needs a person to approve it at a terminal; --yes does not cover it.' };
        }
        io.stderr.write(`evergreen: declined ${describe(request)}${asker}: no terminal to ask on (run with --yes to approve automatically)\n`);
        return { approved: false, reason: 'Not approved: the CLI runs without a terminal and without --yes.' };
      }
      // What the user approves must read as what runs: a diff keeps its lines; a command is shown
      // line by line with its real newlines marked, padding folded and its size said, and a long
      // one is cut with the rest one answer away (20,000 spaces cannot push it off the screen).
      const view = request.kind === 'shell' ? commandView(request.command) : request.kind === 'mcp' ? commandView(request.arguments) : request.kind === 'hook' ? commandView(request.input) : undefined;
      const preview = view ? commandPreview(view) : undefined;
      if (request.kind === 'mcp') {
        io.stderr.write(`\nMCP server ${escapeLine(request.server)}, tool ${escapeLine(request.tool)}, with these arguments:`);
        if (request.serverHints?.length) io.stderr.write(`\nThe server says (its claim, not a check): ${request.serverHints.map((hint) => visibleDescription(word(hint))).join('; ')}`);
      }
      if (request.kind === 'hook') io.stderr.write(`\nA PreToolUse hook asks you to decide on this ${escapeLine(request.tool)} call${request.reasons.length > 0 ? ` (its words, not a check: ${request.reasons.map(visibleDescription).join('; ')})` : ''}. Its input:`);
      const cut = preview !== undefined && (preview.hiddenLines > 0 || preview.hiddenChars > 0);
      if (request.kind === 'write') io.stderr.write(`\n${escapeText(request.diff)}\n`);
      if (request.kind === 'sandbox_changes') io.stderr.write(sandboxChangesText(request));
      if (request.kind === 'web') io.stderr.write(webRequestText(request));
      if (view && preview) io.stderr.write(`\n${commandText(preview.shown, view.lines.length)}${cut ? `\n  [${hiddenText(preview)} not shown: answer v to see the whole command]` : ''}\n`);
      if (request.kind === 'write' && request.protectedReason) io.stderr.write(`This file configures what commands run: ${word(request.protectedReason)}.\n`);
      if (request.kind === 'shell' && request.isolation === 'unavailable') io.stderr.write('The sandbox cannot run here: this command would run with your full permissions.\n');
      if (outside) io.stderr.write(`OUTSIDE THE SANDBOX, with your full permissions. The model's reason (its words, not a check): ${visibleDescription(request.outsideReason ?? '(none given)')}\n`);
      if (request.kind === 'shell' && request.description !== undefined) io.stderr.write(`${MODEL_DESCRIPTION_LABEL} ${visibleDescription(request.description)}\n`);
      const rl = readline.createInterface({ input: io.stdin, output: io.stderr });
      try {
        // One answer at a time; Ctrl-C, a closed terminal or a cancelled turn answer no.
        let settle: ((reply: string) => void) | undefined;
        rl.on('SIGINT', () => {
          settle?.('n');
          onInterrupt();
        });
        rl.on('close', () => settle?.('n'));
        const ask = (question: string) =>
          new Promise<string>((resolve) => {
            const onAbortSignal = () => resolve('n');
            settle = resolve;
            signal.addEventListener('abort', onAbortSignal, { once: true });
            rl.question(question, (reply) => {
              signal.removeEventListener('abort', onAbortSignal);
              resolve(reply);
            });
          });
        const question = view && request.kind !== 'hook' ? `Allow running this command (${commandSize(view)})${asker}${outside ? ' OUTSIDE the sandbox' : ''}?` : `Allow ${describe(request)}${asker}?`;
        if (request.kind === 'web') {
          const reply = (await ask(`${question} [y/N/a] (a: always for ${escapeLine(request.host)}, for the rest of this run) `)).trim();
          if (/^a(lways)?$/i.test(reply)) return { approved: true, always: true };
          return /^y(es)?$/i.test(reply) ? { approved: true } : { approved: false };
        }
        let answer = await ask(`${question} ${cut ? '[y/N/v] ' : '[y/N] '}`);
        if (cut && view && /^v(iew)?$/i.test(answer.trim())) {
          io.stderr.write(`\n${commandText(view.lines, view.lines.length)}\n`);
          answer = await ask(`${question} [y/N] `);
        }
        return /^y(es)?$/i.test(answer.trim()) ? { approved: true } : { approved: false };
      } finally {
        rl.close();
      }
    },
  };
}

/** A web fetch's prompt: the whole URL the server will receive, and where a redirect came from (untrusted text, escaped). */
function webRequestText(request: Extract<ApprovalRequest, { kind: 'web' }>): string {
  const from = request.redirectedFrom === undefined ? '' : `\n  (redirected from ${escapeLine(request.redirectedFrom)})`;
  return `\nweb_fetch would send this URL to ${escapeLine(request.host)} (path and query included):\n  ${escapeLine(request.url)}${from}\nThe page comes back as untrusted text for the model.\n`;
}

/** The held paths for the terminal: each with why, and the risky lines indented (untrusted text, escaped). */
function sandboxChangesText(request: Extract<ApprovalRequest, { kind: 'sandbox_changes' }>): string {
  const lines = ['', `The sandboxed command \`${escapeLine(request.command)}\` wrote what would make programs outside the sandbox (Git, VS Code, your shell) run commands:`];
  for (const change of request.changes) {
    lines.push(`  ${escapeLine(change.path)}: ${escapeLine(word(change.reason))}`);
    for (const line of change.detail?.split('\n') ?? []) lines.push(`      ${escapeLine(line)}`);
  }
  lines.push('Declined, they are kept aside in the session folder and the rest is applied.', '');
  return lines.join('\n');
}

function describe(request: ApprovalRequest): string {
  if (request.kind === 'write') return `${request.isNew ? 'creating' : 'changing'} ${escapeLine(request.path)}`;
  if (request.kind === 'sandbox_changes') return `applying ${request.changes.length} held change${request.changes.length === 1 ? '' : 's'} a sandboxed command wrote`;
  if (request.kind === 'mcp') return `calling ${escapeLine(request.tool)} on the MCP server ${escapeLine(request.server)}`;
  if (request.kind === 'hook') return `the ${escapeLine(request.tool)} call a hook asked about`;
  if (request.kind === 'web') return `fetching ${escapeLine(request.url.length > 200 ? `${request.url.slice(0, 200)}…` : request.url)}`;
  const view = commandView(request.command);
  const first = commandPreview(view, { lines: 1, chars: 80 });
  return `running \`${first.shown[0] ?? ''}${first.hiddenLines > 0 || first.hiddenChars > 0 ? '…' : ''}\` (${commandSize(view)})`;
}

/** A command's lines for the terminal: `$ ` before the first, each real newline shown as a marker. */
function commandText(lines: readonly string[], total: number): string {
  return lines.map((text, index) => `${index === 0 ? '$ ' : '  '}${text}${index < total - 1 ? ` ${NEWLINE_MARKER}` : ''}`).join('\n');
}

/** The CLI's MCP servers: --mcp-config files, and the workspace's only with --trust-workspace-mcp. */
async function cliMcpSettings(options: CliOptions, workspace: string, io: CliIO): Promise<McpSettings> {
  const loaded = await loadMcpConfig({ workspaceRoot: workspace, readWorkspace: true, userFiles: options.mcpConfigFiles.map((file) => path.resolve(io.cwd, file)), env: io.env });
  const { allowed, notices } = applyConsent(loaded.servers, () => options.trustWorkspaceMcp);
  return { servers: allowed, problems: loaded.problems, notices };
}
