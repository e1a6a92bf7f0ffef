/**
 * The skills as the model sees them: one short list in the system prompt (names and descriptions,
 * sorted, capped, so the cached prefix is the same for the same skills), and what the `skill` tool
 * returns for one (SKILL.md's body, read fresh and capped, then the files beside it as paths
 * read_file takes). What it returns is a tool result like any other: the tiers and `recall` treat
 * it as such. Scripts in a skill run through run_shell under the normal approvals and sandbox.
 */
import * as path from 'node:path';
import { ToolExecutionError } from '../errors';
import { oneLine } from '../visibleText';
import { nearNames, wordList } from '../definitions/near';
import { readDefinitionText } from '../definitions/files';
import { parseFrontmatter } from '../definitions/frontmatter';
import { SKILL_FILE, SKILL_LIMITS, skillFiles, type SkillDefinition } from './skills';

/** The tool that loads a skill, as the listing names it. */
export const SKILL_TOOL = 'skill';

/** Opens the skills section of a system prompt (the gauge's "Skills" line counts from here to the section's end). */
export const SKILLS_MARK = '# Skills\n';

const byName = (a: SkillDefinition, b: SkillDefinition): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * The system prompt's list of skills (undefined without skills): sorted by name, at most
 * `maxChars`; the skills past the cap are named without their descriptions, then counted.
 */
export function skillsListing(skills: readonly SkillDefinition[], maxChars: number = SKILL_LIMITS.listingChars): string | undefined {
  if (skills.length === 0) return undefined;
  const head = `${SKILLS_MARK}Skills are instructions for particular kinds of task, often with scripts and reference files beside them. When a task matches a skill's description, call the \`${SKILL_TOOL}\` tool with its name before you start, and follow what it returns. Load only the skills the task needs.\n`;
  const sorted = [...skills].sort(byName);
  const lines: string[] = [];
  let used = head.length;
  let index = 0;
  for (; index < sorted.length; index++) {
    const line = `- ${sorted[index]!.name}: ${oneLine(sorted[index]!.description, SKILL_LIMITS.descriptionChars)}`;
    if (used + line.length + 1 > maxChars) break;
    lines.push(line);
    used += line.length + 1;
  }
  const rest = sorted.slice(index).map((skill) => skill.name);
  if (rest.length > 0) {
    const names: string[] = [];
    const tail = (shown: number) => `- More skills (call ${SKILL_TOOL} to read what one is for): ${rest.slice(0, shown).join(', ')}${shown < rest.length ? `, and ${rest.length - shown} more` : ''}`;
    for (const name of rest) {
      if (used + tail(names.length + 1).length + 1 > maxChars) break;
      names.push(name);
    }
    lines.push(tail(names.length));
  }
  return `${head}${lines.join('\n')}`;
}

function sizeText(bytes: number): string {
  return bytes >= 1024 ? `${Math.round(bytes / 1024)} KB` : `${bytes} bytes`;
}

/** The body, cut at a line break before the cap, with where the rest starts (a 1-based line of SKILL.md). */
function cappedBody(text: string, body: string): { body: string; restFromLine?: number } {
  const trimmed = body.trim();
  if (trimmed.length <= SKILL_LIMITS.bodyChars) return { body: trimmed };
  const cut = trimmed.lastIndexOf('\n', SKILL_LIMITS.bodyChars);
  const kept = trimmed.slice(0, cut > SKILL_LIMITS.bodyChars / 2 ? cut : SKILL_LIMITS.bodyChars);
  const keptAt = text.indexOf(kept);
  const restFromLine = (keptAt < 0 ? 0 : text.slice(0, keptAt + kept.length).split('\n').length) + 1;
  return { body: kept, restFromLine };
}

/** What the tool returns for one skill: its instructions (fresh from disk, capped) and its files. */
export async function skillResultText(skill: SkillDefinition): Promise<string> {
  const skillFile = path.join(skill.folderReal, SKILL_FILE);
  const shownFile = skill.origin.scope === 'workspace' ? `${skill.folderShown}/${SKILL_FILE}` : skillFile;
  const read = await readDefinitionText(skill.access, { absolute: skillFile, shown: skill.origin.file });
  if (read.kind === 'refused') throw new ToolExecutionError(`The skill "${skill.name}" cannot be read now: ${skill.origin.file} was not loaded (${read.reason}).`);
  const frontmatter = parseFrontmatter(read.text);
  const { body, restFromLine } = cappedBody(read.text, frontmatter.body);
  const files = await skillFiles(skill);
  const parts = [`Skill "${skill.name}" (${shownFile}):`, '', body === '' ? '(SKILL.md has no instructions after its frontmatter.)' : body];
  if (restFromLine !== undefined || read.truncated) {
    parts.push('', `[SKILL.md goes on past ${SKILL_LIMITS.bodyChars.toLocaleString('en-US')} characters: read the rest with read_file (path "${shownFile}"${restFromLine !== undefined ? `, offset ${restFromLine}` : ''}) when you need it.]`);
  }
  if (files.files.length > 0) {
    parts.push('', 'Files in this skill (read them with read_file when the instructions call for them; run its scripts with run_shell):');
    parts.push(...files.files.map((file) => `- ${file.path} (${sizeText(file.bytes)})`));
    if (files.more) parts.push(`- … more files than the ${SKILL_LIMITS.filesListed} listed; list the folder with list_files.`);
  } else {
    parts.push('', 'The skill has no other files.');
  }
  return parts.join('\n');
}

/** The message `/name args` sends for a skill: the agent loads it with the tool, so its body comes once, as a tool result. */
export function skillRequest(name: string, args: string): string {
  const ask = `Use the skill "${name}": load it with the ${SKILL_TOOL} tool, then follow its instructions.`;
  return args === '' ? ask : `${ask}\n\n${args}`;
}

/** The skill a name picks; a ToolExecutionError naming the near ones when there is none. */
export function findSkill(skills: readonly SkillDefinition[], name: string): SkillDefinition {
  const skill = skills.find((candidate) => candidate.name === name);
  if (skill) return skill;
  const near = nearNames(name, skills.map((candidate) => candidate.name));
  const hint = near.length > 0 ? ` Did you mean ${wordList(near.map((candidate) => `"${candidate}"`))}?` : '';
  throw new ToolExecutionError(`There is no skill named "${name}".${hint} The skills are listed in the system prompt${skills.length === 0 ? ' (none is installed)' : ''}.`);
}
