/**
 * A session as one archive (issue 32): a run in CI comes home as a chat. The archive's root holds
 * a manifest and the session's folder:
 *
 *   evergreen-run.json      the manifest: the session, where it ran, and every file's size and SHA-256
 *   session/meta.json, session/transcript.jsonl, session/tool-results/…, session/images/…,
 *   session/mcp-files/…, session/checkpoints/index.json and blobs/…, session/subagents/<id>/…
 *
 * GitHub serves an uploaded folder as a .zip of its contents, so the same layout is the artifact
 * folder, the .zip GitHub serves and the file `--export-session` writes. Only the names below can be
 * in an archive: anything else (a lock, a sandbox's held files, the checkpoints' shadow Git
 * repository, whose configuration Git would obey) is never exported and refuses an import.
 */
import * as z from '../zod';
import { SESSION_ID_PATTERN } from '../storage/sessionStore';

export const MANIFEST_NAME = 'evergreen-run.json';
export const SESSION_FOLDER = 'session';
export const ARCHIVE_FORMAT = 'evergreen-session';
export const ARCHIVE_VERSION = 1;

/** What one archive may hold: an archive over these is refused before anything is written. */
export const ARCHIVE_LIMITS = {
  maxEntries: 20_000,
  /** Every file's size together, as the manifest and the zip's directory declare it. */
  maxTotalBytes: 2 * 1024 ** 3,
  maxManifestBytes: 8 * 1024 ** 2,
} as const;

/** A file name Evergreen writes into a session's folders: no leading dot (so never `.` or `..`), no separator. */
const NAME = '(?!\\.)[A-Za-z0-9._-]{1,200}';
const SESSION_ID = SESSION_ID_PATTERN.source.replace(/^\^|\$$/g, '');
/** A session's files, relative to its folder (a subagent's folder has the same, without checkpoints or subagents). */
const SESSION_FILES = `meta\\.json|transcript\\.jsonl|tool-results/${NAME}|images/${NAME}|mcp-files/${NAME}`;
const ARCHIVE_NAME = new RegExp(
  `^(?:${MANIFEST_NAME.replace('.', '\\.')}|${SESSION_FOLDER}/(?:${SESSION_FILES}|checkpoints/index\\.json|checkpoints/blobs/[a-f0-9]{64}|subagents/${SESSION_ID}/(?:${SESSION_FILES})))$`,
);

/** Why `name` cannot be a file of an archive, or undefined when it can (then it stays inside the session's folder). */
export function archiveNameProblem(name: string): string | undefined {
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name) || name.includes('\\')) return 'an absolute path or a backslash';
  if (name.split('/').some((part) => part === '..' || part === '.')) return 'a ".." or "." part';
  if (!ARCHIVE_NAME.test(name)) return 'not a file of an Evergreen session';
  return undefined;
}

const FileRecordSchema = z.object({ bytes: z.number().int().nonnegative(), sha256: z.string().regex(/^[a-f0-9]{64}$/) });

/** Where the session ran, when it ran in CI (all of it informational: nothing here is trusted for paths). */
const RunSchema = z.object({
  id: z.string().max(200).optional(),
  url: z.string().max(2000).optional(),
  branch: z.string().max(500).optional(),
  commit: z.string().max(100).optional(),
  baseRef: z.string().max(500).optional(),
});

export const ManifestSchema = z.object({
  format: z.literal(ARCHIVE_FORMAT),
  version: z.literal(ARCHIVE_VERSION),
  sessionId: z.string().regex(SESSION_ID_PATTERN),
  exportedAt: z.string().max(100),
  /** The repository the session worked on, as `host/owner/name` (see repository.ts); absent when it had no remote. */
  repository: z.string().max(500).optional(),
  /** The workspace folder the session ran in (a runner's path for a CI run). */
  workspaceRoot: z.string().max(4096).optional(),
  run: RunSchema.optional(),
  /** Every file of the archive but the manifest, by its archive name. */
  files: z.record(z.string(), FileRecordSchema),
});

export type ArchiveManifest = z.infer<typeof ManifestSchema>;
export type ArchiveRun = z.infer<typeof RunSchema>;
export type ArchiveFileRecord = z.infer<typeof FileRecordSchema>;

export type ArchiveProblemKind = 'not-an-archive' | 'corrupt' | 'unsafe' | 'too-large' | 'unsupported' | 'already-imported';

/** Why an archive was refused; nothing of it was written. */
export class SessionArchiveError extends Error {
  override name = 'SessionArchiveError';
  constructor(
    readonly kind: ArchiveProblemKind,
    message: string,
  ) {
    super(message);
  }
}

/** The manifest's text checked: a refusal names the field that is wrong. */
export function parseManifest(text: string): ArchiveManifest {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new SessionArchiveError('corrupt', `${MANIFEST_NAME} is not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  if (typeof raw === 'object' && raw !== null && (raw as { format?: unknown }).format === ARCHIVE_FORMAT && (raw as { version?: unknown }).version !== ARCHIVE_VERSION) {
    throw new SessionArchiveError('unsupported', `this archive's format version is ${JSON.stringify((raw as { version?: unknown }).version)}; this Evergreen reads version ${ARCHIVE_VERSION} (update Evergreen to import it)`);
  }
  const parsed = ManifestSchema.safeParse(raw);
  if (!parsed.success) {
    const problem = z.zodProblem(parsed.error, MANIFEST_NAME, raw);
    throw new SessionArchiveError('corrupt', `${problem.where}: ${problem.message}`);
  }
  for (const name of Object.keys(parsed.data.files)) {
    const problem = name === MANIFEST_NAME ? 'the manifest itself' : archiveNameProblem(name);
    if (problem) throw new SessionArchiveError('unsafe', `${MANIFEST_NAME} lists ${JSON.stringify(name)}: ${problem}`);
  }
  return parsed.data;
}
