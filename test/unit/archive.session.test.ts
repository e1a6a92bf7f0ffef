import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { crc32 } from 'node:zlib';
import { openArchive } from '../../src/core/archive/archiveReader';
import { exportSessionToFolder, exportSessionToZip } from '../../src/core/archive/exportSession';
import { importSessionArchive, inspectSessionArchive } from '../../src/core/archive/importSession';
import { archiveNameProblem, MANIFEST_NAME, SessionArchiveError, type ArchiveProblemKind } from '../../src/core/archive/layout';
import { githubRepository, normalizeRepository } from '../../src/core/archive/repository';
import { FileSessionStore } from '../../src/core/storage/sessionStore';
import { rawZip, type RawZipEntry } from '../support/rawZip';
import { useTempDirs } from '../support/tempDirs';

const REPO = 'github.com/acme/widgets';

/** Every file under `dir`, relative, with its bytes (owner.lock and the shadow repository are a machine's, not the session's). */
function filesOf(dir: string): Map<string, string> {
  const found = new Map<string, string>();
  const walk = (at: string, prefix: string) => {
    for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
      const name = `${prefix}${entry.name}`;
      if (entry.isDirectory()) walk(path.join(at, entry.name), `${name}/`);
      else found.set(name, fs.readFileSync(path.join(at, entry.name), 'base64'));
    }
  };
  walk(dir, '');
  // Compared by digest: a failed comparison prints names, not megabytes.
  return new Map([...found].map(([name, bytes]) => [name, createHash('sha256').update(bytes).digest('hex').slice(0, 16)]));
}

