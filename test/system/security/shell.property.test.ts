// Issue 7 item 1, checked by bash itself: commands are generated from a grammar that mixes benign
// words, quotes and operators with expansions that execute code, and with globs for programs that
// have option rules. Every command the analyzer approves is then run by the real /bin/bash in a
// directory holding files whose NAMES are payloads (`config`, `vxf`, `CC=evil`, `a=@x` ...), with
// a PATH of stubs that log their whole argv (and a command_not_found_handle that logs too). Each
// logged call must be exactly a segment the analyzer judged (its words after quote removal); a
// word the analyzer itself reports as still expanding (glob, tilde) may become other arguments
// only if the command written with those arguments literally is approved as well. So an expansion
// that turns an approved word into something the rules would refuse (`git co*` -> `git config`)
// fails the property. Rejected commands run as well, to prove the attack fragments do execute
// code, so the property cannot pass because the oracle is blind.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { analyzeShellCommand, matchShellAllowList, type ShellSegment } from '../../../src/core/shell/shellAnalysis';
import { useTempDirs } from '../../support/tempDirs';

/**
 * A fixed seed keeps CI deterministic (the coverage checks below must not depend on luck); set
 * FC_SEED to explore others, e.g. `FC_SEED=$RANDOM npx mocha --no-config --require tsx/cjs --extension ts test/system/security/shell.property.test.ts`.
 */
const PROPERTY_SEED = Number(process.env.FC_SEED ?? 20_261_208);
const NUM_RUNS = 300;
const BASH = '/bin/bash';

// Programs with option rules in the analyzer, each with arguments that are ordinary, refused as
// written, or globs that the payload files below turn into refused arguments once bash expands them.
const RULED: ReadonlyArray<[string, string[]]> = [
  ['git', ['status', 'log', 'diff', 'HEAD', 'src', '--stat', 'co*', 'con?ig', 'st*', 'alias.x', "'!touch pwned'"]],
  ['tar', ['-tf', '-tvf', 'tf', 'a.tar', 'x.tgz', 'v*', 'vx?', 'a.*']],
  ['make', ['test', '-n', 'all', '-s', 'C*', 'CC?evil', 'src/*.ts']],
  ['curl', ['-fsS', 'http://127.0.0.1:9/', '-s', '-I', '-F', 'a*', 'a?@x']],
  ['sed', ['-n', "'1p'", 's/a/b/', 'a.tar', '-E', 'src/*.ts', 'v*']],
  ['rg', ['-n', 'foo', 'src', '-l', '-i', 'src/*.ts', '?-pre=evil', 'co*']],
  ['find', ['.', '-name', "'*.ts'", '-type', 'f', 'src', '-print', 'src/*']],
  ['npm test', ['--', '-s', '--silent', 'x', 't*', 'src/*.ts']],
];
const PLAIN = ['echo', 'printf', 'cat', 'ls', 'true', 'test'];
const ALLOW = [...PLAIN, ...RULED.map(([program]) => program)];
const ALLOWED_NAMES = new Set(ALLOW.map((entry) => entry.split(' ')[0] as string));
// Stubs for the external allow-listed programs and for everything an attack would run.
const STUBS = ['cat', 'ls', 'evil', 'id', 'touch', 'sh', 'bash', 'rm', 'env', 'xargs', 'curl', 'python', 'node', 'git', 'tar', 'make', 'sed', 'rg', 'find', 'npm'];
// Files in the working directory whose names are payloads for a glob to expand to.
const PAYLOAD_FILES = ['config', 'vxf', 'a=@x', 'CC=evil', '--pre=evil', '-rf', 'a.tar'];

interface Generated {
  command: string;
  /** Whether the grammar put something in that is meant to be rejected. */
  attack: boolean;
}

const piece = (text: string, attack: boolean): Generated => ({ command: text, attack });

