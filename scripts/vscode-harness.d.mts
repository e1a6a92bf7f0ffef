// Types of vscode-harness.mjs for TypeScript callers (test/e2e); keep in sync with it.
import type { Browser } from 'playwright-core';

export interface CodeServerOptions {
  /** Folder VS Code opens. */
  folder: string;
  /** Default: a temp dir removed by stop(). */
  userDataDir?: string;
  /** 0 (default) picks a free port. */
  port?: number;
  extraArgs?: string[];
  /** Extra environment; the extension host inherits it. */
  env?: Record<string, string>;
  onOutput?: (line: string) => void;
  startTimeoutMs?: number;
}

export interface CodeServer {
  /** http://127.0.0.1:PORT (no trailing slash) */
  url: string;
  port: number;
  userDataDir: string;
  /** Settles when code-server exits, with its exit code or signal. */
  exited: Promise<string>;
  /** Last lines of code-server's output and of the extension host log. */
  logTail(lines?: number): string;
  stop(): Promise<void>;
}

export function startCodeServer(options: CodeServerOptions): Promise<CodeServer>;
/** `code-server --install-extension` into the extensions dir startCodeServer uses for this userDataDir. */
export function installExtension(vsixPath: string, options: { userDataDir: string; env?: Record<string, string>; timeoutMs?: number }): Promise<string>;
export function launchChromium(options?: { executablePath?: string; args?: string[] }): Promise<Browser>;
export function makeTempDir(prefix: string): string;
export function findExtensionHostLog(userDataDir: string): string | undefined;
export function workbenchUrl(
  serverUrl: string,
  options?: { folder?: string; workspace?: string; extensionDevelopmentPath?: string; extensionTestsPath?: string },
): string;
