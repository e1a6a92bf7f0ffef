import { runCli } from './run';

const interrupt = new AbortController();
let interrupts = 0;
process.on('SIGINT', () => {
  // First Ctrl-C cancels cleanly (the transcript stays valid); a second one quits at once.
  if (++interrupts > 1) process.exit(130);
  interrupt.abort();
});

runCli(process.argv.slice(2), { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd(), interrupt: interrupt.signal })
  .then((code) => {
    process.exitCode = code;
  })
  .catch((error: unknown) => {
    process.stderr.write(`evergreen: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