describe('session archives (issue 32): export, then an all-or-nothing import', () => {
  const temp = useTempDirs();
  let base: string;
  let source: FileSessionStore;
  let target: FileSessionStore;
  let sessionId: string;

  beforeEach(async () => {
    base = temp.make('evergreen-archive-');
    source = new FileSessionStore(path.join(base, 'runner-storage'));
    target = new FileSessionStore(path.join(base, 'local-storage'));
    const handle = await source.create({ model: 'claude-sonnet-4-6', workspace: '/home/runner/work/widgets/widgets' });
    sessionId = handle.id;
    handle.append({ type: 'system_prompt', ts: new Date().toISOString(), text: 'You are Evergreen.' });
    handle.append({ type: 'message', ts: new Date().toISOString(), message: { role: 'user', content: 'Fix the flaky test.' } });
    handle.append({ type: 'message', ts: new Date().toISOString(), message: { role: 'assistant', content: [{ type: 'text', text: 'Fixed: the timeout was too short.' }] } });
    await handle.flushMeta();
    handle.close();
    const dir = source.sessionDir(sessionId);
    fs.writeFileSync(path.join(dir, 'tool-results', 'toolu_01.txt'), 'x'.repeat(40_000));
    fs.mkdirSync(path.join(dir, 'images'));
    fs.writeFileSync(path.join(dir, 'images', `${'a'.repeat(64)}.png`), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    fs.mkdirSync(path.join(dir, 'subagents', 'child-1', 'tool-results'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'subagents', 'child-1', 'transcript.jsonl'), '');
    fs.writeFileSync(path.join(dir, 'subagents', 'child-1', 'meta.json'), '{"id":"child-1"}');
    fs.mkdirSync(path.join(dir, 'checkpoints', 'blobs'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'checkpoints', 'index.json'), '{"checkpoints":[]}');
    fs.writeFileSync(path.join(dir, 'checkpoints', 'blobs', 'b'.repeat(64)), 'prior bytes');
    // What never travels: the machine's lock, the shadow repository's Git configuration, held files, a link.
    fs.writeFileSync(path.join(dir, 'owner.lock'), '{"pid":1}');
    fs.mkdirSync(path.join(dir, 'checkpoints', 'shadow.git'));
    fs.writeFileSync(path.join(dir, 'checkpoints', 'shadow.git', 'config'), '[core]\n\tfsmonitor = touch /tmp/pwned\n');
    fs.mkdirSync(path.join(dir, 'held-by-sandbox'));
    fs.writeFileSync(path.join(dir, 'held-by-sandbox', 'hook'), '#!/bin/sh');
    fs.symlinkSync('/etc/passwd', path.join(dir, 'tool-results', 'link.txt'));
  });

  /** The session's files an archive carries, as the source has them. */
  function carried(): Map<string, string> {
    const all = filesOf(source.sessionDir(sessionId));
    for (const name of [...all.keys()]) if (name === 'owner.lock' || name === 'tool-results/link.txt' || name.startsWith('checkpoints/shadow.git/') || name.startsWith('held-by-sandbox/')) all.delete(name);
    return all;
  }

  async function refusal(archive: string, kind: ArchiveProblemKind, words: RegExp): Promise<void> {
    const before = fs.existsSync(target.sessionsDir) ? fs.readdirSync(target.sessionsDir) : [];
    const error = await importSessionArchive(target, archive, { workspaceRepository: REPO }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    assert.ok(error instanceof SessionArchiveError, `expected a refusal, got ${String(error)}`);
    assert.equal(error.kind, kind, error.message);
    assert.match(error.message, words);
    const after = fs.existsSync(target.sessionsDir) ? fs.readdirSync(target.sessionsDir) : [];
    assert.deepEqual(after, before, 'a refused import left something in the storage');
  }

  it('a .zip carries the session whole (links, the lock, held files and the shadow repository left out) and imports byte for byte', async () => {
    const zip = path.join(base, 'run.zip');
    const manifest = await exportSessionToZip({ store: source, sessionId, repository: REPO, run: { id: '42', branch: 'evergreen/42' } }, zip);
    assert.equal(manifest.sessionId, sessionId);
    assert.ok(!Object.keys(manifest.files).some((name) => /owner\.lock|shadow\.git|held-by-sandbox|link\.txt/.test(name)), Object.keys(manifest.files).join(', '));
    const result = await importSessionArchive(target, zip, { workspaceRepository: REPO });
    assert.equal(result.status, 'imported');
    assert.deepEqual(result.warnings, []);
    assert.deepEqual(filesOf(target.sessionDir(sessionId)), carried());
    assert.deepEqual(
      fs.readdirSync(target.sessionsDir).filter((name) => name.startsWith('.')),
      [],
      'the staging folder was left behind',
    );
    const listed = await target.list();
    assert.deepEqual(listed.map((meta) => meta.id), [sessionId]);
  });

  it('a folder (the artifact as uploaded, or unpacked) imports the same way', async () => {
    const folder = path.join(base, 'artifact');
    await exportSessionToFolder({ store: source, sessionId, repository: REPO }, folder);
    const result = await importSessionArchive(target, folder, { workspaceRepository: REPO });
    assert.equal(result.status, 'imported');
    assert.deepEqual(filesOf(target.sessionDir(sessionId)), carried());
  });

  it('refuses the same run twice, and the first import stays as it was', async () => {
    const zip = path.join(base, 'run.zip');
    await exportSessionToZip({ store: source, sessionId, repository: REPO, run: { id: '42' } }, zip);
    await importSessionArchive(target, zip, { workspaceRepository: REPO });
    fs.appendFileSync(target.transcriptPath(sessionId), '{"type":"message","ts":"t","message":{"role":"user","content":"continued here"}}\n');
    const continued = fs.readFileSync(target.transcriptPath(sessionId), 'utf8');
    await refusal(zip, 'already-imported', /run 42\) is already in this storage/);
    assert.equal(fs.readFileSync(target.transcriptPath(sessionId), 'utf8'), continued);
  });

  it('warns about a session from another repository and imports it (or nothing, when the user declines)', async () => {
    const zip = path.join(base, 'run.zip');
    await exportSessionToZip({ store: source, sessionId, repository: 'github.com/other/project' }, zip);
    const inspected = await inspectSessionArchive(zip, REPO);
    assert.match(inspected.warnings.join('\n'), /worked on github\.com\/other\/project, but this workspace is github\.com\/acme\/widgets/);
    const declined = await importSessionArchive(target, zip, { workspaceRepository: REPO, confirm: async () => false });
    assert.equal(declined.status, 'declined');
    assert.equal(fs.existsSync(target.sessionDir(sessionId)), false);
    let asked: readonly string[] = [];
    const result = await importSessionArchive(target, zip, {
      workspaceRepository: REPO,
      confirm: async (warnings) => {
        asked = warnings;
        return true;
      },
    });
    assert.equal(result.status, 'imported');
    assert.equal(asked.length, 1);
    assert.ok(fs.existsSync(target.transcriptPath(sessionId)));
  });

  it('refuses a truncated .zip, a damaged entry and a file that is not a zip, writing nothing', async () => {
    const zip = path.join(base, 'run.zip');
    await exportSessionToZip({ store: source, sessionId, repository: REPO }, zip);
    const bytes = fs.readFileSync(zip);
    const truncated = path.join(base, 'truncated.zip');
    fs.writeFileSync(truncated, bytes.subarray(0, Math.floor(bytes.length / 2)));
    await refusal(truncated, 'corrupt', /truncated|not a \.zip/);
    const notZip = path.join(base, 'notes.zip');
    fs.writeFileSync(notZip, 'just some text');
    await refusal(notZip, 'corrupt', /not a \.zip/);
    // A stored entry whose bytes changed in transit: the checksum catches it.
    const entries: RawZipEntry[] = await zipEntriesOf(zip);
    const transcript = entries.find((entry) => entry.name === 'session/transcript.jsonl')!;
    const damaged = Buffer.from(transcript.data);
    damaged[5] = damaged[5]! ^ 0x20;
    const damagedZip = path.join(base, 'damaged.zip');
    fs.writeFileSync(damagedZip, rawZip(entries.map((entry) => (entry === transcript ? { ...entry, data: damaged, crc32: crcOf(transcript.data) } : entry))));
    await refusal(damagedZip, 'corrupt', /checksum/);
    // The same change with a matching checksum: the manifest's SHA-256 catches it.
    const rewritten = path.join(base, 'rewritten.zip');
    fs.writeFileSync(rewritten, rawZip(entries.map((entry) => (entry === transcript ? { ...entry, data: damaged } : entry))));
    await refusal(rewritten, 'corrupt', /SHA-256/);
  });

  it('refuses an archive missing a listed file, or holding one the manifest does not list', async () => {
    const zip = path.join(base, 'run.zip');
    await exportSessionToZip({ store: source, sessionId, repository: REPO }, zip);
    const entries = await zipEntriesOf(zip);
    const missing = path.join(base, 'missing.zip');
    fs.writeFileSync(missing, rawZip(entries.filter((entry) => entry.name !== 'session/tool-results/toolu_01.txt')));
    await refusal(missing, 'corrupt', /incomplete: session\/tool-results\/toolu_01\.txt/);
    const extra = path.join(base, 'extra.zip');
    fs.writeFileSync(extra, rawZip([...entries, { name: 'session/tool-results/added.txt', data: 'not listed' }]));
    await refusal(extra, 'corrupt', /added\.txt is in the archive but not listed/);
  });

  it('refuses names that leave the storage folder, links and files a session never has (zip-slip)', async () => {
    const zip = path.join(base, 'run.zip');
    await exportSessionToZip({ store: source, sessionId, repository: REPO }, zip);
    const entries = await zipEntriesOf(zip);
    const cases: { entry: RawZipEntry; words: RegExp }[] = [
      { entry: { name: '../../escaped.txt', data: 'x' }, words: /outside its folder|"\.\." or "\." part/ },
      { entry: { name: 'session/tool-results/../../../escaped.txt', data: 'x' }, words: /outside its folder|"\.\." or "\." part/ },
      { entry: { name: '/tmp/escaped.txt', data: 'x' }, words: /outside its folder|absolute/ },
      { entry: { name: 'session/tool-results/link.txt', data: '/etc/passwd', mode: 0o120777 }, words: /symbolic link/ },
      { entry: { name: 'session/checkpoints/shadow.git/config', data: '[core]\n\tfsmonitor = touch /tmp/pwned\n' }, words: /not a file of an Evergreen session/ },
      { entry: { name: 'session/owner.lock', data: '{}' }, words: /not a file of an Evergreen session/ },
    ];
    for (const { entry, words } of cases) {
      const evil = path.join(base, 'evil.zip');
      fs.writeFileSync(evil, rawZip([...entries, entry]));
      await refusal(evil, 'unsafe', words);
    }
    assert.equal(fs.existsSync(path.join(base, 'escaped.txt')), false);
  });

  it('refuses a folder holding a link, and one whose file was changed after export', async () => {
    const folder = path.join(base, 'artifact');
    await exportSessionToFolder({ store: source, sessionId, repository: REPO }, folder);
    fs.symlinkSync('/etc/passwd', path.join(folder, 'session', 'tool-results', 'evil.txt'));
    await refusal(folder, 'unsafe', /symbolic link/);
    fs.rmSync(path.join(folder, 'session', 'tool-results', 'evil.txt'));
    const transcript = path.join(folder, 'session', 'transcript.jsonl');
    const text = fs.readFileSync(transcript, 'utf8');
    fs.writeFileSync(transcript, text.replace('Fix the flaky', 'Fix the FLAKY'));
    await refusal(folder, 'corrupt', /SHA-256/);
    fs.writeFileSync(transcript, text.slice(0, -10));
    await refusal(folder, 'corrupt', /bytes, but evergreen-run\.json says/);
  });

  it('refuses a manifest that is not one, and names what is wrong', async () => {
    const folder = path.join(base, 'artifact');
    await exportSessionToFolder({ store: source, sessionId, repository: REPO }, folder);
    const manifestFile = path.join(folder, MANIFEST_NAME);
    const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as Record<string, unknown>;
    fs.writeFileSync(manifestFile, JSON.stringify({ ...manifest, sessionId: '../escape' }));
    await refusal(folder, 'corrupt', /sessionId/);
    fs.writeFileSync(manifestFile, JSON.stringify({ ...manifest, version: 9 }));
    await refusal(folder, 'unsupported', /version is 9/);
    fs.rmSync(manifestFile);
    await refusal(folder, 'not-an-archive', /no evergreen-run\.json/);
  });
});

describe('archive names and repositories', () => {
  it('accepts exactly the names a session has', () => {
    for (const name of ['evergreen-run.json', 'session/meta.json', 'session/transcript.jsonl', 'session/tool-results/toolu_01.txt', `session/images/${'f'.repeat(64)}.png`, 'session/subagents/child-1/transcript.jsonl', `session/checkpoints/blobs/${'0'.repeat(64)}`]) {
      assert.equal(archiveNameProblem(name), undefined, name);
    }
    for (const name of ['session/tool-results/..', 'session/tool-results/.hidden', 'session\\meta.json', 'C:/session/meta.json', 'session/subagents/child-1/subagents/x/meta.json', 'session/checkpoints/shadow.git/HEAD', 'other/meta.json']) {
      assert.notEqual(archiveNameProblem(name), undefined, name);
    }
  });

  it('names one repository the same however its remote is written', () => {
    const forms = ['https://github.com/Acme/Widgets.git', 'https://x-access-token:ghs_secret@github.com/acme/widgets', 'git@github.com:acme/widgets.git', 'ssh://git@github.com/acme/widgets', 'https://github.com/acme/widgets/'];
    for (const form of forms) assert.equal(normalizeRepository(form), REPO, form);
    assert.equal(githubRepository('https://github.com', 'acme/widgets'), REPO);
    assert.equal(normalizeRepository('/tmp/remote.git'), '/tmp/remote');
  });
});

async function zipEntriesOf(zip: string): Promise<RawZipEntry[]> {
  const archive = await openArchive(zip);
  try {
    const entries: RawZipEntry[] = [];
    for (const entry of archive.entries.values()) {
      const chunks: Buffer[] = [];
      for await (const chunk of await entry.open()) chunks.push(chunk as Buffer);
      entries.push({ name: entry.name, data: Buffer.concat(chunks) });
    }
    return entries;
  } finally {
    archive.close();
  }
}

function crcOf(data: Buffer | string): number {
  return crc32(data);
}
