/**
 * The host's side of the panel's requests (protocol.ts, `WebviewRequests`): a zod schema for each,
 * since the panel is the less trusted context and this is where what it sends arrives, and the
 * answer to each request (a typed value, or an error with its next steps). Host only: the panel's
 * bundle stays free of zod, and it trusts what the host sends it. Pure (no vscode import), so unit
 * tests run it in plain node.
 */
import * as l10n from '@vscode/l10n';
import * as z from '../core/zod';
import { GATHERED_ATTACHMENT_KINDS, MAX_ATTACHMENTS, WEBVIEW_COMMANDS, type AttachmentRequest, type WebviewReply, type WebviewRequest, type WebviewRequestName, type WebviewRequests, type WebviewToHost } from '../protocol';
import { actionsFor, errorText } from './errorHints';

/** Links, paths and queries the panel sends: longer ones are no real link or path. */
const MAX_LINK_CHARS = 4096;
/** A pasted image larger than this never leaves the panel (the models take 5 MB of base64; the host says why when it is over). */
const MAX_IMAGE_CHARS = 32 * 1024 * 1024;
/** A plan card's note: a message, not a document. */
const MAX_NOTE_CHARS = 100_000;
/** Base64 as a pasted image's bytes are sent. */
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

const line = z.number().int().min(1);
// Shape only: the host's tools confine a path to the workspace.
const path = z.string().min(1).max(MAX_LINK_CHARS);
const fileAttachment = z
  .object({ kind: z.literal('file'), path, fromLine: line.optional(), toLine: line.optional() })
  .refine((file) => (file.fromLine === undefined ? file.toLine === undefined : file.toLine !== undefined && file.toLine >= file.fromLine), { message: 'needs both lines, the first not after the last', path: ['toLine'] });
const imageAttachment = z.object({
  kind: z.literal('image'),
  name: z.string().min(1).max(200),
  // The size first, and alone: a larger string is not scanned.
  data: z.string().max(MAX_IMAGE_CHARS, { abort: true }).regex(BASE64, 'is not base64'),
});
const AttachmentRequestSchema = z.discriminatedUnion('kind', [fileAttachment, z.object({ kind: z.literal('folder'), path }), z.object({ kind: z.enum(GATHERED_ATTACHMENT_KINDS) }), imageAttachment]);
z.sameType<z.infer<typeof AttachmentRequestSchema>, AttachmentRequest>(true);

const checkpoint = z.object({ checkpoint: z.number().int().min(1) });

/** What each request carries, checked: the types in protocol.ts are what these accept (proved below). */
const REQUEST_SCHEMAS = {
  // Carries nothing (zod's empty object would type as Record<string, never>, which no `type` field could join).
  ready: z.object({}).transform((): Record<never, never> => ({})),
  sendMessage: z.object({ text: z.string(), attachments: z.array(AttachmentRequestSchema).max(MAX_ATTACHMENTS).optional() }),
  attachmentQuery: z.object({ query: z.string().max(MAX_LINK_CHARS) }),
  commandQuery: z.object({ query: z.string().max(MAX_LINK_CHARS) }),
  approvalDecision: z.object({ toolUseId: z.string(), approved: z.boolean(), always: z.boolean().optional() }),
  runCommand: z.object({ command: z.enum(WEBVIEW_COMMANDS) }),
  openTranscriptAt: z.object({ compactionIndex: z.number().int().nonnegative() }),
  // An id, never a path: the host finds the child under the current session itself.
  openSubagentTranscript: z.object({ childId: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,100}$/, 'is not a session id') }),
  openLink: z.object({ href: z.string().min(1).max(MAX_LINK_CHARS) }),
  // Shape only: where the file may be is the host's check (openSavedOutput in links.ts).
  openSavedOutput: z.object({ file: z.string().min(1).max(MAX_LINK_CHARS) }),
  restoreCheckpoint: checkpoint,
  editMessage: checkpoint,
  // Shape only: the host looks the name up among the modes there are.
  setMode: z.object({ mode: z.string().min(1).max(200) }),
  planDecision: z.object({ toolUseId: z.string().regex(/^[A-Za-z0-9_-]{1,200}$/, 'is not a tool-use id'), decision: z.enum(['build', 'keep_planning']), note: z.string().max(MAX_NOTE_CHARS).optional() }),
};
type RequestSchemas = typeof REQUEST_SCHEMAS;
z.sameType<{ [Name in WebviewRequestName]: z.infer<RequestSchemas[Name]> }, { [Name in WebviewRequestName]: WebviewRequests[Name][0] }>(true);

