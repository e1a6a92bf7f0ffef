/**
 * Tier 0 (docs/architecture.md, "Context engine"): a tool result over 30 KB never enters the context whole. The full output
 * is written to the session's tool-results folder first; the context gets its size, line count,
 * path and a head + tail preview, and read_file can page through the file. If persisting fails
 * the result is cut head + tail at 50,000 characters instead. A tool that declares `persist: 'never'`
 * is exempt from persisting: it pages its own output (read_file: its results are already pages of a
 * file on disk, and re-persisting a read of a persisted output would loop; it caps its own output at
 * the persist threshold).
 */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import type { Logger } from '../logger';
import { builtInToolTraits } from '../tools/registry';
import { recallCall } from '../tools/recallRef';
import { countLines } from '../text';
import { CONTEXT_DEFAULTS, persistThresholdFor, type ContextDefaults } from './defaults';
import type { ToolTraitsLookup } from '../tools/types';
import { headTail, previewLines } from './text';

export const PERSISTED_MARK = '[Output too large for the context:';

/** A persisted tool result's file, carried as data: the chat links to it, the CLI and transcript print the path. */
export interface SavedOutput {
  toolName: string;
  /** Absolute path inside the session's tool-results folder. */
  file: string;
}

export interface Tier0Settings {
  persistThresholdBytes: number;
  previewMaxLines: number;
  previewMaxChars: number;
  truncateChars: number;
}

export interface Tier0Input {
  toolUseId: string;
  toolName: string;
  content: string;
}

export interface Tier0Outcome {
  content: string;
  persisted?: { file: string; bytes: number; lines: number };
  truncated?: { fromChars: number; toChars: number };
}

function safeFileStem(toolUseId: string): string {
  const stem = toolUseId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 100);
  return stem || 'result';
}

/** Writes the full output with O_EXCL so an existing file (a duplicate id) is never overwritten (hooks save their runs' output with it too). */
export async function writeNew(dir: string, stem: string, content: string): Promise<string> {
  await fsp.mkdir(dir, { recursive: true });
  for (let attempt = 0; attempt < 100; attempt++) {
    const file = path.join(dir, attempt === 0 ? `${stem}.txt` : `${stem}-${attempt}.txt`);
    try {
      await fsp.writeFile(file, content, { encoding: 'utf8', flag: 'wx' });
      return file;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  throw new Error(`could not find a free file name for ${stem} in ${dir}`);
}

/**
 * Where a "saved output" link may lead: `file` only if it is a regular file directly in
 * `toolResultsDir` (the current session's), after resolving symlinks and '..'; else undefined.
 * The request comes from the webview, so the path is untrusted like any model text.
 */
export async function savedOutputFile(file: string, toolResultsDir: string): Promise<string | undefined> {
  if (!path.isAbsolute(file)) return undefined;
  const [dir, target] = await Promise.all([fsp.realpath(toolResultsDir).catch(() => undefined), fsp.realpath(file).catch(() => undefined)]);
  if (!dir || !target || path.dirname(target) !== dir) return undefined;
  const stat = await fsp.stat(target).catch(() => undefined);
  return stat?.isFile() ? target : undefined;
}

export function persistedPreview(toolUseId: string, file: string, content: string, bytes: number, lines: number, settings: Tier0Settings): string {
  const { preview } = previewLines(content, settings.previewMaxLines, settings.previewMaxChars);
  return (
    `${PERSISTED_MARK} ${(bytes / 1024).toFixed(1)} KB, ${lines} lines. The full output is saved at ${file} — ` +
    `page through it with ${recallCall(toolUseId)} or read_file (path "${file}"), both with offset/limit, if you need more than this preview.]\n` +
    `Preview (head and tail):\n${preview}`
  );
}

/** `toolTraits`: the tools' declarations (absent: the built-in tools'). */
export async function applyTier0(
  input: Tier0Input,
  toolResultsDir: string | undefined,
  settings: Tier0Settings,
  logger: Logger,
  toolTraits: ToolTraitsLookup = builtInToolTraits,
): Promise<Tier0Outcome> {
  const bytes = Buffer.byteLength(input.content, 'utf8');
  if (bytes > settings.persistThresholdBytes && toolResultsDir && toolTraits(input.toolName).persist !== 'never') {
    try {
      const file = await writeNew(toolResultsDir, safeFileStem(input.toolUseId), input.content);
      const lines = countLines(input.content);
      logger.info(`tier 0: persisted ${input.toolName} output (${bytes} bytes, ${lines} lines) to ${file}`);
      return { content: persistedPreview(input.toolUseId, file, input.content, bytes, lines, settings), persisted: { file, bytes, lines } };
    } catch (error) {
      logger.error(`tier 0: could not persist ${input.toolName} output (${bytes} bytes); truncating it instead`, error);
    }
  }
  if (input.content.length > settings.truncateChars) {
    const cut = headTail(input.content, settings.truncateChars, 'output too large for the context');
    logger.info(`tier 0: truncated ${input.toolName} output from ${input.content.length} to ${cut.length} characters`);
    return { content: cut, truncated: { fromChars: input.content.length, toChars: cut.length } };
  }
  return { content: input.content };
}

export const TIER0_DEFAULTS: Tier0Settings = {
  persistThresholdBytes: CONTEXT_DEFAULTS.persistThresholdBytes,
  previewMaxLines: CONTEXT_DEFAULTS.previewMaxLines,
  previewMaxChars: CONTEXT_DEFAULTS.previewMaxChars,
  truncateChars: CONTEXT_DEFAULTS.truncateChars,
};


/** Tier 0's numbers for a window: small windows persist sooner, and cut what could not be persisted to a share of the window. */
export function tier0SettingsFor(window: number, settings: ContextDefaults): Tier0Settings {
  const truncateChars = Math.min(settings.truncateChars, Math.floor(window * settings.truncateMaxWindowShare * settings.charsPerToken));
  return { ...settings, persistThresholdBytes: persistThresholdFor(window, settings), truncateChars };
}