const benignArg = fc.constantFrom(
  'hello',
  '-n',
  '--flag=1',
  "'a b'",
  '"x y"',
  "$'a\\tb'",
  'src/*.ts',
  './*',
  '~/x',
  "'$(evil)'",
  "'`evil`'",
  "'${x@P}'",
  '\\$HOME',
  '\\*',
  '"a\\"b"',
  "'a'\"b\"c",
  'x=1',
  '"%s\\n"',
  '\\;',
  "'a[$(evil)]'",
  '"#notacomment"',
);
const attackArg = fc.constantFrom(
  '$(evil)',
  '`evil`',
  '"$(evil)"',
  '"`evil`"',
  '${x@P}',
  '"${x@P}"',
  '${x:-$(evil)}',
  '$((a[$(evil)]))',
  '$[a[$(evil)]]',
  '<(evil)',
  '>(evil)',
  '$x',
  '{evil,id}',
  '*',
  "'",
  '"',
  '\\',
  '$"x"',
  '<<< $(evil)',
  '"$(echo \'$(evil)\')"',
);
// Whole segments that execute evil (or a non-allow-listed program) when run.
const attackSegment = fc.constantFrom(
  "x='$(evil)'; echo ${x@P}",
  "printf -v 'a[$(evil)]' %s x",
  "printf -va[$(evil)] %s x",
  'x=$(evil)',
  'x=1 evil',
  'PATH=/nonexistent ls',
  "[[ 'a[$(evil)]' -eq 1 ]]",
  "test -v 'a[$(evil)]'",
  "[ -v 'a[$(evil)]' ]",
  '(evil)',
  '{ evil; }',
  'f() { evil; }; f',
  '((a[$(evil)]=1))',
  'eval evil',
  'echo evil | sh',
  'cat x | bash',
  'env evil',
  'coproc evil',
  'evil',
  'id',
  'touch pwned',
  'rm -rf x',
);
const redirection = fc.constantFrom('', '', '', ' 2>&1', ' > /dev/null', ' < /dev/null', ' 2>/dev/null', ' > out.txt');
const operator = fc.constantFrom('; ', ' && ', ' || ', ' | ', '\n', ';', '&&', ' & ', ' |& ', ' \\\n ');

const plainSegment: fc.Arbitrary<Generated> = fc
  .tuple(fc.constantFrom(...PLAIN), fc.array(fc.oneof({ weight: 10, arbitrary: benignArg.map((a) => piece(a, false)) }, { weight: 1, arbitrary: attackArg.map((a) => piece(a, true)) }), { maxLength: 3 }), redirection)
  .map(([program, args, redir]) => piece([program, ...args.map((a) => a.command)].join(' ') + redir, args.some((a) => a.attack) || redir.includes('out.txt')));
// Not counted as attacks: these do not run a foreign program, they make an allow-listed one do
// something else (the argv oracle catches that).
const ruledSegment: fc.Arbitrary<Generated> = fc
  .constantFrom(...RULED)
  .chain(([program, args]) => fc.tuple(fc.constant(program), fc.array(fc.constantFrom(...args), { minLength: 1, maxLength: 2 }), redirection))
  .map(([program, args, redir]) => piece([program, ...args].join(' ') + redir, redir.includes('out.txt')));
const segment = fc.oneof({ weight: 6, arbitrary: plainSegment }, { weight: 2, arbitrary: ruledSegment }, { weight: 1, arbitrary: attackSegment.map((s) => piece(s, true)) });
const commandArb: fc.Arbitrary<Generated> = fc
  .tuple(fc.array(segment, { minLength: 1, maxLength: 3 }), fc.array(operator, { minLength: 2, maxLength: 2 }))
  .map(([segments, ops]) => piece(segments.map((s, i) => (i === 0 ? '' : (ops[i % 2] as string)) + s.command).join(''), segments.some((s) => s.attack)));

