// The stub's shape as the bundle test reads it (test/system/cli.bundle.test.ts).
export class WindowsSandboxError extends Error {
  constructor(code: string, message: string, subcommand?: string);
  code: string;
  subcommand: string | undefined;
}
export const DEFAULT_WINDOWS_PROXY_PORT_RANGE: number[];
export const wrapCommandWithSandboxWindows: () => never;
