import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCliCaptured, type CapturedRun } from '../support/cliCapture';
import { BACKENDS, say, type FakeBackend } from '../support/backends';
import { useTempDirs } from '../support/tempDirs';

// Issue 32: a session that comes home continues exactly. The next request after an import into
// fresh storage must equal, byte for byte, what a resume in the storage the session was made in
// sends: same system prompt, history, tool results (a persisted output's preview included), cache
// breakpoints and token budget.
for (const backend of BACKENDS) describe(`an imported session continues byte for byte [${backend.name}]`, function () {
  const temp = useTempDirs();
  this.timeout(120_000);
  let fake: FakeBackend;
  let base: string;
  let workspace: string;

  beforeEach(async () => {
    fake = await backend.start();
    fake.setModel(fake.model, { window: 200_000, maxOutput: 64_000 });
    base = temp.make('evergreen-archive-resume-');
    workspace = path.join(base, 'ws');
    fs.mkdirSync(workspace);
    fs.writeFileSync(path.join(workspace, 'notes.txt'), 'The release codename is BLUE-HERON.\n');
    // Over the persist threshold: its result is saved under tool-results/ and the context gets a preview naming the file.
    fs.writeFileSync(path.join(workspace, 'build.log'), Array.from({ length: 4000 }, (_, line) => `[build] step ${line}: compiled chunk ${line} ok`).join('\n'));
  });
  afterEach(async () => {
    await fake.close();
  });

  function cli(storage: string, args: string[]): Promise<CapturedRun> {
    return runCliCaptured(['--workspace', workspace, '--storage-dir', storage, ...fake.cliArgs(), '--model', fake.model, '--output-format', 'stream-json', '--yes', ...args], { ...fake.cliEnv(), PATH: process.env.PATH }, workspace);
  }

  /** An archive command prints text, not events. */
  function archiveCli(storage: string, args: string[]): Promise<CapturedRun> {
    return runCliCaptured(['--workspace', workspace, '--storage-dir', storage, ...args], { PATH: process.env.PATH }, workspace);
  }

  it('export, import into fresh storage, resume: the next request equals a resume in the original storage', async () => {
    const original = path.join(base, 'original-storage');
    const fresh = path.join(base, 'fresh-storage');
    fake.enqueue(
      say.toolUse('read_file', { path: 'notes.txt' }, { id: 'call_notes' }),
      say.toolUse('run_shell', { command: 'cat build.log' }, { id: 'call_log' }),
      say.text('The codename is BLUE-HERON and the build passed.'),
    );
    const first = await cli(original, ['-p', 'Read notes.txt, then show build.log.']);
    assert.equal(first.code, 0, first.stderr);
    const sessionId = first.events.find((event) => event.type === 'session_started')?.sessionId;
    assert.ok(sessionId, 'no session_started event');
    const sessionDir = path.join(original, 'sessions', sessionId);
    assert.ok(fs.readdirSync(path.join(sessionDir, 'tool-results')).length > 0, 'the long output was not persisted: the test would not cover saved outputs');

    const zip = path.join(base, 'run.zip');
    const exported = await archiveCli(original, ['--export-session', sessionId, zip]);
    assert.equal(exported.code, 0, exported.stderr);
    const imported = await archiveCli(fresh, ['--import-session', zip]);
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(imported.stdout, new RegExp(`Imported session ${sessionId}`));
    // The saved outputs came along: recall and read_file reach them in the new storage.
    const savedIn = (storage: string) => fs.readdirSync(path.join(storage, 'sessions', sessionId, 'tool-results')).map((name) => fs.readFileSync(path.join(storage, 'sessions', sessionId, 'tool-results', name), 'utf8'));
    assert.deepEqual(savedIn(fresh), savedIn(original));

    const resumeFrom = async (storage: string): Promise<string> => {
      const before = fake.requests().length;
      fake.enqueue(say.text('Still BLUE-HERON.'));
      const run = await cli(storage, ['--resume', sessionId, '-p', 'What was the codename again?']);
      assert.equal(run.code, 0, run.stderr);
      const sent = fake.requests().slice(before);
      assert.equal(sent.length, 1);
      return JSON.stringify(sent[0]!.raw);
    };
    const fromImport = await resumeFrom(fresh);
    const fromOriginal = await resumeFrom(original);
    assert.ok(fromImport.includes('BLUE-HERON'), 'the resumed request lost the history');
    assert.equal(fromImport, fromOriginal);

    // The same run again is refused, and the fresh storage keeps its continued session.
    const again = await archiveCli(fresh, ['--import-session', zip]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /not imported: session .* is already in this storage/);
  });
});
