import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';

/** VS Code ships ripgrep; its location moved between releases, so probe the known places. */
export function bundledRipgrep(): string | undefined {
  const binary = process.platform === 'win32' ? 'rg.exe' : 'rg';
  for (const folder of ['node_modules/@vscode/ripgrep/bin', 'node_modules.asar.unpacked/@vscode/ripgrep/bin']) {
    const candidate = path.join(vscode.env.appRoot, folder, binary);
    if (fs.existsSync(candidate)) return candidate;
  }
  return undefined;
}
