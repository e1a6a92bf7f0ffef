import { shutdownOsSandbox } from '../core/sandbox/srt';
import { killTrackedChildren } from '../core/shell/processGroup';
import { runCli } from './run';
import { runGithubAction } from './githubAction/run';

const interrupt = new AbortController();
let interrupts = 0;
process.on('SIGINT', () => {
  // First Ctrl-C cancels cleanly (the transcript stays valid); a second one quits at once.
  if (++interrupts > 1) {
    killTrackedChildren();
    process.exit(130);
  }
  interrupt.abort();
});

// Killed or hung up (terminal closed, `timeout`, a CI runner): the shell process trees the tools
// started are in their own process groups and would outlive us, so they die first; then the run
// gets a short moment to cancel cleanly and record that in the transcript.
const TERMINATION_GRACE_MS = 2000;
// SIGKILL and the kernel's OOM killer cannot be caught: nothing can clean up after them.
for (const [signal, code] of [
  ['SIGTERM', 143],
  ['SIGHUP', 129],
  ['SIGQUIT', 131],
  ['SIGUSR2', 140],
] as const) {
  process.on(signal, () => {
    killTrackedChildren();
    interrupt.abort();
    setTimeout(() => process.exit(code), TERMINATION_GRACE_MS);
    void running.finally(() => process.exit(code));
  });
}
// Any other way out (an uncaught error, process.exit) still takes the children along.
process.on('exit', () => {
  killTrackedChildren();
});

// `evergreen github-action`: the GitHub Action's run step (action.yml), configured by its environment.
const args = process.argv.slice(2);
const running = (
  args[0] === 'github-action' && args.length === 1
    ? runGithubAction({ env: process.env, stdout: process.stdout, stderr: process.stderr, interrupt: interrupt.signal })
    : runCli(args, { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd(), interrupt: interrupt.signal })
)
  .then((code) => {
    process.exitCode = code;
  })
  .catch((error: unknown) => {
    process.stderr.write(`evergreen: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  })
  // The sandbox's proxy servers would keep the process alive after the last turn.
  .finally(() => shutdownOsSandbox().catch((error: unknown) => process.stderr.write(`evergreen: stopping the sandbox failed: ${error instanceof Error ? error.message : String(error)}\n`)));
