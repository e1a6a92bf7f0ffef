/**
 * Skills in the Agent Skills format (agentskills.io): a folder with `SKILL.md` (frontmatter `name`
 * and `description`, then the instructions) and any files beside it, in `.evergreen/skills/`,
 * `.claude/skills/`, `.github/skills/` and the user's `~/.evergreen/skills/`, `~/.claude/skills/`.
 * Loading reads each SKILL.md once to check it (the spec's rules; a bad skill is a notice and the
 * others load); only names and descriptions reach the system prompt (listing.ts), the body only
 * through the `skill` tool (skillTool.ts).
 *
 * A skill's name is its folder's name, as Claude Code invokes it; the spec wants `name` to match
 * it, so a mismatch is reported, and a folder whose name breaks the rules takes a valid `name`.
 */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { errorMessage } from '../logger';
import { findEntries, openDefinitionFolder, readDefinitionText, untrustedNotices, type DefinitionFolder } from '../definitions/files';
import { listField, parseFrontmatter, textField } from '../definitions/frontmatter';
import { pickByName } from '../definitions/precedence';
import { sourcesFor, type DefinitionRoots, type DefinitionSource } from '../definitions/sources';
import { notice, type DefinitionNotice, type DefinitionOrigin } from '../definitions/types';
import { userText, type UserText } from '../texts/userText';
import { NodeWorkspace } from '../workspace/workspace';

/** The skills' numbers, each in one place. */
export const SKILL_LIMITS = {
  /** `name`: the spec's maximum. */
  nameChars: 64,
  /** `description`: the spec's maximum; a longer one is cut in the listing. */
  descriptionChars: 1024,
  /** The body the `skill` tool returns, at most (about 7,500 tokens; the spec recommends under 5,000): the rest is read with read_file. */
  bodyChars: 30_000,
  /** The system prompt's list of skills, at most; past it, names only. */
  listingChars: 6_000,
  /** Files a skill's folder lists, at most. */
  filesListed: 100,
} as const;

export const SKILL_FILE = 'SKILL.md';

export interface SkillDefinition {
  name: string;
  description: string;
  origin: DefinitionOrigin;
  /** Real path of the skill's folder. */
  folderReal: string;
  /** The folder as the model is told it (and passes paths in it to read_file): workspace-relative, or absolute for the user's own. */
  folderShown: string;
  /** How its files are read: confined to the workspace, or to the user's skill folder. */
  access: DefinitionFolder;
}

/** Why a skill name breaks the spec's rules; undefined when it keeps them. */
export function skillNameProblem(name: string): UserText | undefined {
  if (name.length === 0) return userText('customization.skillNameEmpty', {});
  if (name.length > SKILL_LIMITS.nameChars) return userText('customization.skillNameTooLong', { length: name.length, limit: SKILL_LIMITS.nameChars });
  if (name !== name.toLowerCase()) return userText('customization.skillNameCapitals', {});
  if (!/^[\p{L}\p{N}-]+$/u.test(name)) return userText('customization.skillNameCharacters', {});
  if (name.startsWith('-') || name.endsWith('-')) return userText('customization.skillNameHyphenEnds', {});
  if (name.includes('--')) return userText('customization.skillNameDoubleHyphen', {});
  return undefined;
}

/** One skill folder: its real path and the confinement its files are read under (undefined: refused, with a notice). */
async function openSkillFolder(folder: DefinitionFolder, absolute: string, shown: string, notices: DefinitionNotice[]): Promise<DefinitionFolder | undefined> {
  try {
    if (folder.source.scope === 'workspace') {
      const real = await folder.workspace.resolve(absolute);
      if (!(await fsp.stat(real)).isDirectory()) return undefined;
      return { ...folder, real };
    }
    // The user's own skill may be a link to a folder elsewhere (Claude Code follows it too); its files stay confined there.
    const real = await fsp.realpath(absolute);
    if (!(await fsp.stat(real)).isDirectory()) return undefined;
    const workspace = new NodeWorkspace(real);
    return { source: folder.source, real, workspace, shown: (file) => (file === real ? shown : `${shown}/${path.relative(real, file).split(path.sep).join('/')}`) };
  } catch (error) {
    notices.push(notice('unreadable', shown, userText('customization.skillFolderNotLoaded', { folder: shown, error: errorMessage(error) })));
    return undefined;
  }
}

