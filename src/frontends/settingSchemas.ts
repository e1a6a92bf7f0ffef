/**
 * The JSON schema of each object setting, derived from the zod schema that parses it, so what the
 * Settings editor checks as the user types and what Evergreen accepts cannot drift apart. The
 * manifest generator puts each into package.json's `contributes.configuration` beside the row of
 * the settings table (settingsTable.ts) of the same key.
 */
import { ContextOverridesSchema } from '../core/context/defaults';
import { HooksSettingSchema } from '../core/hooks/config';
import { McpServersSettingSchema } from '../core/mcp/config';
import { PriceOverridesSchema } from '../core/model/models';
import * as z from '../core/zod';
import type { SettingKey } from './settingsTable';

/** A JSON schema as the manifest holds it (draft 7, which VS Code's settings editor reads). */
export type SettingJsonSchema = Readonly<Record<string, unknown>>;

/**
 * As the user writes the value (zod's input side: `${env:…}` not yet expanded), without `$schema`,
 * which a property of the manifest does not take.
 */
function settingJsonSchema(schema: z.ZodType): SettingJsonSchema {
  // A shared part's `id` names its entry in `definitions`; draft 7 would read it as a base URI.
  const override = (context: { jsonSchema: Record<string, unknown> }) => void delete context.jsonSchema.id;
  const { $schema: _dialect, ...jsonSchema } = z.toJSONSchema(schema, { target: 'draft-7', io: 'input', override });
  return jsonSchema;
}

/** Every object setting's schema, by its key in the settings table. */
export const SETTING_JSON_SCHEMAS = {
  pricing: settingJsonSchema(PriceOverridesSchema),
  compression: settingJsonSchema(ContextOverridesSchema),
  'mcp.servers': settingJsonSchema(McpServersSettingSchema),
  hooks: settingJsonSchema(HooksSettingSchema),
} as const satisfies Partial<Record<SettingKey, SettingJsonSchema>>;
