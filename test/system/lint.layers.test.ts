import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { useTempDirs } from '../support/tempDirs';

// The layer walls are enforced by the real lint config; these cases prove it bites.

describe('lint: layer order and cycles (dependency-cruiser)', function () {
  this.timeout(120_000);
  const temp = useTempDirs();
  const repo = process.cwd();
  const depcruise = path.join(repo, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
  const config = path.join(repo, '.dependency-cruiser.cjs');

  function cruise(cwd: string): { status: number | null; output: string } {
    const run = spawnSync(process.execPath, [depcruise, '--config', config, 'src'], { cwd, encoding: 'utf8' });
    return { status: run.status, output: `${run.stdout}${run.stderr}` };
  }

  /** Cruises a throw-away tree holding `files` (paths relative to the repository root). */
  function cruiseTree(files: Record<string, string>): { status: number | null; output: string } {
    const root = temp.make('evergreen-layers-');
    writeFileSync(path.join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'ESNext', moduleResolution: 'Bundler', strict: true } }));
    for (const [file, code] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      writeFileSync(path.join(root, file), code);
    }
    return cruise(root);
  }

  // Imports along the order, one per boundary the plants below cross the wrong way.
  const lawful: Record<string, string> = {
    'src/core/logger.ts': 'export const log = 1;\n',
    'src/core/model/models.ts': "import { log } from '../logger';\nexport const model = log;\n",
    'src/core/workspace/workspace.ts': "import { log } from '../logger';\nexport const workspace = log;\n",
    'src/core/tools/tool.ts': "import { model } from '../model/models';\nimport { workspace } from '../workspace/workspace';\nexport const tool = model + workspace;\n",
    'src/core/context/engine.ts': "import { tool } from '../tools/tool';\nexport const engine = tool;\n",
    'src/core/agent/session.ts': "import { engine } from '../context/engine';\nexport const session = engine;\n",
    'src/frontends/table.ts': "import { session } from '../core/agent/session';\nexport const table = session;\n",
    'src/cli/main.ts': "import { table } from '../frontends/table';\nexport const main = table;\n",
    'src/extension/settings.ts': "import { table } from '../frontends/table';\nexport const settings = table;\n",
    'src/protocol.ts': "export type { session } from './core/agent/session';\n",
    'src/webview/main.ts': "import type { session } from '../protocol';\nexport type View = typeof session;\n",
  };

  it('passes a tree whose imports follow the order (so the failures below are the plants)', () => {
    const result = cruiseTree(lawful);
    assert.equal(result.status, 0, result.output);
  });

  it('fails an upward import inside src/core: a subsystem below the tools importing the tool contract', () => {
    const result = cruiseTree({ ...lawful, 'src/core/workspace/leak.ts': "import { tool } from '../tools/tool';\nexport const leak = tool;\n" });
    assert.notEqual(result.status, 0, result.output);
    assert.match(result.output, /core-workspace-imports-only-below: src\/core\/workspace\/leak\.ts → src\/core\/tools\/tool\.ts/);
  });

  it('fails an import between layers that are beside each other (shell importing workspace)', () => {
    const result = cruiseTree({ ...lawful, 'src/core/shell/leak.ts': "import { workspace } from '../workspace/workspace';\nexport const leak = workspace;\n" });
    assert.notEqual(result.status, 0, result.output);
    assert.match(result.output, /core-shell-imports-only-below: src\/core\/shell\/leak\.ts → src\/core\/workspace\/workspace\.ts/);
  });

  it('fails when the core imports the front ends\' shared code (src/frontends)', () => {
    const result = cruiseTree({ ...lawful, 'src/core/agent/leak.ts': "import { table } from '../../frontends/table';\nexport const leak = table;\n" });
    assert.notEqual(result.status, 0, result.output);
    assert.match(result.output, /core-agent-imports-only-below: src\/core\/agent\/leak\.ts → src\/frontends\/table\.ts/);
  });

  it('fails when src/frontends imports a front end (here src/extension)', () => {
    const result = cruiseTree({ ...lawful, 'src/frontends/leak.ts': "import { settings } from '../extension/settings';\nexport const leak = settings;\n" });
    assert.notEqual(result.status, 0, result.output);
    assert.match(result.output, /frontends-imports-only-core: src\/frontends\/leak\.ts → src\/extension\/settings\.ts/);
  });

  it("fails when the core's root modules import a layer (logger.ts importing tools)", () => {
    const result = cruiseTree({ ...lawful, 'src/core/logger.ts': "import type { tool } from './tools/tool';\nexport const log = 1;\nexport type T = typeof tool;\n" });
    assert.notEqual(result.status, 0, result.output);
    assert.match(result.output, /core-base-imports-only-below: src\/core\/logger\.ts → src\/core\/tools\/tool\.ts/);
  });

  it('fails an import cycle, even one made of type-only imports', () => {
    const result = cruiseTree({
      ...lawful,
      'src/core/workspace/a.ts': "import type { B } from './b';\nexport interface A { b?: B }\n",
      'src/core/workspace/b.ts': "import type { A } from './a';\nexport interface B { a?: A }\n",
    });
    assert.notEqual(result.status, 0, result.output);
    assert.match(result.output, /no-circular: src\/core\/workspace\/(a|b)\.ts →/);
  });

  it('fails when the webview imports anything but src/protocol.ts (here src/frontends)', () => {
    const result = cruiseTree({ ...lawful, 'src/webview/leak.ts': "import { table } from '../frontends/table';\nexport const leak = table;\n" });
    assert.notEqual(result.status, 0, result.output);
    assert.match(result.output, /webview-imports-only-protocol: src\/webview\/leak\.ts → src\/frontends\/table\.ts/);
  });

  it('runs as part of npm run lint', () => {
    const scripts = (JSON.parse(readFileSync(path.join(repo, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    assert.match(scripts.lint ?? '', /depcruise --config \.dependency-cruiser\.cjs src/);
  });

  it('passes the real src tree: no cycle, no upward import', () => {
    const result = cruise(repo);
    assert.equal(result.status, 0, result.output);
  });
});