function nameOf(fields: Record<string, unknown>, folderName: string, shown: string, notices: DefinitionNotice[]): string | undefined {
  const given = textField(fields, 'name').value?.normalize('NFKC');
  const folderProblem = skillNameProblem(folderName);
  // A name that is missing or not text is "none" here: the notice says there is no name.
  const givenProblem = given === undefined ? 'none' : skillNameProblem(given);
  if (givenProblem === undefined && given !== folderName) {
    notices.push(notice('invalid-field', shown, userText('customization.skillNameMismatch', { file: shown, name: given!, folderName, listed: folderProblem === undefined ? folderName : given! })));
  }
  if (givenProblem !== undefined && given !== undefined && givenProblem !== 'none') {
    const text = folderProblem === undefined ? userText('customization.skillNameInvalidFolderUsed', { file: shown, name: given, problem: givenProblem, folderName }) : userText('customization.skillNameInvalid', { file: shown, name: given, problem: givenProblem });
    notices.push(notice('invalid-field', shown, text));
  } else if (givenProblem !== undefined) {
    notices.push(notice('invalid-field', shown, folderProblem === undefined ? userText('customization.skillNoNameFolderUsed', { file: shown, folderName }) : userText('customization.skillNoName', { file: shown })));
  }
  if (folderProblem === undefined) return folderName;
  if (givenProblem === undefined) return given;
  notices.push(notice('invalid-field', shown, userText('customization.skillNoValidName', { file: shown, folderName, limit: SKILL_LIMITS.nameChars })));
  return undefined;
}

/** Reads and checks one skill; undefined (with notices) when it cannot be used. */
async function loadSkill(folder: DefinitionFolder, entry: { absolute: string; shown: string; name: string }, notices: DefinitionNotice[]): Promise<SkillDefinition | undefined> {
  const skillFolder = await openSkillFolder(folder, entry.absolute, entry.shown, notices);
  if (!skillFolder) return undefined;
  const fileShown = `${entry.shown}/${SKILL_FILE}`;
  const read = await readDefinitionText(skillFolder, { absolute: path.join(skillFolder.real, SKILL_FILE), shown: fileShown });
  if (read.kind === 'refused') {
    const missing = !(await fsp.lstat(path.join(skillFolder.real, SKILL_FILE)).then(() => true, () => false));
    notices.push(missing ? notice('unreadable', entry.shown, userText('customization.skillNoFile', { folder: entry.shown })) : read.notice);
    return undefined;
  }
  notices.push(...read.notices);
  const frontmatter = parseFrontmatter(read.text);
  if (frontmatter.kind !== 'ok') {
    const problem = frontmatter.kind === 'none' ? userText('customization.skillNoFrontmatter', {}) : frontmatter.problem;
    notices.push(notice('invalid-frontmatter', fileShown, userText('customization.skillNotLoaded', { file: fileShown, problem })));
    return undefined;
  }
  const name = nameOf(frontmatter.fields, entry.name, fileShown, notices);
  if (name === undefined) return undefined;
  const description = textField(frontmatter.fields, 'description');
  if (description.value === undefined) {
    const text = description.problem ? userText('customization.skillBadDescription', { file: fileShown, problem: description.problem }) : userText('customization.skillNoDescription', { file: fileShown });
    notices.push(notice('invalid-field', fileShown, text, { name }));
    return undefined;
  }
  if (description.value.length > SKILL_LIMITS.descriptionChars) {
    notices.push(notice('cut', fileShown, userText('customization.skillDescriptionLong', { file: fileShown, length: description.value.length, limit: SKILL_LIMITS.descriptionChars }), { name }));
  }
  const bodyChars = frontmatter.body.trim().length;
  if (read.truncated || bodyChars > SKILL_LIMITS.bodyChars) {
    notices.push(notice('cut', fileShown, userText('customization.skillBodyLong', { file: fileShown, limit: SKILL_LIMITS.bodyChars }), { name }));
  }
  if (listField(frontmatter.fields, 'allowed-tools').value?.length) {
    notices.push(notice('grant-ignored', fileShown, userText('customization.skillGrantIgnored', { file: fileShown }), { name }));
  }
  const folderShown = folder.source.scope === 'workspace' ? skillFolder.workspace.displayPath(skillFolder.real) : skillFolder.real;
  return {
    name,
    description: description.value,
    origin: { scope: folder.source.scope, format: folder.source.format, source: folder.source.label, file: fileShown, real: read.real },
    folderReal: skillFolder.real,
    folderShown,
    access: skillFolder,
  };
}