/** A request id as the panel numbers them. */
const RequestIdSchema = z.number().int().nonnegative();
const EnvelopeSchema = z.object({ type: z.enum(Object.keys(REQUEST_SCHEMAS) as [WebviewRequestName, ...WebviewRequestName[]]), requestId: RequestIdSchema });

/**
 * A message from the panel, checked against its request's schema; undefined when it is not one
 * (its type unknown, its id missing, a field of the wrong shape). Unknown fields are dropped.
 */
export function parseWebviewMessage(value: unknown): WebviewToHost | undefined {
  const envelope = EnvelopeSchema.safeParse(value);
  if (!envelope.success) return undefined;
  const request = REQUEST_SCHEMAS[envelope.data.type].safeParse(value);
  return request.success ? ({ ...request.data, ...envelope.data } as WebviewToHost) : undefined;
}

/** The id of a message the host refused, when it has one: its error reply goes there. */
export function requestIdOf(value: unknown): number | undefined {
  const id = z.object({ requestId: RequestIdSchema }).safeParse(value);
  return id.success ? id.data.requestId : undefined;
}

/**
 * What the host logs about a webview message it refused: its type only (never its text, which may
 * be the user's words), made printable and cut short, since the sender is less trusted.
 */
export function describeRejectedMessage(value: unknown): string {
  if (typeof value !== 'object' || value === null) return `a ${value === null ? 'null' : typeof value} instead of a message object`;
  const type = (value as Record<string, unknown>).type;
  if (typeof type !== 'string') return 'a message without a string "type"';
  const printable = type.replace(/[^\x20-\x7e]/g, '?');
  return `a "${printable.length > 40 ? `${printable.slice(0, 40)}…` : printable}" message that is unknown or malformed`;
}

/** The host's answer to each kind of request: its reply's value, or a throw, which becomes the error reply. */
export type WebviewRequestHandlers = { [Name in WebviewRequestName]: (request: WebviewRequest<Name>) => Promise<WebviewRequests[Name][1]> };

/** Runs the handler of a request's kind. */
export function handleWebviewRequest<Name extends WebviewRequestName>(handlers: WebviewRequestHandlers, request: WebviewRequest<Name>): Promise<WebviewRequests[Name][1]> {
  // One lookup by the request's own type: the map's type pairs each kind with its handler.
  const handler = handlers[request.type] as (request: WebviewRequest<Name>) => Promise<WebviewRequests[Name][1]>;
  return handler(request);
}

/**
 * The requests whose failure is a failed turn, answered with the core's next steps for it (Set API
 * Key, Retry, New Chat, …); any other request's failure is its message alone (a Retry button would
 * send the conversation again).
 */
const TURN_REQUESTS: ReadonlySet<WebviewRequestName> = new Set(['sendMessage', 'planDecision']);

/** Runs a checked request and answers it: its value, or its error in words (with next steps, for a turn). */
export async function answerWebviewRequest(message: WebviewToHost, handle: (request: WebviewRequest) => Promise<unknown>, post: (reply: WebviewReply) => void): Promise<void> {
  let reply: WebviewReply;
  try {
    // The handler of the message's own kind made the value (WebviewRequestHandlers pairs them).
    const value = (await handle(message)) as WebviewRequests[WebviewRequestName][1];
    reply = { type: 'reply', requestId: message.requestId, ok: true, value };
  } catch (error) {
    reply = { type: 'reply', requestId: message.requestId, ok: false, error: errorText(error), ...(TURN_REQUESTS.has(message.type) ? { actions: actionsFor(error) } : {}) };
  }
  post(reply);
}

/** The error reply to a request the host refused (its shape was wrong): the panel stops waiting for it. */
export function refusedReply(requestId: number): WebviewReply {
  return { type: 'reply', requestId, ok: false, error: l10n.t('Evergreen could not read this request from the chat panel, so it was not carried out (the log names it). Reload the window if it happens again.') };
}
