import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EXIT } from '../../src/cli/run';
import { BACKENDS, say, textOfMessage } from '../support/backends';
import { useCliFixture } from '../support/cliFixture';

// Checkpoints from the terminal (issue 17): a session edits, creates and deletes files through its
// tools and a shell command; --list-checkpoints shows them and --restore-checkpoint puts back the
// files, the conversation, or one of them.
const backend = BACKENDS[0]!;

describe('checkpoints in the CLI (issue 17)', function () {
  this.timeout(60_000);
  let workspace: string;
  let storage: string;
  const fixture = useCliFixture(backend);
  let fake: Awaited<ReturnType<typeof backend.start>>;

  beforeEach(async () => {
    ({ fake, workspace, storage } = fixture());
    fs.writeFileSync(path.join(workspace, 'a.txt'), 'alpha\n');
    fs.writeFileSync(path.join(workspace, 'gone.txt'), 'to be deleted by a command\n');
  });

  const cli = (args: string[]) =>
    fixture().run(['--yes', '--no-sandbox', ...args]);
  const read = (name: string) => (fs.existsSync(path.join(workspace, name)) ? fs.readFileSync(path.join(workspace, name), 'utf8') : undefined);

  async function sessionWithTwoTurns(): Promise<string> {
    fake.enqueue(
      say.toolUse('write_file', { path: 'a.txt', content: 'alpha edited\n' }, { id: 'toolu_w1' }),
      say.toolUse('run_shell', { command: 'rm gone.txt && echo made > made.txt' }, { id: 'toolu_sh' }),
      say.text('Done with the first.'),
      say.toolUse('write_file', { path: 'b.txt', content: 'new file\n' }, { id: 'toolu_w2' }),
      say.text('Done with the second.'),
    );
    const run = await cli(['-p', 'First: edit a.txt and clean up', '-p', 'Second: add b.txt']);
    assert.equal(run.code, EXIT.ok, run.stderr);
    const id = /\[session ([^\s·]+)/.exec(run.stderr)?.[1];
    assert.ok(id, run.stderr);
    assert.equal(read('a.txt'), 'alpha edited\n');
    assert.equal(read('gone.txt'), undefined);
    return id;
  }

  it('--list-checkpoints prints each message with its time, first words and the files its turn changed', async () => {
    const id = await sessionWithTwoTurns();
    const run = await cli(['--resume', id, '--list-checkpoints']);
    assert.equal(run.code, EXIT.ok, run.stderr);
    const lines = run.stdout.trim().split('\n');
    assert.equal(lines.length, 2, run.stdout);
    const [first, second] = lines.map((line) => line.split('\t'));
    assert.equal(first![0], '1');
    assert.ok(!Number.isNaN(Date.parse(first![1]!)));
    assert.equal(first![2], 'First: edit a.txt and clean up');
    assert.equal(first![3], '3 file(s) changed: a.txt, gone.txt, made.txt');
    assert.equal(second![3], '1 file(s) changed: b.txt');
  });

  it('--restore-checkpoint 1 puts every byte back and rewinds the conversation; the next prompt continues from there', async () => {
    const id = await sessionWithTwoTurns();
    const restored = await cli(['--resume', id, '--restore-checkpoint', '1']);
    assert.equal(restored.code, EXIT.ok, restored.stderr);
    assert.match(restored.stdout, /restored\ta\.txt/);
    assert.equal(read('a.txt'), 'alpha\n');
    assert.equal(read('gone.txt'), 'to be deleted by a command\n');
    assert.equal(read('made.txt'), undefined);
    assert.equal(read('b.txt'), undefined);
    fake.enqueue(say.text('Starting over.'));
    const next = await cli(['--resume', id, '-p', 'Let us do it differently']);
    assert.equal(next.code, EXIT.ok, next.stderr);
    const request = fake.requests().at(-1)!;
    assert.equal(request.messages.length, 1, 'only the new message: the rewound turns are not sent');
    assert.equal(textOfMessage(request.messages[0]), 'Let us do it differently');
    // The rewound history stays on disk.
    const transcript = fs.readFileSync(path.join(storage, 'sessions', id, 'transcript.jsonl'), 'utf8');
    assert.match(transcript, /First: edit a\.txt/);
    assert.match(transcript, /"type":"rewind"/);
  });

  it('--files-only keeps the conversation; --conversation-only keeps the files', async () => {
    const id = await sessionWithTwoTurns();
    const filesOnly = await cli(['--resume', id, '--restore-checkpoint', '2', '--files-only']);
    assert.equal(filesOnly.code, EXIT.ok, filesOnly.stderr);
    assert.equal(read('b.txt'), undefined);
    assert.equal(read('a.txt'), 'alpha edited\n', 'checkpoint 2 came after the first turn');
    const conversationOnly = await cli(['--resume', id, '--restore-checkpoint', '1', '--conversation-only']);
    assert.equal(conversationOnly.code, EXIT.ok, conversationOnly.stderr);
    assert.equal(read('a.txt'), 'alpha edited\n');
    fake.enqueue(say.text('ok'));
    await cli(['--resume', id, '-p', 'again']);
    assert.equal(fake.requests().at(-1)!.messages.length, 1);
  });

  it('keeps and lists a file the user changed since the checkpoint; refuses unknown checkpoints and bad flag mixes', async () => {
    const id = await sessionWithTwoTurns();
    fs.writeFileSync(path.join(workspace, 'a.txt'), 'my own change\n');
    const run = await cli(['--resume', id, '--restore-checkpoint', '1', '--files-only']);
    assert.equal(run.code, EXIT.ok, run.stderr);
    assert.match(run.stdout, /kept\ta\.txt\t\(changed outside Evergreen since the checkpoint\)/);
    assert.equal(read('a.txt'), 'my own change\n');
    assert.equal(read('gone.txt'), 'to be deleted by a command\n');
    const unknown = await cli(['--resume', id, '--restore-checkpoint', '9']);
    assert.equal(unknown.code, EXIT.failed);
    assert.match(unknown.stderr, /no checkpoint 9 .*--list-checkpoints/);
    const noResume = await cli(['--list-checkpoints']);
    assert.equal(noResume.code, EXIT.usage);
    assert.match(noResume.stderr, /needs --resume SESSION_ID/);
    const both = await cli(['--resume', id, '--restore-checkpoint', '1', '--files-only', '--conversation-only']);
    assert.equal(both.code, EXIT.usage);
  });
});
