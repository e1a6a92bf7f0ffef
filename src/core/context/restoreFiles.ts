/**
 * The files a compaction restores after its summary: which recently read files to re-read
 * (newest first, not visible in the kept part, whose read did not fail), what they would cost
 * (for the gauge's preview, no disk access), and the bounded re-read from disk itself.
 */
import type { MessageParam } from '../model/messages';
import { blocksOf, toolResultText, toolUsesOf, type ToolResultBlock } from '../model/content';
import { errorMessage, type Logger } from '../logger';
import type { RestoredFile } from '../storage/transcript';
import { builtInToolTraits } from '../tools/registry';
import type { ToolTraitsLookup } from '../tools/types';
import { openForRead, type Workspace } from '../workspace/workspace';
import { normalizedPath } from './compactionHelpers';

/** The engine's numbers a restore is sized by, and which tool calls read files. */
export interface RestoreLimits {
  /** The canonical index the current boundary keeps from (0 without one): reads before it are gone. */
  from: number;
  /** At most this many files. */
  files: number;
  /** At most this many tokens per file. */
  fileTokens: number;
  /** At most this many tokens for all of them. */
  budgetTokens: number;
  tokensPerChar: number;
  /** A file is restored only when at least this many characters of it fit (CONTEXT_DEFAULTS.restoreMinChars). */
  minChars: number;
  /** The tools' declarations (absent: the built-in tools'): a call of a tool of kind 'read' read the file its target names. */
  toolTraits?: ToolTraitsLookup | undefined;
}

/** The file a tool call read, by its tool's declaration; undefined for any other call. */
function readPath(use: { name: string; input: unknown }, toolTraits: ToolTraitsLookup = builtInToolTraits): string | undefined {
  const traits = toolTraits(use.name);
  return traits.kind === 'read' ? traits.target(use.input)?.path : undefined;
}

/** The files a summary would restore, sized by their last read in the summarized part (no disk access). */
export function restoreEstimateTokens(canonical: readonly MessageParam[], keptFrom: number, limits: RestoreLimits): number {
  if (limits.files <= 0) return 0;
  const resultChars = new Map<string, number>();
  for (let index = limits.from; index < keptFrom; index++) {
    for (const block of blocksOf(canonical[index]!)) if (block.type === 'tool_result' && !block.is_error) resultChars.set(block.tool_use_id, toolResultText(block).length);
  }
  const skip = new Set<string>();
  for (let index = keptFrom; index < canonical.length; index++) {
    for (const use of toolUsesOf(canonical[index]!)) {
      const target = readPath(use, limits.toolTraits);
      if (target !== undefined) skip.add(normalizedPath(target));
    }
  }
  let tokens = 0;
  let files = 0;
  for (let index = keptFrom - 1; index >= limits.from && files < limits.files; index--) {
    for (const use of toolUsesOf(canonical[index]!).reverse()) {
      const target = readPath(use, limits.toolTraits);
      const chars = resultChars.get(use.id);
      if (!target || chars === undefined || skip.has(normalizedPath(target)) || files >= limits.files) continue;
      skip.add(normalizedPath(target));
      files++;
      tokens += Math.min(limits.fileTokens, chars * limits.tokensPerChar);
    }
  }
  return Math.round(Math.min(tokens, limits.budgetTokens));
}

/**
 * The files a summary would restore: up to `limits.files` read recently (newest first), not visible in the
 * kept part, whose read did not fail; with the chars of their newest read (for the preview).
 */
export function restoreCandidates(
  canonical: readonly MessageParam[],
  keptFrom: number,
  limits: Pick<RestoreLimits, 'from' | 'files' | 'toolTraits'>,
): Array<{ path: string; readChars: number }> {
  const keptPaths = new Set<string>();
  for (let index = keptFrom; index < canonical.length; index++) {
    for (const use of toolUsesOf(canonical[index]!)) {
      const target = readPath(use, limits.toolTraits);
      if (target !== undefined) keptPaths.add(normalizedPath(target));
    }
  }
  const failed = new Set<string>();
  for (const message of canonical) for (const block of blocksOf(message)) if (block.type === 'tool_result' && block.is_error) failed.add(block.tool_use_id);
  const resultChars = new Map<string, number>();
  for (let index = keptFrom - 1; index >= limits.from; index--) {
    for (const block of blocksOf(canonical[index]!)) if (block.type === 'tool_result') resultChars.set(block.tool_use_id, toolResultText(block as ToolResultBlock).length);
  }
  const recent: string[] = [];
  const chars: number[] = [];
  for (let index = canonical.length - 1; index >= limits.from && recent.length < limits.files; index--) {
    const uses = toolUsesOf(canonical[index]!);
    for (let u = uses.length - 1; u >= 0; u--) {
      const use = uses[u]!;
      const target = readPath(use, limits.toolTraits);
      // A read that failed restores nothing; `./a.ts` and `a.ts` are one file.
      if (!target || failed.has(use.id)) continue;
      const key = normalizedPath(target);
      if (keptPaths.has(key) || recent.some((seen) => normalizedPath(seen) === key)) continue;
      if (recent.length < limits.files) {
        recent.push(target);
        chars.push(resultChars.get(use.id) ?? 0);
      }
    }
  }
  return recent.map((path, index) => ({ path, readChars: chars[index]! }));
}

/** The candidates re-read from disk, each capped, all within the budget; a file that cannot be read is logged and skipped. */
export async function restoreFiles(canonical: readonly MessageParam[], keptFrom: number, workspace: Workspace | undefined, limits: RestoreLimits, logger: Logger): Promise<RestoredFile[]> {
  if (!workspace || limits.files <= 0) return [];
  const recent = restoreCandidates(canonical, keptFrom, limits).map((candidate) => candidate.path);
  const budgetChars = limits.budgetTokens / limits.tokensPerChar;
  const perFileChars = Math.floor(limits.fileTokens / limits.tokensPerChar);
  let used = 0;
  const restored: RestoredFile[] = [];
  for (const target of recent) {
    try {
      const cap = Math.min(perFileChars, Math.floor(budgetChars - used));
      if (cap < limits.minChars) break;
      const absolute = await workspace.resolve(target);
      // Only regular files, and only the bytes the cap can use: a FIFO or a 1 GB file must not stall compaction.
      // Confined, non-blocking open and fstat of the handle: a swapped symlink or FIFO changes nothing.
      const handle = await openForRead(workspace, absolute);
      let buffer: Buffer;
      try {
        const stat = await handle.stat();
        if (!stat.isFile()) continue;
        buffer = Buffer.alloc(Math.min(stat.size, cap * 4));
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
        buffer = buffer.subarray(0, bytesRead);
      } finally {
        await handle.close();
      }
      if (buffer.subarray(0, 8192).includes(0)) continue;
      let content = buffer.toString('utf8');
      if (content.length > cap || buffer.length >= cap * 4) content = `${content.slice(0, cap)}\n[... file continues; read it with read_file (offset/limit) for the rest ...]`;
      used += content.length;
      restored.push({ path: workspace.displayPath(absolute), content });
    } catch (error) {
      logger.warn(`compaction: could not restore ${target}: ${errorMessage(error)}`);
    }
  }
  return restored;
}
