import * as vscode from 'vscode';
import type { Logger } from '../core/logger';

/** The core's Logger over a LogOutputChannel ("Evergreen" in the Output panel; level set by the user). */
export function createLog(): { logger: Logger; channel: vscode.LogOutputChannel } {
  const channel = vscode.window.createOutputChannel('Evergreen', { log: true });
  const logger: Logger = {
    debug: (message) => channel.debug(message),
    info: (message) => channel.info(message),
    warn: (message) => channel.warn(message),
    error: (message, error) => channel.error(error === undefined ? message : `${message}: ${error instanceof Error ? error.message : String(error)}`),
  };
  return { logger, channel };
}