describe('security: shell allow-list approvals hold against real bash (property)', function () {
  this.timeout(120_000);
  const suiteTemp = useTempDirs('all');
  let root: string;
  let run = 0;

  before(function () {
    if (process.platform === 'win32' || !fs.existsSync(BASH)) this.skip();
    root = suiteTemp.make('evergreen-shellprop-');
    fs.mkdirSync(path.join(root, 'logs'));
    fs.mkdirSync(path.join(root, 'home'));
    const bin = path.join(root, 'bin');
    fs.mkdirSync(bin);
    fs.mkdirSync(path.join(root, 'src'));
    fs.writeFileSync(path.join(root, 'src', 'a.ts'), '');
    for (const name of PAYLOAD_FILES) fs.writeFileSync(path.join(root, name), '');
    for (const name of STUBS) {
      // Run by exec (not via PATH), so the absolute interpreter works with PATH=bin only. Each
      // call writes its argv (NUL-terminated, so any byte survives) to a file of its own in the
      // run's log directory, so neither background jobs nor an earlier run can mix records.
      fs.writeFileSync(path.join(bin, name), `#!/bin/bash\nprintf '%s\\0' '${name}' "$@" > "$SHELLPROP_LOG/${name}.$$.$RANDOM"\n`, { mode: 0o755 });
    }
  });

  after(() => {
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  /** The argv of every program call logged in the run's directory (argv[0] = stub name). */
  const readLog = (log: string): string[][] => fs.readdirSync(log).map((file) => fs.readFileSync(path.join(log, file), 'utf8').split('\0').slice(0, -1));

  /** Runs the command; returns its log directory and whether bash finished. */
  function execute(command: string): { log: string; finished: boolean } {
    const log = path.join(root, 'logs', `${++run}`);
    fs.mkdirSync(log);
    const env = {
      PATH: path.join(root, 'bin'),
      HOME: path.join(root, 'home'),
      SHELLPROP_LOG: log,
      // Anything else bash tries to run is logged as well.
      'BASH_FUNC_command_not_found_handle%%': '() { printf \'%s\\0\' "notfound:$1" > "$SHELLPROP_LOG/notfound.$BASHPID.$RANDOM"; return 127; }',
    };
    const result = spawnSync(BASH, ['--noprofile', '--norc', '-c', command], { cwd: root, env, timeout: 5000, input: '' });
    return { log, finished: result.status !== null };
  }

  /** Words the analyzer reports as expanding consume one or more arguments; all others must be equal. */
  function aligns(segment: ShellSegment, argv: string[]): boolean {
    const { words, expands } = segment;
    const from = (i: number, j: number): boolean => {
      if (i === words.length) return j === argv.length;
      if (!expands[i]) return argv[j] === words[i] && from(i + 1, j + 1);
      for (let k = j + 1; k <= argv.length; k++) if (from(i + 1, k)) return true;
      return false;
    };
    return from(0, 0);
  }

  const literally = (argv: string[]): string => argv.map((arg) => `'${arg.replace(/'/g, "'\\''")}'`).join(' ');

  /** Why this program call is not what the analyzer approved, or undefined when it is. */
  function unjudged(argv: string[], segments: ShellSegment[]): string | undefined {
    const name = argv[0] as string;
    if (!ALLOWED_NAMES.has(name)) return `ran ${name}, which is not allow-listed`;
    if (segments.some((s) => s.words.length === argv.length && s.words.every((w, i) => w === argv[i]))) return undefined;
    // Only an expansion the analyzer announced may change the arguments, and only into something it would approve as written.
    const expanded = segments.filter((s) => s.expands.some(Boolean) && aligns(s, argv));
    if (expanded.length === 0) return `ran ${JSON.stringify(argv)}, which is no approved segment`;
    const literal = matchShellAllowList(literally(argv), ALLOW);
    return literal.allowed ? undefined : `bash expanded it to ${JSON.stringify(argv)}, which the analyzer refuses as written (${literal.reason})`;
  }

  it('runs exactly the approved segments: no expansion changes what the analyzer judged', async () => {
    const stats = { approved: 0, stubsRan: 0, ruledRan: 0, attacks: 0, attacksRejected: 0, attacksDetected: 0 };
    const approvedRuns: Array<{ command: string; log: string; segments: ShellSegment[] }> = [];
    const check = (command: string, executed: string[][], segments: ShellSegment[]): void => {
      for (const argv of executed) {
        const why = unjudged(argv, segments);
        assert.equal(why, undefined, `approved ${JSON.stringify(command)}: ${why ?? ''}`);
      }
    };
    fc.assert(
      fc.property(commandArb, ({ command, attack }) => {
        const match = matchShellAllowList(command, ALLOW);
        if (attack) stats.attacks++;
        const { log, finished } = execute(command);
        if (!match.allowed) {
          if (attack) {
            stats.attacksRejected++;
            if (readLog(log).some(([name]) => !ALLOWED_NAMES.has(name as string))) stats.attacksDetected++;
          }
          return;
        }
        stats.approved++;
        assert.ok(finished, `approved ${JSON.stringify(command)} did not finish`);
        const { segments } = analyzeShellCommand(command);
        const executed = readLog(log);
        if (executed.length > 0) stats.stubsRan++;
        if (executed.some(([name]) => RULED.some(([program]) => program.split(' ')[0] === name))) stats.ruledRan++;
        check(command, executed, segments);
        approvedRuns.push({ command, log, segments });
      }),
      { numRuns: NUM_RUNS, seed: PROPERTY_SEED, endOnFailure: true },
    );
    // Background jobs (`&`) may log after bash exits: look again once they have had time to.
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (const { command, log, segments } of approvedRuns) check(command, readLog(log), segments);
    if (process.env.SHELL_PROPERTY_STATS) console.log(stats);
    // Non-vacuity: many approvals were really executed, programs with option rules among them,
    // attacks were frequent, and bash did run their payload when given the chance (so a missed
    // attack would have shown in the log).
    assert.ok(stats.approved >= NUM_RUNS * 0.3, `only ${stats.approved}/${NUM_RUNS} commands approved`);
    assert.ok(stats.stubsRan >= NUM_RUNS * 0.1, `only ${stats.stubsRan} approved commands reached a stub`);
    assert.ok(stats.ruledRan >= NUM_RUNS * 0.05, `only ${stats.ruledRan} approved commands ran a program with option rules`);
    assert.ok(stats.attacks >= NUM_RUNS * 0.3, `only ${stats.attacks}/${NUM_RUNS} commands carried an attack`);
    assert.ok(stats.attacksDetected >= stats.attacksRejected * 0.3, `only ${stats.attacksDetected}/${stats.attacksRejected} rejected attacks ran a payload`);
  });
});
