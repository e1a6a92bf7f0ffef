/**
 * What a tool card shows besides the result's text (web_fetch's final URL, status and size), as the
 * transcript keeps it: a display-only `event` entry named `tool_card`, written when the call ends,
 * so a resumed chat shows the card as it was. The fold hands it to the display builder, which puts
 * it on the call's `tool_call_finished`. Checked with a zod schema where it is read; a malformed one
 * is skipped (the card shows the text alone), never fatal.
 */
import type { WebFetchDetails } from '../tools/types';
import * as z from '../zod';

export const TOOL_CARD_RECORD = 'tool_card';

const WebFetchDetailsSchema = z.object({
  url: z.string(),
  status: z.number().int(),
  contentType: z.string().optional(),
  bytes: z.number().int().nonnegative(),
  truncated: z.boolean(),
  redirects: z.array(z.string()).optional(),
  fromCache: z.literal(true).optional(),
});
z.sameType<z.infer<typeof WebFetchDetailsSchema>, WebFetchDetails>(true);

const ToolCardSchema = z.object({ toolUseId: z.string(), web: WebFetchDetailsSchema });

export type ToolCard = z.infer<typeof ToolCardSchema>;

/** The entry's data for one call's card. */
export function toolCardRecordData(card: ToolCard): Record<string, unknown> {
  return { toolUseId: card.toolUseId, web: card.web };
}

/** The card a recorded entry holds; undefined for a malformed one. */
export function toolCardFromRecord(data: Record<string, unknown>): ToolCard | undefined {
  const parsed = ToolCardSchema.safeParse(data);
  return parsed.success ? parsed.data : undefined;
}
