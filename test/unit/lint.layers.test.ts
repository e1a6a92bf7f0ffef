import assert from 'node:assert/strict';
import { ESLint } from 'eslint';

// The layer walls are enforced by the real lint config; these cases prove it bites.
describe('lint: layer walls', function () {
  this.timeout(60_000);
  const eslint = new ESLint({ cwd: process.cwd() });

  async function messagesFor(filePath: string, code: string, severity: 1 | 2): Promise<string[]> {
    const [result] = await eslint.lintText(code, { filePath });
    return (result?.messages ?? []).filter((message) => message.severity === severity).map((message) => message.message);
  }
  const errorsFor = (filePath: string, code: string): Promise<string[]> => messagesFor(filePath, code, 2);

  it('fails when src/core imports vscode', async () => {
    const errors = await errorsFor('src/core/agent/leak.ts', "import * as vscode from 'vscode';\nexport const x = vscode;\n");
    assert.ok(errors.some((message) => /Only src\/extension may import vscode/.test(message)), errors.join('\n'));
  });

  it('fails when src/webview imports vscode, even as a type', async () => {
    const errors = await errorsFor('src/webview/leak.ts', "import type * as vscode from 'vscode';\nexport type X = vscode.Uri;\n");
    assert.ok(errors.some((message) => /Only src\/extension may import vscode/.test(message)), errors.join('\n'));
  });

  it('fails when src/frontends imports vscode', async () => {
    const errors = await errorsFor('src/frontends/leak.ts', "import * as vscode from 'vscode';\nexport const x = vscode;\n");
    assert.ok(errors.some((message) => /Only src\/extension may import vscode/.test(message)), errors.join('\n'));
  });

  it('fails when src/core words a user text: no l10n there, and no English of its own passed as verbatim', async () => {
    const l10n = await errorsFor('src/core/agent/leak.ts', "import * as l10n from '@vscode/l10n';\nexport const x = l10n.t('Hello');\n");
    assert.ok(l10n.some((message) => /The core returns a UserText kind with its data/.test(message)), l10n.join('\n'));
    const english = await errorsFor('src/core/agent/leak.ts', "import { verbatim } from '../texts/userText';\nexport const x = verbatim('Stopped after 3 rounds.');\nexport const y = verbatim(`Stopped after ${x.kind}`);\n");
    assert.equal(english.filter((message) => /not English: verbatim is for text that is not ours/.test(message)).length, 2, english.join('\n'));
    const notOurs = await errorsFor('src/core/agent/leak.ts', "import { verbatim } from '../texts/userText';\nexport const said = (error: Error) => verbatim(error.message);\n");
    assert.deepEqual(notOurs, [], 'a value that is not ours passes');
    const frontEnd = await errorsFor('src/frontends/leak.ts', "import * as l10n from '@vscode/l10n';\nexport const x = l10n.t('Hello');\n");
    assert.deepEqual(frontEnd, [], 'the front ends word things');
  });

  it('warns about a source file over 500 lines and fails one over 800', async () => {
    const lines = (count: number): string => Array.from({ length: count }, (_, i) => `export const v${i} = ${i};`).join('\n') + '\n';
    const tooLong = /File has too many lines/;
    assert.deepEqual(await messagesFor('src/core/agent/long.ts', lines(500), 1), []);
    const warned = await messagesFor('src/core/agent/long.ts', lines(501), 1);
    assert.ok(warned.some((message) => tooLong.test(message) && /Maximum allowed is 500/.test(message)), warned.join('\n'));
    assert.deepEqual(await errorsFor('src/core/agent/long.ts', lines(800)), []);
    const failed = await errorsFor('src/core/agent/long.ts', lines(801));
    assert.ok(failed.some((message) => tooLong.test(message) && /Maximum allowed is 800/.test(message)), failed.join('\n'));
  });

  it('fails when src/core imports from src/extension', async () => {
    const errors = await errorsFor('src/core/agent/leak.ts', "import { activate } from '../../extension/extension';\nexport const x = activate;\n");
    assert.ok(errors.some((message) => /must not depend on the VS Code layer/.test(message)), errors.join('\n'));
  });

  it('fails a dynamic import or require of vscode in src/core', async () => {
    const dynamic = await errorsFor('src/core/agent/leak.ts', "export async function f() { return import('vscode'); }\n");
    assert.ok(dynamic.some((message) => /Only src\/extension may import vscode/.test(message)), dynamic.join('\n'));
    const required = await errorsFor('src/core/agent/leak.ts', "declare const require: (id: string) => unknown;\nexport const v = require('vscode');\n");
    assert.ok(required.some((message) => /Only src\/extension may import vscode/.test(message)), required.join('\n'));
  });

  it('lints scripts/*.mjs as Node code: its globals are known, undefined names and unused variables are errors', async () => {
    assert.deepEqual(await errorsFor('scripts/probe.mjs', "console.log(process.argv, Buffer.from('x'), new URL('file:///'));\n"), []);
    const errors = await errorsFor('scripts/probe.mjs', 'const unused = 1;\nmissing();\n');
    assert.ok(errors.some((message) => /'missing' is not defined/.test(message)), errors.join('\n'));
    assert.ok(errors.some((message) => /'unused' is assigned a value but never used/.test(message)), errors.join('\n'));
  });

  it('allows src/extension to import vscode', async () => {
    assert.deepEqual(await errorsFor('src/extension/ok.ts', "import * as vscode from 'vscode';\nexport const x = vscode;\n"), []);
  });
});

// The layer order inside src/core and the ban on cycles are dependency-cruiser rules
// (.dependency-cruiser.cjs, run by `npm run lint`). Planted trees are cruised with the real config.
