/**
 * `skill` (`{ "name": "<name>" }`): loads a skill's instructions and lists its files (skills/ reads
 * and checks them; the system prompt lists the skills, skills/present.ts).
 */
import { findSkill, SKILL_TOOL, skillResultText } from '../skills/present';
import type { SkillDefinition } from '../skills/skills';
import * as z from '../zod';
import { defineTool, nonBlankString } from './toolInput';
import type { ToolDefinition } from './types';
import { verbatim } from '../texts/userText';

export { SKILL_TOOL } from '../skills/present';

const skillInput = z
  .object({ name: nonBlankString().describe('The skill\'s name, as listed ("pdf-processing").') })
  // The model is told no other parameter exists; one it adds anyway is dropped.
  .meta({ additionalProperties: false })
  .transform(({ name }) => ({ name: name.trim() }));

export type SkillInput = z.output<typeof skillInput>;

export function createSkillTool(skills: readonly SkillDefinition[]): ToolDefinition<SkillInput> {
  return defineTool({
    name: SKILL_TOOL,
    kind: 'read',
    context: { kind: 'other' },
    description:
      "Load a skill's instructions by name (the skills are listed in the system prompt). Returns the skill's instructions and the paths of the files beside them, which you read with read_file. " +
      'Call it when a task matches a skill, before starting the task.',
    input: skillInput,
    headline(input) {
      return verbatim(input.name);
    },
    async run(input) {
      return { content: await skillResultText(findSkill(skills, input.name)) };
    },
  });
}
