/**
 * One run of the GitHub Action (action.yml's run step, `evergreen github-action`): the headless CLI
 * on the checked-out repository with the sandbox required, then the agent's changes committed to a
 * new branch and pushed, a pull request when asked, the session written out as the artifact folder
 * the next step uploads, the step's outputs and the job summary. A failure of the model, the
 * sandbox or Git is reported in the summary and fails the step; the session is still written out
 * when there is one, so even a failed run comes home as a chat.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { exportSessionToFolder } from '../../core/archive/exportSession';
import { githubRepository } from '../../core/archive/repository';
import { errorMessage } from '../../core/logger';
import { knownSecrets, SecretRedactor } from '../../core/secrets';
import { PROVIDER_INFO } from '../../core/model/backend';
import { FileSessionStore, readTranscript } from '../../core/storage/sessionStore';
import { EXIT, runCli } from '../run';
import { changedFiles, commitAndPush, persistedCredentials } from './gitSteps';
import { ActionInputError, agentPrompt, readInputs, readRunFacts, type ActionInputs, type RunFacts } from './inputs';
import { openPullRequest, pullRequestBody } from './pullRequest';
import { appendTo, outputLines, reportOf, summaryMarkdown, type SessionReport } from './report';

export interface ActionIO {
  env: NodeJS.ProcessEnv;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  interrupt?: AbortSignal;
}

/** The inputs that carry credentials: read once, then removed from the environment (the CLI does the same with its keys). */
const SECRET_INPUTS = ['EVERGREEN_ANTHROPIC_API_KEY', 'EVERGREEN_OPENAI_API_KEY', 'EVERGREEN_GITHUB_TOKEN'];

export async function runGithubAction(io: ActionIO): Promise<number> {
  let facts: RunFacts;
  let inputs: ActionInputs;
  try {
    facts = readRunFacts(io.env);
    inputs = readInputs(io.env, facts.runId, facts.runAttempt);
  } catch (error) {
    if (!(error instanceof ActionInputError)) throw error;
    io.stderr.write(`::error title=Evergreen::${error.message}\n`);
    return EXIT.usage;
  } finally {
    for (const name of SECRET_INPUTS) delete io.env[name];
  }
  const artifactName = `evergreen-${facts.runId}${facts.runAttempt !== '1' ? `-${facts.runAttempt}` : ''}`;
  const root = path.join(facts.temp, 'evergreen');
  const storage = path.join(root, 'storage');
  const artifact = path.join(root, 'artifact');
  fs.rmSync(root, { recursive: true, force: true });
  fs.mkdirSync(storage, { recursive: true });

  // What this step writes itself (summary, pull request) passes the same redaction as the CLI's output.
  const redactor = new SecretRedactor(knownSecrets(inputs.apiKey, { EVERGREEN_GITHUB_TOKEN: inputs.githubToken }));
  const run = await runAgent(io, facts, inputs, storage);
  const state: RunState = { ok: run.failure === undefined, failure: run.failure, report: run.report, changed: [], branch: undefined, commit: undefined, pullRequestUrl: undefined };
  if (run.started) await pushChanges(io, facts, inputs, state, redactor);
  const artifactPath = state.report ? await writeArtifact(facts, state, storage, artifact) : undefined;
  appendTo(
    facts.outputFile,
    outputLines({
      'session-id': state.report?.sessionId ?? '',
      branch: state.branch ?? '',
      cost: state.report ? state.report.meta.totals.costUsd.toFixed(4) : '0',
      'changed-files': state.changed.join('\n'),
      'pull-request-url': state.pullRequestUrl ?? '',
      'artifact-name': artifactName,
      'artifact-path': artifactPath ?? '',
      outcome: state.ok ? 'success' : 'failure',
    }),
  );
  appendTo(facts.summaryFile, redactor.text(summaryMarkdown({ ok: state.ok, failure: state.failure, prompt: inputs.prompt, report: state.report, changed: state.changed, branch: state.branch, pullRequestUrl: state.pullRequestUrl, artifactName, runId: facts.runId })));
  if (!state.ok) io.stderr.write(`::error title=Evergreen::${oneLine(state.failure ?? 'the run failed')}\n`);
  return state.ok ? EXIT.ok : run.code === EXIT.sandbox ? EXIT.sandbox : EXIT.failed;
}

interface RunState {
  ok: boolean;
  failure: string | undefined;
  report: SessionReport | undefined;
  changed: string[];
  branch: string | undefined;
  commit: string | undefined;
  pullRequestUrl: string | undefined;
}

