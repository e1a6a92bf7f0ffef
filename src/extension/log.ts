import * as vscode from 'vscode';
import { errorMessage, redactingLogger, type Logger } from '../core/logger';
import { redactUrlSecrets } from '../core/model/errors';
import type { SecretRedactor } from '../core/secrets';

/**
 * The core's Logger over a LogOutputChannel ("Evergreen" in the Output panel; level set by the
 * user). Every line is redacted like the CLI's: a base URL may carry a password or a key in its
 * query, and the Output panel is easy to paste into a bug report. The keys the sessions learned go
 * through `redactor`, the one the panel's messages pass too.
 */
export function createLog(redactor: SecretRedactor): { logger: Logger; channel: vscode.LogOutputChannel } {
  const channel = vscode.window.createOutputChannel('Evergreen', { log: true });
  const plain: Logger = {
    debug: (message) => channel.debug(message),
    info: (message) => channel.info(message),
    warn: (message) => channel.warn(message),
    error: (message, error) => channel.error(error === undefined ? message : `${message}: ${errorMessage(error)}`),
  };
  return { logger: redactingLogger(plain, (text) => redactUrlSecrets(redactor.text(text))), channel };
}
