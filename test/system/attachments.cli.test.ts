import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentEvent } from '../../src/core/agent/events';
import { foldTranscript } from '../../src/core/agent/fold';
import { FileSessionStore } from '../../src/core/storage/sessionStore';
import { EXIT } from '../../src/cli/run';
import { BACKENDS, say } from '../support/backends';
import { useCliFixture } from '../support/cliFixture';
import { useTempDirs } from '../support/tempDirs';

// Attachments from the terminal (issue 17): --attach PATH[:FROM-TO] snapshots a file, part of one,
// or a folder's listing into the first message; what cannot be attached stops the run before
// anything is sent.
for (const backend of BACKENDS) describe(`--attach in the CLI [${backend.name}]`, function () {
  this.timeout(60_000);
  const temp = useTempDirs();
  let workspace: string;
  let storage: string;
  const fixture = useCliFixture(backend);
  let fake: Awaited<ReturnType<typeof backend.start>>;

  beforeEach(async () => {
    ({ fake, workspace, storage } = fixture());
    fs.writeFileSync(path.join(workspace, 'notes.md'), 'line one\nline two\nline three\nline four\n');
    fs.mkdirSync(path.join(workspace, 'src'));
    fs.writeFileSync(path.join(workspace, 'src', 'app.ts'), 'export const app = 1;\n');
    fs.writeFileSync(path.join(workspace, 'src', 'util.ts'), 'export const util = 2;\n');
  });

  const cli = (args: string[]) =>
    fixture().run(['--output-format', 'stream-json', ...args]);
  const firstUserText = () => JSON.stringify(fake.requests()[0]?.messages[0]);

  it('puts lines 2-3 of a file and a folder listing before the message, and the chat shows them as chips', async () => {
    fake.enqueue(say.text('Seen.'));
    const run = await cli(['--attach', 'notes.md:2-3', '--attach', 'src', '-p', 'What do these say?']);
    assert.equal(run.code, EXIT.ok, run.stderr);
    const sent = firstUserText();
    assert.match(sent, /<attachment kind=\\"file\\" label=\\"notes.md:2-3\\">/);
    assert.match(sent, /line two/);
    assert.match(sent, /line three/);
    assert.doesNotMatch(sent, /line one|line four/, 'only the asked lines');
    assert.match(sent, /<attachment kind=\\"folder\\" label=\\"src\/\\">[^<]*src\/app\.ts[^<]*src\/util\.ts/);
    assert.ok(sent.indexOf('What do these say?') > sent.lastIndexOf('</attachment>'), 'the words come after what they are about');
    const started = (run.events as AgentEvent[]).find((event) => event.type === 'turn_started');
    assert.equal(started?.type, 'turn_started');
    assert.deepEqual(started?.type === 'turn_started' ? started.attachments : undefined, [
      { kind: 'file', label: 'notes.md:2-3' },
      { kind: 'folder', label: 'src/' },
    ]);
    // Snapshotted: a resume shows the same chips and sends the same bytes, whatever the file says now.
    fs.writeFileSync(path.join(workspace, 'notes.md'), 'changed\n');
    const id = (await new FileSessionStore(storage).list())[0]!.id;
    const { transcript, handle } = await new FileSessionStore(storage).open(id);
    handle.close();
    const folded = foldTranscript(transcript.entries);
    const replayed = folded.display.find((event) => event.type === 'turn_started');
    assert.deepEqual(replayed?.type === 'turn_started' ? replayed.attachments?.map((chip) => chip.label) : undefined, ['notes.md:2-3', 'src/']);
    assert.equal(replayed?.type === 'turn_started' ? replayed.userText : undefined, 'What do these say?');
    fake.enqueue(say.text('Again.'));
    const resumed = await cli(['--resume', id, '-p', 'And now?']);
    assert.equal(resumed.code, EXIT.ok, resumed.stderr);
    assert.equal(JSON.stringify(fake.requests().at(-1)?.messages[0]), sent);
  });

  it('a huge file is attached by its head and tail with where the rest is, never refused', async () => {
    const big = Array.from({ length: 60_000 }, (_, i) => `row ${i} ${'x'.repeat(40)}`).join('\n');
    fs.writeFileSync(path.join(workspace, 'big.log'), big);
    fake.enqueue(say.text('Big.'));
    const run = await cli(['--attach', 'big.log', '-p', 'Summarize the log']);
    assert.equal(run.code, EXIT.ok, run.stderr);
    const sent = firstUserText();
    assert.ok(sent.length < big.length / 4, `the message stays small (${sent.length} characters)`);
    assert.match(sent, /row 0 /);
    assert.match(sent, /offset|saved/i, 'it says how to read the rest');
  });

  it('stops before sending anything for a missing file, a binary, a FIFO, a path outside the workspace or through a symlink out of it, and a bad range', async () => {
    fs.writeFileSync(path.join(workspace, 'blob.bin'), Buffer.from([0, 1, 2, 3, 0, 5]));
    execFileSync('mkfifo', [path.join(workspace, 'pipe')]);
    const outside = temp.make('evergreen-attach-outside-');
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'secret');
    fs.symlinkSync(outside, path.join(workspace, 'link'));
    const cases: [string, RegExp][] = [
      ['missing.txt', /cannot attach missing\.txt: .*(not found|does not exist)/i],
      ['blob.bin', /cannot attach blob\.bin: .*binary/i],
      ['pipe', /cannot attach pipe: .*(not a regular file|FIFO)/i],
      [path.join(outside, 'secret.txt'), /cannot attach .*secret\.txt: .*(outside|denied)/i],
      ['link/secret.txt', /cannot attach link\/secret\.txt: .*(outside|denied)/i],
    ];
    for (const [target, expected] of cases) {
      const run = await cli(['--attach', target, '-p', 'Look']);
      assert.equal(run.code, EXIT.usage, `${target}: ${run.stderr}`);
      assert.match(run.stderr, expected);
      assert.match(run.stderr, /nothing was sent/);
    }
    const badRange = await cli(['--attach', 'notes.md:5-2', '-p', 'Look']);
    assert.equal(badRange.code, EXIT.usage);
    assert.match(badRange.stderr, /--attach: .*must not run backwards/);
    assert.equal(fake.requests().filter((request) => request.messages.length > 0).length, 0, 'no message reached the model');
  });

  it('--image sends a PNG as an image block after its name; a BMP, a non-image and a 25 MB file are refused with what to do', async () => {
    // A 2x1 PNG.
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAYAAAD0In+KAAAAEUlEQVR42mP8z8DwnwEIGAEAOxkD/Ql8c4YAAAAASUVORK5CYII=', 'base64');
    fs.writeFileSync(path.join(workspace, 'shot.png'), png);
    fake.enqueue(say.text('A tiny image.'));
    const run = await cli(['--image', 'shot.png', '-p', 'What is in the picture?']);
    assert.equal(run.code, EXIT.ok, run.stderr);
    const content = fake.requests()[0]!.messages[0]!.content as { type: string; text?: string; source?: { data?: string; media_type?: string } }[];
    assert.deepEqual(content.map((block) => block.type), ['text', 'image', 'text']);
    assert.match(content[0]!.text ?? '', /kind="image" label="shot.png">\n\[image: image\/png, 2x1 px\]/);
    assert.equal(content[1]!.source?.media_type, 'image/png');
    assert.equal(content[1]!.source?.data, png.toString('base64'));
    assert.equal(content[2]!.text, 'What is in the picture?');
    // The chat's chip carries the picture for its thumbnail, live and after a resume.
    const started = (run.events as AgentEvent[]).find((event) => event.type === 'turn_started');
    assert.equal(started?.type, 'turn_started');
    const expectedChip = { kind: 'image', label: 'shot.png', image: { mediaType: 'image/png', data: png.toString('base64') } };
    assert.deepEqual(started?.type === 'turn_started' ? started.attachments : undefined, [expectedChip]);
    const { transcript, handle } = await new FileSessionStore(storage).open((await new FileSessionStore(storage).list())[0]!.id);
    handle.close();
    const replayed = foldTranscript(transcript.entries).display.find((event) => event.type === 'turn_started');
    assert.equal(replayed?.type, 'turn_started');
    assert.deepEqual(replayed?.type === 'turn_started' ? replayed.attachments : undefined, [expectedChip]);

    fs.writeFileSync(path.join(workspace, 'old.bmp'), Buffer.concat([Buffer.from('BM'), Buffer.alloc(60)]));
    fs.writeFileSync(path.join(workspace, 'fake.png'), 'not an image at all');
    fs.writeFileSync(path.join(workspace, 'huge.png'), Buffer.alloc(25 * 1024 * 1024));
    for (const [file, expected] of [
      ['old.bmp', /cannot attach old\.bmp: .*(bmp|not an image)/i],
      ['fake.png', /cannot attach fake\.png: .*not an image/i],
      ['huge.png', /cannot attach huge\.png: the image is 25\.0 MB; .*Resize or recompress it/],
    ] as const) {
      const refused = await cli(['--image', file, '-p', 'Look']);
      assert.equal(refused.code, EXIT.usage, `${file}: ${refused.stderr}`);
      assert.match(refused.stderr, expected);
    }
    assert.equal(fake.requests().length, 1, 'no refused image reached the model');
  });
});
