// Hook definitions (src/core/hooks/config.ts, load.ts, consent.ts, matcher.ts): Claude Code's
// settings format from every place they live, the problems a bad file or entry gives (loading goes
// on), consent keys over the whole definition, who may run, and the matchers.
import { said } from '../support/said';
import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { loadHooks, MAX_SETTINGS_FILE_BYTES } from '../../src/core/hooks/load';
import { build } from 'esbuild';
import { useTempDirs } from '../support/tempDirs';

describe('hooks: configuration', () => {
  const temp = useTempDirs();
  let base: string;
  let home: string;
  let workspace: string;
  const write = (file: string, content: unknown): string => {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
    return file;
  };

  beforeEach(() => {
    base = temp.make('evergreen-hooks-config-');
    home = path.join(base, 'home');
    workspace = path.join(base, 'ws');
    mkdirSync(home, { recursive: true });
    mkdirSync(workspace, { recursive: true });
  });

  describe('the format', () => {
    it('a problem reads in English from a bundle too (zod declares no side effects, so its locale is set by src/core/zod.ts)', async function () {
      this.timeout(30_000);
      const entry = path.join(base, 'entry.ts');
      writeFileSync(entry, `import { parseHookSettingsValue } from ${JSON.stringify(path.resolve('src/core/hooks/config'))};\nconsole.log(parseHookSettingsValue({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 3 }] }] } }, { scope: 'user', source: 'f', label: 'f' }).problems[0].message.data.text);\n`);
      const outfile = path.join(base, 'entry.js');
      // As esbuild.mjs builds the extension and the CLI: a minified CJS bundle for Node.
      await build({ entryPoints: [entry], outfile, bundle: true, minify: true, platform: 'node', format: 'cjs', target: 'es2022', alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' }, logLevel: 'silent' });
      const run = spawnSync(process.execPath, [outfile], { encoding: 'utf8' });
      assert.equal(run.stdout.trim(), 'Invalid input: expected string, received number', run.stderr);
    });
  });

  describe('loading from every place', () => {
    it('refuses a FIFO, a folder and an oversized file unread, without hanging', async function () {
      if (process.platform === 'win32') this.skip(); // no FIFOs
      mkdirSync(path.join(workspace, '.claude'), { recursive: true });
      execFileSync('mkfifo', [path.join(workspace, '.claude/settings.json')]);
      mkdirSync(path.join(workspace, '.claude/settings.local.json'));
      write(path.join(workspace, '.evergreen/settings.json'), ' '.repeat(MAX_SETTINGS_FILE_BYTES + 1));
      const loaded = await loadHooks({ workspaceRoot: workspace });
      assert.deepEqual(loaded.hooks, []);
      assert.deepEqual(
        loaded.problems.map((problem) => said(problem.message).replace(/\d+ bytes/, 'N bytes')),
        ['is not a regular file; it was not read', 'is not a regular file; it was not read', `is N bytes, more than a settings file may be (${MAX_SETTINGS_FILE_BYTES}); it was not read`],
      );
    });
  });
});