async function skillsOf(source: DefinitionSource, notices: DefinitionNotice[]): Promise<SkillDefinition[]> {
  const opened = await openDefinitionFolder(source);
  notices.push(...opened.notices);
  const folder = opened.folder;
  if (!folder) return [];
  const skills: SkillDefinition[] = [];
  const entries = await fsp.readdir(folder.real, { withFileTypes: true }).catch((error: unknown) => {
    notices.push(notice('unreadable', source.label, userText('customization.skillsNotListed', { folder: source.label, error: errorMessage(error) })));
    return [];
  });
  const names = entries.filter((entry) => !entry.name.startsWith('.') && (entry.isDirectory() || entry.isSymbolicLink())).map((entry) => entry.name).sort();
  for (const name of names) {
    const absolute = path.join(folder.real, name);
    const skill = await loadSkill(folder, { absolute, shown: folder.shown(absolute), name: name.normalize('NFKC') }, notices);
    if (skill) skills.push(skill);
  }
  return skills;
}

/** Every skill that loaded, one per name (the user's over the workspace's), and notices for the rest. */
export async function loadSkills(roots: DefinitionRoots): Promise<{ skills: SkillDefinition[]; notices: DefinitionNotice[] }> {
  const { sources, untrusted } = sourcesFor('skill', roots);
  const notices: DefinitionNotice[] = await untrustedNotices(untrusted, 'skill');
  const all: SkillDefinition[] = [];
  for (const source of sources) all.push(...(await skillsOf(source, notices)));
  const picked = pickByName(all, 'skill');
  return { skills: picked.winners, notices: [...notices, ...picked.notices] };
}

/** Folders read_file must be able to read for the user's own skills (the session adds them as read-only roots). */
export function skillReadRoots(skills: readonly SkillDefinition[]): string[] {
  return skills.filter((skill) => skill.origin.scope === 'user').map((skill) => skill.folderReal);
}

/** A skill's files beside SKILL.md, as the model may pass them to read_file, with their sizes. */
export async function skillFiles(skill: SkillDefinition): Promise<{ files: { path: string; bytes: number }[]; more: boolean; notices: DefinitionNotice[] }> {
  const found = await findEntries(skill.access, skill.folderReal, { suffixes: [], recursive: true });
  const files: { path: string; bytes: number }[] = [];
  for (const entry of found.entries) {
    if (entry.absolute === path.join(skill.folderReal, SKILL_FILE)) continue;
    const stat = await fsp.lstat(entry.absolute).catch(() => undefined);
    if (!stat?.isFile()) continue; // links and special files are not offered: read_file would refuse them or read outside
    if (files.length >= SKILL_LIMITS.filesListed) return { files, more: true, notices: found.notices };
    const shownPath = skill.origin.scope === 'workspace' ? skill.access.workspace.displayPath(entry.absolute) : entry.absolute;
    files.push({ path: shownPath, bytes: stat.size });
  }
  return { files, more: false, notices: found.notices };
}