function oneLine(text: string): string {
  // Workflow commands end at a newline; %, \r and \n are escaped as the runner expects.
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** The CLI in this process, its output going to the job's log; returns how it ended and the session it left. */
async function runAgent(io: ActionIO, facts: RunFacts, inputs: ActionInputs, storage: string): Promise<{ code: number; started: boolean; failure: string | undefined; report: SessionReport | undefined }> {
  const credentials = await persistedCredentials(facts.workspace);
  if (credentials) {
    return {
      code: EXIT.failed,
      started: false,
      failure: `${credentials}, where the agent's commands could read it. Check the repository out with \`persist-credentials: false\` (this action pushes with its github-token input itself).`,
      report: undefined,
    };
  }
  const argv = ['--workspace', facts.workspace, '--storage-dir', storage, '--provider', inputs.provider, '--require-sandbox'];
  if (inputs.model) argv.push('--model', inputs.model);
  if (inputs.baseUrl) argv.push('--base-url', inputs.baseUrl);
  if (inputs.maxToolRounds) argv.push('--max-tool-rounds', inputs.maxToolRounds);
  if (inputs.thinking) argv.push('--thinking', inputs.thinking);
  for (const domain of inputs.allowedDomains) argv.push('--allow-domain', domain);
  // Plan mode: nothing is approved, so no file is written and no command runs; the answer is the plan.
  if (inputs.mode === 'agent') argv.push('--yes');
  argv.push('-p', agentPrompt(inputs));
  const stderrTail = tailOf(io.stderr);
  const code = await runCli(argv, {
    stdin: Readable.from([]),
    stdout: io.stdout,
    stderr: stderrTail.stream,
    env: { ...io.env, [PROVIDER_INFO[inputs.provider].apiKeyEnv]: inputs.apiKey, EVERGREEN_GITHUB_TOKEN: inputs.githubToken },
    cwd: facts.workspace,
    ...(io.interrupt ? { interrupt: io.interrupt } : {}),
  });
  const store = new FileSessionStore(storage);
  const meta = (await store.list())[0];
  const report = meta ? reportOf(meta, (await readTranscript(store.transcriptPath(meta.id))).entries) : undefined;
  const failure =
    code === EXIT.ok
      ? undefined
      : code === EXIT.sandbox
        ? `The command sandbox cannot run on this runner, so the agent did not start (it never runs commands unconfined). ${lastLines(stderrTail.text())}`
        : code === EXIT.cancelled
          ? 'The run was cancelled.'
          : `The agent stopped with an error: ${lastLines(stderrTail.text())}`;
  return { code, started: report !== undefined && code !== EXIT.sandbox, failure, report };
}

/** The changes on a new branch, pushed; a pull request when asked and the run went well. Failures are the run's. */
async function pushChanges(io: ActionIO, facts: RunFacts, inputs: ActionInputs, state: RunState, redactor: SecretRedactor): Promise<void> {
  try {
    state.changed = await changedFiles(facts.workspace);
    if (state.changed.length === 0 || !state.report) return;
    const title = inputs.prompt.split('\n')[0]!.slice(0, 72);
    const message = `${title}\n\n${state.ok ? '' : 'The run stopped before it finished: this is its work so far.\n\n'}Evergreen session ${state.report.sessionId}${facts.runUrl ? `\nRun: ${facts.runUrl}` : ''}`;
    state.commit = await commitAndPush({ workspace: facts.workspace, branch: inputs.branch, message, serverUrl: facts.serverUrl, token: inputs.githubToken });
    state.branch = inputs.branch;
    io.stderr.write(`evergreen: pushed ${state.changed.length} changed file(s) to ${inputs.branch}\n`);
    if (!inputs.openPullRequest || !state.ok) return;
    if (!inputs.githubToken || !facts.repository || !facts.baseRef) throw new Error('a pull request needs the github-token input, GITHUB_REPOSITORY and the branch the run started from');
    state.pullRequestUrl = await openPullRequest({ apiUrl: facts.apiUrl, repository: facts.repository, token: inputs.githubToken, head: inputs.branch, base: facts.baseRef, title, body: redactor.text(pullRequestBody(state.report.answer, facts.runUrl, state.report.sessionId)) });
  } catch (error) {
    state.ok = false;
    state.failure = [state.failure, `Publishing the changes failed: ${errorMessage(error)}`].filter(Boolean).join(' ');
  }
}

async function writeArtifact(facts: RunFacts, state: RunState, storage: string, artifact: string): Promise<string | undefined> {
  const report = state.report!;
  await exportSessionToFolder(
    {
      store: new FileSessionStore(storage),
      sessionId: report.sessionId,
      repository: githubRepository(facts.serverUrl, facts.repository),
      workspaceRoot: facts.workspace,
      run: {
        id: facts.runId,
        ...(facts.runUrl ? { url: facts.runUrl } : {}),
        ...(state.branch ? { branch: state.branch } : {}),
        ...(state.commit ? { commit: state.commit } : facts.sha ? { commit: facts.sha } : {}),
        ...(facts.baseRef ? { baseRef: facts.baseRef } : {}),
      },
    },
    artifact,
  );
  return artifact;
}

/** A stream that passes everything on to `target` and keeps the last few KB for the summary. */
function tailOf(target: NodeJS.WritableStream): { stream: NodeJS.WritableStream; text(): string } {
  let kept = '';
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => {
    target.write(chunk);
    kept = (kept + chunk.toString('utf8')).slice(-8000);
  });
  return { stream, text: () => kept };
}

function lastLines(text: string): string {
  const lines = text.split('\n').map((line) => line.trim()).filter((line) => line.startsWith('evergreen:') || line.startsWith('error:') || line.startsWith('warning:'));
  return lines.slice(-3).join(' ').slice(0, 2000) || 'see the step log';
}
