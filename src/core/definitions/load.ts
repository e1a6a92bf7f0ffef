/**
 * The files of every source of one kind (commands or modes), read and split into frontmatter and
 * body, in precedence order. A file that cannot be used is a notice; the others still load.
 */
import { DEFINITION_LIMITS, findEntries, openDefinitionFolder, readDefinitionText, untrustedNotices } from './files';
import { parseFrontmatter } from './frontmatter';
import { sourcesFor, type DefinitionRoots, type DefinitionSource } from './sources';
import { notice, type DefinitionNotice, type DefinitionOrigin } from './types';
import { userText } from '../texts/userText';

export interface DefinitionFile {
  source: DefinitionSource;
  origin: DefinitionOrigin;
  /** Its path below the source folder without the suffix ('/'-separated): `review`, `frontend/component`. */
  stem: string;
  /** The frontmatter's fields ({} without frontmatter). */
  fields: Record<string, unknown>;
  /** Whether the file had frontmatter at all. */
  hasFrontmatter: boolean;
  body: string;
}

const TOO_LARGE = { command: 'customization.commandTooLarge', mode: 'customization.modeTooLarge' } as const;

function stemOf(relative: string, suffixes: readonly string[]): string {
  const suffix = suffixes.find((candidate) => relative.endsWith(candidate)) ?? '';
  return relative.slice(0, relative.length - suffix.length);
}

/** Every command or mode file, in precedence order, with the notices of the files that could not be used. */
export async function loadDefinitionFiles(kind: 'command' | 'mode', roots: DefinitionRoots): Promise<{ files: DefinitionFile[]; notices: DefinitionNotice[] }> {
  const { sources, untrusted } = sourcesFor(kind, roots);
  const files: DefinitionFile[] = [];
  const notices: DefinitionNotice[] = await untrustedNotices(untrusted, kind);
  const seen = new Set<string>();
  for (const source of sources) {
    const opened = await openDefinitionFolder(source);
    notices.push(...opened.notices);
    const folder = opened.folder;
    if (!folder) continue;
    const found = await findEntries(folder, folder.real, { suffixes: source.suffixes, recursive: source.recursive });
    notices.push(...found.notices);
    for (const entry of found.entries) {
      const read = await readDefinitionText(folder, entry);
      if (read.kind === 'refused') {
        notices.push(read.notice);
        continue;
      }
      // One file reached twice (a link to another definition file) is one definition.
      if (seen.has(read.real)) continue;
      seen.add(read.real);
      notices.push(...read.notices);
      if (read.truncated) {
        notices.push(notice('unreadable', entry.shown, userText(TOO_LARGE[kind], { file: entry.shown, kilobytes: DEFINITION_LIMITS.fileBytes / 1024 })));
        continue;
      }
      const frontmatter = parseFrontmatter(read.text);
      if (frontmatter.kind === 'invalid') {
        notices.push(notice('invalid-frontmatter', entry.shown, userText('customization.fileNotLoaded', { file: entry.shown, problem: frontmatter.problem })));
        continue;
      }
      files.push({
        source,
        origin: { scope: source.scope, format: source.format, source: source.label, file: entry.shown, real: read.real },
        stem: stemOf(entry.relative, source.suffixes),
        fields: frontmatter.kind === 'ok' ? frontmatter.fields : {},
        hasFrontmatter: frontmatter.kind === 'ok',
        body: frontmatter.body,
      });
    }
  }
  return { files, notices };
}
