// Issue 26: with the sandbox turned off (`evergreen.sandbox.enabled: false`, `--no-sandbox`) nothing
// but the analyzer stands between an allow-listed program and the disk, and it approved writers: a
// `uniq` entry let `uniq IN OUT` overwrite OUT, `ps e` showed other processes' environments. With the
// sandbox off the allow-list approves only programs and options known to be read-only; with it on,
// the kernel holds the boundary and the allow-list works as before.
import assert from 'node:assert/strict';
import { decide, type ApprovalPolicy, type ShellIsolation } from '../../../src/core/approvals/approval';
import { matchShellAllowList } from '../../../src/core/shell/shellAnalysis';

const policy = (entry: string): ApprovalPolicy => ({ writes: 'ask', shell: 'ask', shellAllowList: [entry] });
const decision = (command: string, entry: string, isolation: ShellIsolation | undefined) => decide(policy(entry), { kind: 'shell', command, ...(isolation ? { isolation } : {}) });

/** Each writes a file, sets system state or shows other processes' environments; the second word is the user's allow-list entry. */
const WRITERS: ReadonlyArray<[command: string, entry: string]> = [
  ['uniq in.txt out.txt', 'uniq'],
  ['uniq -c -- in.txt out.txt', 'uniq'],
  ['tee -- -/../x', 'tee'],
  ['tee out.txt', 'tee'],
  ['xxd -r hex.txt out.bin', 'xxd'],
  ['xxd -r -p hex.txt', 'xxd'],
  ['xxd in.bin out.hex', 'xxd'],
  ['shuf -o out.txt in.txt', 'shuf'],
  ['shuf --output=out.txt in.txt', 'shuf'],
  ['iconv -f utf-8 -t ascii -o out.txt in.txt', 'iconv'],
  ['iconv --output out.txt in.txt', 'iconv'],
  ['split -l 10 in.txt part', 'split'],
  ['csplit in.txt /x/', 'csplit'],
  ['git archive -o ../out.zip HEAD', 'git archive'],
  ['git archive --output=../out.zip HEAD', 'git'],
  ['git bundle create repo.bundle HEAD', 'git bundle'],
  ['git checkout-index --prefix=../out/ -a', 'git checkout-index'],
  ['git branch evil', 'git branch'],
  ['git tag v9', 'git tag'],
  ['git stash drop', 'git stash'],
  ['pytest --basetemp=/tmp/x', 'pytest'],
  ['pytest --junitxml=../x.xml', 'pytest'],
  ['date -s 2020-01-01', 'date'],
  ['date --set=2020-01-01', 'date'],
  ['date 010100002020', 'date'],
  ['hostname evil', 'hostname'],
  ['hostname -F name.txt', 'hostname'],
  ['ps e', 'ps'],
  ['ps auxe', 'ps'],
  ['ps -ef e', 'ps'],
  ['ps -o pid= e', 'ps'],
  ['sort -o out.txt in.txt', 'sort'],
  ['sort -T /tmp in.txt', 'sort'],
  ['tree -o out.txt', 'tree'],
  ['file -C -m magic', 'file'],
  ['npm test', 'npm test'],
  ['make', 'make'],
];

/** Read-only uses of the same programs: still approved with the sandbox off. */
const READERS: ReadonlyArray<[command: string, entry: string]> = [
  ['uniq -c in.txt', 'uniq'],
  ['uniq -f 1 in.txt', 'uniq'],
  ['tee /dev/null', 'tee'],
  ['xxd in.bin', 'xxd'],
  ['shuf -n 3 in.txt', 'shuf'],
  ['iconv -f utf-8 -t ascii in.txt', 'iconv'],
  ['date +%Y-%m-%d', 'date'],
  ['date -d yesterday +%s', 'date'],
  ['hostname -f', 'hostname'],
  ['hostname', 'hostname'],
  ['ps aux', 'ps'],
  ['ps -ef', 'ps'],
  ['ps -o pid,cmd -p 1', 'ps'],
  ['git status', 'git status'],
  ['git log --oneline -5', 'git log'],
  ['git diff HEAD~1 -- src', 'git diff'],
  ['git branch -a', 'git branch'],
  ['git tag -l', 'git tag'],
  ['git stash list', 'git stash'],
  ['ls -la src', 'ls'],
  ['cat README.md', 'cat'],
  ['grep -rn TODO src', 'grep'],
  ['sort -u in.txt', 'sort'],
  ['wc -l in.txt | sort -n', 'wc'],
  ['find . -name "*.ts"', 'find'],
  ['sed -n 1,5p in.txt', 'sed'],
  ['tree -L 2', 'tree'],
];

describe('security: the shell allow-list with the sandbox off approves only what reads', () => {
  for (const [command, entry] of WRITERS) {
    it(`asks for ${JSON.stringify(command)} (allow-list: "${entry}") with the sandbox off, as before with it on`, () => {
      assert.equal(decision(command, entry, 'disabled'), 'ask');
      // Absent isolation means the sandbox is off (a tool run outside a session).
      assert.equal(decision(command, entry, undefined), 'ask');
      assert.equal(decision(command, `${entry.split(' ')[0]}`, 'disabled'), 'ask', 'the program alone as the entry');
    });
  }

  it('leaves the sandbox\'s allow-list as it was: the kernel confines what those commands write', () => {
    // These three asked in the sandbox already: the option rules name them (they write outside the workspace's view).
    const askedBefore = new Set(['tee out.txt', 'git archive --output=../out.zip HEAD', 'sort -o out.txt in.txt']);
    for (const [command, entry] of WRITERS) assert.equal(decision(command, entry, 'sandbox'), askedBefore.has(command) ? 'ask' : 'auto', command);
  });

  for (const [command, entry] of READERS) {
    it(`still approves ${JSON.stringify(command)} (allow-list: "${entry}") with the sandbox off`, () => {
      const pipeline = command.includes('|') ? { ...policy(entry), shellAllowList: [entry, 'sort'] } : policy(entry);
      assert.equal(decide(pipeline, { kind: 'shell', command, isolation: 'disabled' }), 'auto', matchShellAllowList(command, pipeline.shellAllowList, { readOnly: true }).reason);
    });
  }

  it('says why: the program, or its option, is not known to be read-only', () => {
    const notKnown = matchShellAllowList('pytest -q', ['pytest'], { readOnly: true });
    assert.equal(notKnown.allowed, false);
    assert.match(notKnown.reason, /`pytest` is not known to be read-only/);
    const option = matchShellAllowList('uniq in.txt out.txt', ['uniq'], { readOnly: true });
    assert.match(option.reason, /uniq/);
    assert.match(matchShellAllowList('ps auxe', ['ps'], { readOnly: true }).reason, /environment/);
  });

  it('still needs the allow-list: a read-only program that is not on it asks', () => {
    assert.equal(decision('cat README.md', 'ls', 'disabled'), 'ask');
  });
});
