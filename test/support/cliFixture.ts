/**
 * The CLI fixture of the system tier: for each test a strict fake API, a workspace, a storage folder
 * (and, when asked, a home folder), and a runner that starts the headless CLI in-process against
 * them, as a script would.
 *
 *   for (const backend of BACKENDS) describe(`… [${backend.name}]`, () => {
 *     const cli = useCliFixture(backend, { args: ['--yes'], files: { 'notes.md': '# Notes\n' } });
 *     it('…', async () => {
 *       cli().fake.enqueue(say.text('Hi.'));
 *       const run = await cli().run(['-p', 'hello']);
 *     });
 *   });
 *
 * `backend` is a BackendFactory (the neutral matrix of support/backends.ts: --provider, --model and
 * the provider's variables) or `'anthropic'` for the raw fake Anthropic API (its own reply builders;
 * the CLI's default provider and model).
 */
import * as path from 'node:path';
import { startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic/server';
import type { BackendFactory, FakeBackend } from './backends';
import { runCliCaptured, type CapturedRun } from './cliCapture';
import { tempDirs, writeTree } from './tempDirs';

export interface CliFixtureOptions {
  /** Arguments every run gets after the fixture's own (e.g. `--yes`, `--output-format stream-json`). */
  args?: string[];
  /** Files the workspace starts with. */
  files?: Record<string, string | Buffer>;
  /** A home folder of its own, passed as HOME (user-level instruction files, settings). */
  home?: boolean;
  /** Environment every run gets besides the fake's variables and PATH. */
  env?: Record<string, string | undefined>;
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  stdin?: string;
  /** Another storage folder for this run (a copy, a second store). */
  storage?: string;
}

export interface CliFixture<Fake> {
  fake: Fake;
  workspace: string;
  storage: string;
  /** The home folder (HOME), when the fixture was asked for one. */
  home: string;
  /** A temp folder of this test besides the fixture's own, removed with them. */
  tempDir(prefix?: string): string;
  /** The arguments and environment a run gets before its own (for a CLI started as a process). */
  argv(args: string[], storage?: string): string[];
  env(extra?: Record<string, string | undefined>): Record<string, string | undefined>;
  /** Runs the CLI in-process on the workspace: `--workspace`, `--storage-dir`, the fake's connection, the fixture's args, then `args`. */
  run(args: string[], options?: RunOptions): Promise<CapturedRun>;
}

type Connection = { args: string[]; env: Record<string, string> };

function connectionOf(fake: FakeBackend | FakeAnthropic): Connection {
  if ('cliArgs' in fake) return { args: [...fake.cliArgs(), '--model', fake.model], env: fake.cliEnv() };
  return { args: [], env: { ANTHROPIC_API_KEY: fake.apiKey, ANTHROPIC_BASE_URL: fake.url } };
}

/** Sets up the fixture now; the caller closes it (useCliFixture does both around each test). */
export async function openCliFixture(backend: BackendFactory, options?: CliFixtureOptions): Promise<CliFixture<FakeBackend> & { close(): Promise<void> }>;
export async function openCliFixture(backend: 'anthropic', options?: CliFixtureOptions): Promise<CliFixture<FakeAnthropic> & { close(): Promise<void> }>;
export async function openCliFixture(backend: BackendFactory | 'anthropic', options: CliFixtureOptions = {}): Promise<CliFixture<FakeBackend | FakeAnthropic> & { close(): Promise<void> }> {
  const dirs = tempDirs();
  const fake: FakeBackend | FakeAnthropic = backend === 'anthropic' ? await startFakeAnthropic() : await backend.start();
  const base = dirs.make('evergreen-cli-');
  const workspace = path.join(base, 'workspace');
  const storage = path.join(base, 'storage');
  const home = path.join(base, 'home');
  writeTree(workspace, options.files ?? {});
  writeTree(storage, {});
  if (options.home) writeTree(home, {});
  const connection = connectionOf(fake);
  const fixture: CliFixture<FakeBackend | FakeAnthropic> & { close(): Promise<void> } = {
    fake,
    workspace,
    storage,
    get home() {
      if (!options.home) throw new Error('this CLI fixture has no home folder: pass { home: true }');
      return home;
    },
    tempDir: (prefix) => dirs.make(prefix),
    argv: (args, storageDir = storage) => ['--workspace', workspace, '--storage-dir', storageDir, ...connection.args, ...(options.args ?? []), ...args],
    env: (extra = {}) => ({ ...connection.env, PATH: process.env.PATH, ...(options.home ? { HOME: home } : {}), ...options.env, ...extra }),
    run: (args, run = {}) => runCliCaptured(fixture.argv(args, run.storage), fixture.env(run.env), workspace, run.stdin),
    async close() {
      await fake.close();
      dirs.clean();
    },
  };
  return fixture;
}

/** A fixture for each test of the enclosing describe; returns the running test's. */
export function useCliFixture(backend: BackendFactory, options?: CliFixtureOptions): () => CliFixture<FakeBackend>;
export function useCliFixture(backend: 'anthropic', options?: CliFixtureOptions): () => CliFixture<FakeAnthropic>;
export function useCliFixture(backend: BackendFactory | 'anthropic', options: CliFixtureOptions = {}): () => CliFixture<FakeBackend | FakeAnthropic> {
  let fixture: (CliFixture<FakeBackend | FakeAnthropic> & { close(): Promise<void> }) | undefined;
  beforeEach(async () => {
    fixture = backend === 'anthropic' ? await openCliFixture(backend, options) : await openCliFixture(backend, options);
  });
  afterEach(async () => {
    await fixture?.close();
    fixture = undefined;
  });
  return () => {
    if (!fixture) throw new Error('useCliFixture: the fixture exists only while a test of its describe runs');
    return fixture;
  };
}
