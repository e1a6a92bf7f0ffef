import assert from 'node:assert/strict';
import fc from 'fast-check';
import { createPolicyApprover, decide, type ApprovalPolicy, type ApprovalRequest, type Approver } from '../../src/core/approvals/approval';
import { analyzeShellCommand, matchShellAllowList } from '../../src/core/shell/shellAnalysis';

const ALLOW = ['git status', 'git diff', 'git log', 'ls', 'npm test', 'npm run lint', 'cat', 'grep', 'head', 'wc', 'echo', 'find', 'python', 'bash', 'sh', 'xargs', 'node'];
const askPolicy: ApprovalPolicy = { writes: 'ask', shell: 'ask', shellAllowList: ALLOW };
// In the sandbox: the analyzer's own judgement (with the sandbox off, only read-only programs pass: shell.sandboxOff.test.ts).
const shell = (command: string): ApprovalRequest => ({ kind: 'shell', command, isolation: 'sandbox' });

describe('tools approval policy', () => {
  // [command, expected decision with the allow-list above and shell: 'ask']
  const table: Array<[string, 'auto' | 'ask']> = [
    // prefix on whole words
    ['git status', 'auto'],
    ['git status -s', 'auto'],
    ['git  status   --short', 'auto'],
    ['git "status"', 'auto'],
    ['git statusx', 'ask'],
    ['git stat', 'ask'],
    ['git', 'ask'],
    ['git push', 'ask'],
    ['git -c core.pager=evil status', 'ask'],
    ['gitstatus', 'ask'],
    ['ls', 'auto'],
    ['ls -la src', 'auto'],
    ['lsof', 'ask'],
    ['npm test', 'auto'],
    ['npm test -- --grep foo', 'auto'],
    ['npm testing', 'ask'],
    ['npm run lint', 'auto'],
    ['npm run build', 'ask'],
    ['rm -rf /', 'ask'],
    ['', 'ask'],
    ['   ', 'ask'],
    // chains: every part must be allowed
    ['git status && git diff', 'auto'],
    ['git status; ls', 'auto'],
    ['git status || echo failed', 'auto'],
    ['git status && rm -rf /', 'ask'],
    ['git status; rm -rf /', 'ask'],
    ['git status || rm -rf /', 'ask'],
    ['git status & rm -rf /', 'ask'],
    ['git status\nrm -rf /', 'ask'],
    ['git status&&rm -rf /', 'ask'],
    ['git status;rm x', 'ask'],
    // pipes: every part allowed, never into a shell / interpreter
    ['git log | head -5', 'auto'],
    ['git log | grep fix | wc -l', 'auto'],
    ['git log | less', 'ask'],
    ['cat script.sh | sh', 'ask'],
    ['cat script.sh | bash', 'ask'],
    ['cat x | zsh', 'ask'],
    ['cat x | python', 'ask'],
    ['cat x | python3', 'ask'],
    ['cat x | /bin/sh', 'ask'],
    ['cat x | node', 'ask'],
    ['find . -name "*.tmp" | xargs rm', 'ask'],
    ['echo hi |& bash', 'ask'],
    ['cat x | env sh', 'ask'],
    // command and process substitution, even inside double quotes
    ['echo $(rm -rf /)', 'ask'],
    ['echo "$(rm -rf /)"', 'ask'],
    ['echo `rm -rf /`', 'ask'],
    ['echo "`id`"', 'ask'],
    ['ls $(pwd)', 'ask'],
    ['echo $((1+2))', 'ask'],
    ['cat <(rm -rf /)', 'ask'],
    ['grep x >(sh)', 'ask'],
    ["echo '$(not substituted)'", 'auto'],
    ["echo 'a `b` c'", 'auto'],
    ['echo \\$\\(x\\)', 'auto'],
    // privilege and eval
    ['sudo ls', 'ask'],
    ['ls && sudo rm -rf /', 'ask'],
    ['eval ls', 'ask'],
    ['echo x && eval "$CMD"', 'ask'],
    ['exec ls', 'ask'],
    ['. ./env.sh', 'ask'],
    ['source env.sh', 'ask'],
    ['find . -name "*.ts"', 'auto'],
    ['find . -exec rm {} \\;', 'ask'],
    ['find . -delete', 'ask'],
    // redirection
    ['git status > status.txt', 'ask'],
    ['git status >> ~/.bashrc', 'ask'],
    ['echo x >/etc/passwd', 'ask'],
    ['git status 2>/dev/null', 'auto'],
    ['git status > /dev/null 2>&1', 'auto'],
    ['npm test 2>&1', 'auto'],
    ['npm test &> /dev/null', 'auto'],
    ['npm test &> out.log', 'ask'],
    ['grep foo < input.txt', 'auto'],
    ['cat <<EOF\nrm -rf /\nEOF', 'ask'],
    // grouping, subshells, env prefixes, unparseable
    ['(rm -rf /)', 'ask'],
    ['(ls)', 'ask'],
    ['{ ls; }', 'ask'],
    ['FOO=1 npm test', 'ask'],
    ['PATH=/tmp/evil:$PATH git status', 'ask'],
    ['echo "unterminated', 'ask'],
    ["echo 'unterminated", 'ask'],
    ['git status # just a comment; rm -rf /', 'auto'],
    ['git status \\\n  -s', 'auto'],
  ];

  for (const [command, expected] of table) {
    it(`${expected}: ${JSON.stringify(command)}`, () => {
      assert.equal(decide(askPolicy, shell(command)), expected, matchShellAllowList(command, ALLOW).reason);
    });
  }

  it('gives a reason that names the offending part', () => {
    assert.match(matchShellAllowList('git status && rm -rf /', ALLOW).reason, /rm -rf \//);
    assert.match(matchShellAllowList('echo $(id)', ALLOW).reason, /command substitution/);
    assert.match(matchShellAllowList('curl x | sh', ['curl']).reason, /interpreter/);
  });

  it('ignores allow-list entries that are not a plain command prefix', () => {
    assert.equal(decide({ writes: 'ask', shell: 'ask', shellAllowList: ['ls && rm -rf /', '', '  ', '$(x)'] }, shell('ls')), 'ask');
    assert.equal(decide({ writes: 'ask', shell: 'ask', shellAllowList: ['  ls  '] }, shell('ls -l')), 'auto');
  });

  it('shell: "auto" approves every command, hazards included (documented choice)', () => {
    const auto: ApprovalPolicy = { writes: 'ask', shell: 'auto', shellAllowList: [] };
    for (const command of ['rm -rf build', 'echo $(id)', 'curl x | sh', 'sudo true']) assert.equal(decide(auto, shell(command)), 'auto');
  });

  it('writes follow the writes setting only', () => {
    const write: ApprovalRequest = { kind: 'write', path: 'a.txt', diff: '', isNew: true };
    assert.equal(decide({ writes: 'ask', shell: 'auto', shellAllowList: ['ls'] }, write), 'ask');
    assert.equal(decide({ writes: 'auto', shell: 'ask', shellAllowList: [] }, write), 'auto');
  });

  it('analyzes segments and pipes', () => {
    const analysis = analyzeShellCommand(`git log --format='%h %s' | grep "fix bug" && echo done`);
    assert.deepEqual(analysis.hazards, []);
    assert.deepEqual(
      analysis.segments.map((s) => [s.words, s.afterPipe]),
      [
        [['git', 'log', '--format=%h %s'], false],
        [['grep', 'fix bug'], true],
        [['echo', 'done'], false],
      ],
    );
  });

  it('never auto-approves a chain that contains a command outside the allow-list (property)', () => {
    const allowed = fc.constantFrom('git status', 'ls -la', 'npm test', 'echo ok');
    const forbidden = fc.constantFrom('rm -rf /', 'curl evil.sh', 'chmod 777 x', 'mv a b', 'dd if=/dev/zero of=x');
    const op = fc.constantFrom(' && ', ' || ', '; ', ' | ', ' & ', '\n', '&&', ';');
    fc.assert(
      fc.property(fc.array(allowed, { maxLength: 3 }), forbidden, fc.array(allowed, { maxLength: 3 }), op, op, (before, bad, after, op1, op2) => {
        const command = [...before, bad, ...after].join(before.length % 2 === 0 ? op1 : op2);
        return decide(askPolicy, shell(command)) === 'ask';
      }),
    );
  });

  it('createPolicyApprover asks the interactive side only when the policy says ask', async () => {
    const asked: ApprovalRequest[] = [];
    const interactive: Approver = {
      requestApproval: async (request) => {
        asked.push(request);
        return { approved: false, reason: 'no' };
      },
    };
    const approver = createPolicyApprover(askPolicy, interactive);
    const signal = new AbortController().signal;
    assert.deepEqual(await approver.requestApproval(shell('git status'), signal), { approved: true });
    assert.equal(asked.length, 0);
    assert.deepEqual(await approver.requestApproval(shell('git status && rm -rf /'), signal), { approved: false, reason: 'no' });
    assert.deepEqual(await approver.requestApproval({ kind: 'write', path: 'a', diff: '', isNew: true }, signal), { approved: false, reason: 'no' });
    assert.equal(asked.length, 2);
  });
});
