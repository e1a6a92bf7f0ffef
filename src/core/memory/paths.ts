/**
 * The memory's limits and its paths. The model names memory files as `/memories/…` (Anthropic's
 * memory tool); they map to a folder the caller gives (a per-workspace folder in Evergreen's
 * storage, outside the repository). A path is checked as text before anything touches the disk:
 * only `/memories` and below, no `.` or `..`, no empty part, no backslash, NUL or control
 * character, no hidden name (Evergreen's temporary files start with a dot), no name longer than
 * the cap, no deeper than the cap. On disk, a symbolic link anywhere on the way is refused (store.ts).
 */
import { ToolInputError } from '../errors';

/** The memory's numbers, each in one place. */
export const MEMORY_LIMITS = {
  /** One memory file, at most (bytes): memory holds notes, not documents. */
  fileBytes: 32 * 1024,
  /** The whole memory folder, at most (bytes). */
  folderBytes: 512 * 1024,
  /** Files in the memory folder, at most. */
  files: 500,
  /** Characters in one name of a path, at most. */
  nameChars: 100,
  /** Folders below /memories, at most (a file may sit in the deepest). */
  depth: 4,
  /** The listing a new chat's system prompt gets, at most (characters; about 500 tokens). */
  listingChars: 2_000,
  /** The first line the listing shows of a file, at most (characters). */
  firstLineChars: 100,
} as const;

export const MEMORY_ROOT = '/memories';

export interface MemoryPath {
  /** The names below /memories (empty: /memories itself). */
  segments: readonly string[];
  /** The path as Evergreen writes it back: `/memories/notes/api.md`. */
  shown: string;
}

/** Why one name of a path is refused; undefined when it is fine. */
function nameProblem(name: string): string | undefined {
  if (name === '') return 'it has an empty part ("//")';
  if (name === '.' || name === '..') return `"${name}" is not allowed: memory paths cannot step out of or around /memories`;
  if (name.includes('\0')) return 'it contains a NUL byte';
  if (/[\p{Cc}\p{Cf}\u2028\u2029]/u.test(name)) return 'it contains a control or invisible formatting character';
  if (/%(2e|2f|5c)/i.test(name)) return 'it contains a percent-encoded ".", "/" or "\\"';
  if (/[\\:*?"<>|]/.test(name)) return 'names may not contain \\ : * ? " < > |';
  if (name.startsWith('.')) return `"${name}" starts with a dot (hidden files are not memory)`;
  if (/[ .]$/.test(name)) return `"${name}" ends with a space or a dot`;
  if ([...name].length > MEMORY_LIMITS.nameChars) return `a name is longer than ${MEMORY_LIMITS.nameChars} characters`;
  return undefined;
}

/** Parses a path the model gave; throws ToolInputError saying exactly what is wrong. */
export function parseMemoryPath(input: string, parameter: string): MemoryPath {
  if (input.includes('\0')) throw new ToolInputError(`"${parameter}" contains a NUL byte; memory paths are plain text like /memories/notes.md.`);
  if (input.includes('\\')) throw new ToolInputError(`"${parameter}" contains a backslash; memory paths use "/" like /memories/notes.md.`);
  const trimmed = input.trim();
  if (trimmed !== MEMORY_ROOT && !trimmed.startsWith(`${MEMORY_ROOT}/`)) {
    throw new ToolInputError(`"${parameter}" must be ${MEMORY_ROOT} or a path below it (like ${MEMORY_ROOT}/notes.md), got ${JSON.stringify(input.length > 80 ? `${input.slice(0, 80)}…` : input)}.`);
  }
  const rest = trimmed.slice(MEMORY_ROOT.length + 1);
  const segments = rest === '' ? [] : rest.replace(/\/$/, '').split('/');
  for (const segment of segments) {
    const problem = nameProblem(segment);
    if (problem) throw new ToolInputError(`"${parameter}" is refused: ${problem}.`);
  }
  if (segments.length > MEMORY_LIMITS.depth + 1) throw new ToolInputError(`"${parameter}" is ${segments.length} levels below ${MEMORY_ROOT}; memory nests at most ${MEMORY_LIMITS.depth} folders deep.`);
  return { segments, shown: segments.length === 0 ? MEMORY_ROOT : `${MEMORY_ROOT}/${segments.join('/')}` };
}
