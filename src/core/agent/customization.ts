/**
 * Skills and memory in a session (issue 28): what the factory loads at a start, what the system
 * prompt lists of them, and what the tools are built with. Only names and descriptions of skills and
 * a short listing of memory reach the prompt, in the cached prefix; a skill's body or a memory note
 * reaches the model only as a tool result, which the tiers and `recall` treat like any other.
 */
import * as os from 'node:os';
import { definitionNoticeLevel, type DefinitionNotice } from '../definitions/types';
import { errorMessage, type Logger } from '../logger';
import { memoryListing } from '../memory/view';
import { sectionStart } from '../promptSections';
import { redactSecrets, type KnownSecret } from '../secrets';
import { skillsListing, SKILLS_MARK } from '../skills/present';
import { loadSkills, skillReadRoots, type SkillDefinition } from '../skills/skills';
import { userText, type UserText } from '../texts/userText';
import type { MemoryToolOptions } from '../tools/memory';
import type { PromptSections } from './systemPrompt';

/** Skills for the session: where `~` is (the CLI passes its environment's HOME); absent in AgentConfig: no skills. */
export interface SkillSettings {
  home?: string | undefined;
}

/** Memory for the session (`evergreen.memory.enabled`, `--no-memory`): the folder `/memories` maps to; absent in AgentConfig: no memory. */
export interface MemorySettings {
  folder: string;
}

/** A notice for the user at the start (each front end words it). */
export interface CustomizationNotice {
  level: 'warning' | 'info';
  message: UserText;
}

export interface SessionSkills {
  /** The skills the `skill` tool serves (undefined: the tool is not offered). */
  offered: SkillDefinition[] | undefined;
  /** The folders read_file must read (the user's own skills live outside the workspace). */
  readRoots: string[];
  notices: CustomizationNotice[];
}

const noticeOf = (notice: DefinitionNotice): CustomizationNotice => ({ level: definitionNoticeLevel(notice), message: notice.message });

/**
 * The session's skills, loaded from the five folders (only the user's own in an untrusted workspace).
 * `recordedPrompt`: a resumed session's prompt, which keeps its list as it was: the tool is offered
 * only when that list exists, so a resume sends the same tools and prompt as before (the cached
 * prefix stays); a skill it names that is gone is one the tool says is gone.
 */
export async function loadSessionSkills(settings: SkillSettings | undefined, where: { workspaceRoot: string; trusted: boolean; recordedPrompt: string | undefined }): Promise<SessionSkills> {
  if (!settings) return { offered: undefined, readRoots: [], notices: [] };
  const loaded = await loadSkills({ workspaceRoot: where.workspaceRoot, workspaceTrusted: where.trusted, home: settings.home ?? os.homedir() });
  const listed = where.recordedPrompt === undefined ? loaded.skills.length > 0 : sectionStart(where.recordedPrompt, SKILLS_MARK) >= 0;
  return { offered: listed ? loaded.skills : undefined, readRoots: skillReadRoots(loaded.skills), notices: loaded.notices.map(noticeOf) };
}

/** The memory tool's options: read-only in an untrusted workspace (nothing there writes, memory included). */
export function memoryToolOptions(settings: MemorySettings | undefined, trusted: boolean): MemoryToolOptions | undefined {
  return settings ? { folder: settings.folder, ...(trusted ? {} : { readOnly: true }) } : undefined;
}

/**
 * The skills and memory sections of a new system prompt. The memory listing is what the model wrote
 * in earlier chats: known secrets are taken out of it like out of any tool result. A listing that
 * cannot be read is left out, with a notice; the chat goes on.
 */
export async function customizationSections(
  skills: SessionSkills,
  memory: MemorySettings | undefined,
  secrets: readonly KnownSecret[],
  logger: Logger,
): Promise<{ sections: Pick<PromptSections, 'skills' | 'memory'>; notices: CustomizationNotice[] }> {
  const notices: CustomizationNotice[] = [];
  let listing: string | undefined;
  if (memory) {
    try {
      listing = redactSecrets(await memoryListing(memory.folder), secrets);
    } catch (error) {
      logger.warn(`memory listing of ${memory.folder} failed: ${errorMessage(error)}`);
      notices.push({ level: 'warning', message: userText('customization.memoryNotListed', { error: errorMessage(error) }) });
    }
  }
  return { sections: { skills: skills.offered ? skillsListing(skills.offered) : undefined, memory: listing }, notices };
}
