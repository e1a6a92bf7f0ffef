/**
 * The entry of dist/extension.js, the one Node bundle of both front ends: VS Code loads it as the
 * extension (`activate`, `deactivate`), and dist/cli.js, the command line's two-line launcher, runs
 * the CLI from it (`runCli`). The core is in the package once (esbuild.mjs). Each front end is
 * imported when it is first used, so loading the bundle starts neither: the CLI never touches
 * `vscode` (only the extension host has it), and the extension never installs the CLI's signal
 * handlers.
 */
import type * as Extension from './extension/extension';

let extension: typeof Extension | undefined;

export async function activate(context: Parameters<typeof Extension.activate>[0]): ReturnType<typeof Extension.activate> {
  extension ??= await import('./extension/extension');
  return extension.activate(context);
}

export function deactivate(): void {
  extension?.deactivate();
}

/** Runs the headless CLI on process.argv (src/cli/main.ts starts when it is loaded). */
export async function runCli(): Promise<void> {
  await import('./cli/main');
}
