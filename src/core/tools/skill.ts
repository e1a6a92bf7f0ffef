/**
 * `skill` (`{ "name": "<name>" }`): loads a skill's instructions and lists its files (skills/ reads
 * and checks them; the system prompt lists the skills, skills/present.ts).
 */
import { findSkill, SKILL_TOOL, skillResultText } from '../skills/present';
import type { SkillDefinition } from '../skills/skills';
import { Args } from './args';
import type { ToolDefinition } from './types';

export { SKILL_TOOL } from '../skills/present';

export interface SkillInput {
  name: string;
}

export function createSkillTool(skills: readonly SkillDefinition[]): ToolDefinition<SkillInput> {
  return {
    name: SKILL_TOOL,
    kind: 'read',
    context: { kind: 'other' },
    description:
      "Load a skill's instructions by name (the skills are listed in the system prompt). Returns the skill's instructions and the paths of the files beside them, which you read with read_file. " +
      'Call it when a task matches a skill, before starting the task.',
    inputSchema: {
      type: 'object',
      properties: { name: { type: 'string', description: 'The skill\'s name, as listed ("pdf-processing").' } },
      required: ['name'],
      additionalProperties: false,
    },
    parse(input) {
      return { name: Args.from(input, ['name']).requiredString('name', { nonEmpty: true }).trim() };
    },
    headline(input) {
      return input.name;
    },
    async run(input) {
      return { content: await skillResultText(findSkill(skills, input.name)) };
    },
  };
}
