/**
 * A protocol-faithful fake of the Anthropic Messages API for tests and benchmarks.
 *
 * Start it, point the real SDK at it, script the assistant's replies:
 *
 *   const fake = await startFakeAnthropic();
 *   const client = new Anthropic({ apiKey: fake.apiKey, baseURL: fake.url, maxRetries: 0 });
 *   fake.enqueue(reply.toolUse('read_file', { path: 'a.ts' }), reply.text('Done.'));
 *   ...
 *   await fake.close();
 *
 * It validates requests like the real API (400 with the real messages), counts tokens with the
 * real BPE tokenizer, simulates prompt caching, streams the real SSE event sequence, and answers
 * the models and count_tokens endpoints. A POST /v1/messages with no scripted reply gets a loud
 * 500 naming the problem (with `x-should-retry: false`, so the SDK does not retry it).
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type Anthropic from '@anthropic-ai/sdk';
import { PromptCache } from './cache';
import { ApiFailure, defaultErrorMessage, errorBody, errorTypeForStatus, IdGenerator, shouldRetry } from './errors';
import { buildMessage, formatSse, sseEvents, type SseEvent } from './message';
import { defaultModels, makeEntry, modelInfo, type ModelEntry } from './models';
import { thinkingSignature } from './replies';
import { promptTokens } from './tokens';
import type {
  ApiErrorType,
  FakeAnthropic,
  FakeAnthropicOptions,
  MessageReply,
  MessagesRequestBody,
  RecordedReply,
  RecordedRequest,
  ScriptedReply,
  StreamControls,
} from './types';
import { validateRequest } from './validate';
import { continuesPausedReply, pausedReplyProblem, replyBlockKeys } from './webSearch';

export * from './types';
export { reply, thinkingSignature } from './replies';
export {
  countOutputTokens,
  countTextTokens,
  promptTokens,
  IMAGE_TOKENS,
  MESSAGE_OVERHEAD,
  REQUEST_OVERHEAD,
  SYSTEM_OVERHEAD,
  TOOL_OVERHEAD,
  TOOLS_PREAMBLE_AUTO,
  TOOLS_PREAMBLE_FORCED,
} from './tokens';

const DEFAULT_KEY = 'sk-ant-test-key';
/** Documented versions plus the one @anthropic-ai/sdk 1.12.0 sends. */
const VALID_VERSIONS = new Set(['2023-01-01', '2023-06-01', '2026-10-21']);
const ORG_ID = '00000000-0000-4000-8000-000000000000';

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function sleep(ms: number, timers: Set<NodeJS.Timeout>): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const t = setTimeout(() => {
      timers.delete(t);
      resolve();
    }, ms);
    timers.add(t);
  });
}

/** Whether `signature` has the form of the fake's own signatures (so a mismatch means the text was edited). */
function isFakeSignature(signature: string): boolean {
  if (!signature.startsWith('Eq')) return false;
  return Buffer.from(signature.slice(2), 'base64').subarray(0, 9).toString('latin1') === 'fake-sig:';
}

/**
 * The event number at which `cutInBlock` ends a stream: after `afterDeltas` text deltas of the
 * block, and never later than just before its signature_delta / content_block_stop.
 */
function cutPosition(events: SseEvent[], cut: NonNullable<StreamControls['cutInBlock']>): number | undefined {
  const of = (e: SseEvent): { type?: string; index?: number; delta?: { type?: string } } =>
    (isRecord(e.data) ? e.data : {}) as { type?: string; index?: number; delta?: { type?: string } };
  const start = events.findIndex((e) => of(e).type === 'content_block_start' && of(e).index === cut.index);
  if (start < 0) return undefined;
  let at = start + 1;
  if (at < events.length && of(events[at]!).type === 'ping') at++;
  let seen = 0;
  const want = cut.afterDeltas ?? 1;
  while (seen < want && at < events.length) {
    const d = of(events[at]!);
    if (d.type !== 'content_block_delta' || d.index !== cut.index || d.delta?.type === 'signature_delta') break;
    seen++;
    at++;
  }
  return at;
}

export async function startFakeAnthropic(options: FakeAnthropicOptions = {}): Promise<FakeAnthropic> {
  const apiKey = options.apiKey ?? DEFAULT_KEY;
  const baseNow = options.now ?? Date.now;
  let clockOffset = 0;
  const now = (): number => baseNow() + clockOffset;
  const maxBodyBytes = options.maxBodyBytes ?? 32 * 1024 * 1024;
  const verifySignatures = options.verifyThinkingSignatures ?? true;
  const ids = new IdGenerator(options.seed ?? 1);
  const cache = new PromptCache(options.cacheLookbackBlocks ?? 20);

  const table = defaultModels();
  const models = options.models
    ? new Map(Object.entries(options.models).map(([id, spec]) => [id, makeEntry(id, spec)] as const))
    : table.models;
  const aliases = options.models ? new Map<string, string>() : table.aliases;
  const resolveModel = (id: string): ModelEntry | undefined => models.get(aliases.get(id) ?? id);

  const queue: ScriptedReply[] = [];
  let responder: ((req: MessagesRequestBody, index: number) => ScriptedReply | Promise<ScriptedReply>) | undefined;
  let scriptIndex = 0;
  const requests: RecordedRequest[] = [];
  /** `signature\0thinking` issued → the model that wrote it; signatures alone; redacted data sent. */
  const issuedSignatures = new Map<string, string>();
  const issuedSignatureValues = new Set<string>();
  const issuedRedacted = new Set<string>();
  const allowUnrequestedThinking = options.allowUnrequestedThinking ?? false;
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let closed = false;

  const signatureStatus = (thinking: string, signature: string, model: ModelEntry): 'valid' | 'edited' | 'foreign' => {
    const writer = issuedSignatures.get(`${signature}\u0000${thinking}`);
    const valid = model.binds_thinking_to_model
      ? signature === thinkingSignature(thinking, model.id) || writer === model.id
      : signature === thinkingSignature(thinking) || writer !== undefined;
    if (valid) return 'valid';
    // Issued for this very text by another model: bound elsewhere, not edited.
    if (writer !== undefined) return 'foreign';
    return issuedSignatureValues.has(signature) || isFakeSignature(signature) ? 'edited' : 'foreign';
  };
  /** Each reply sent with `pause_turn`, as the keys of its blocks: sent back as they are, they continue the turn. */
  const pausedReplies: string[][] = [];
  const thinkingChecks = (rec: RecordedRequest) => ({
    betas: (rec.headers['anthropic-beta'] ?? '').split(',').map((b) => b.trim()).filter((b) => b.length > 0),
    ...(verifySignatures ? { signatureStatus, issuedRedacted: (data: string): boolean => issuedRedacted.has(data) } : {}),
    continuesPausedTurn: (blocks: readonly unknown[]) => continuesPausedReply(blocks, pausedReplies),
  });

  // -------------------------------------------------------------------------------------------
  // Response helpers

  function baseHeaders(requestId: string): Record<string, string> {
    return { 'request-id': requestId, 'anthropic-organization-id': ORG_ID, via: '1.1 google' };
  }

  function sendJson(
    res: http.ServerResponse,
    rec: RecordedRequest,
    status: number,
    body: unknown,
    kind: RecordedReply['kind'],
    requestId: string,
    extraHeaders: Record<string, string> = {},
  ): void {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      ...baseHeaders(requestId),
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
      ...extraHeaders,
    });
    res.end(text);
    rec.reply = { status, kind, requestId, body };
  }

  function sendError(
    res: http.ServerResponse,
    rec: RecordedRequest,
    status: number,
    type: ApiErrorType | string,
    message: string,
    extraHeaders: Record<string, string> = {},
  ): void {
    const requestId = ids.request();
    const body =
      status === 413 && type === 'request_too_large'
        ? // The real 413 comes from Cloudflare, before the API: no "type" wrapper, no request_id.
          { error: { type, message } }
        : errorBody(type, message, requestId);
    sendJson(res, rec, status, body, 'error', requestId, {
      'x-should-retry': String(shouldRetry(status)),
      ...extraHeaders,
    });
  }

  function sendFailure(res: http.ServerResponse, rec: RecordedRequest, f: ApiFailure): void {
    sendError(res, rec, f.status, f.type, f.message);
  }

  // -------------------------------------------------------------------------------------------
  // POST /v1/messages

  async function nextReply(body: MessagesRequestBody): Promise<ScriptedReply | ApiFailure> {
    const index = scriptIndex++;
    const queued = queue.shift();
    if (queued) return queued;
    if (responder) {
      try {
        return await responder(body, index);
      } catch (e) {
        const msg = e instanceof Error ? e.message : String(e);
        return new ApiFailure(500, 'api_error', `fake-anthropic test setup: the responder threw for POST /v1/messages #${index}: ${msg}`);
      }
    }
    return new ApiFailure(
      500,
      'api_error',
      `fake-anthropic test setup: no scripted reply for POST /v1/messages #${index} (the queue is empty and no responder is set). ` +
        'Call fake.enqueue(...) or fake.setResponder(...) before this request.',
    );
  }

  async function handleMessages(res: http.ServerResponse, rec: RecordedRequest): Promise<void> {
    let v;
    try {
      v = validateRequest(rec.body, { endpoint: 'messages', resolveModel, ...thinkingChecks(rec) });
    } catch (e) {
      if (e instanceof ApiFailure) return sendFailure(res, rec, e);
      throw e;
    }
    const body = v.body;
    const counted = promptTokens(body);
    if (counted.total > v.model.max_input_tokens) {
      return sendFailure(
        res,
        rec,
        new ApiFailure(400, 'invalid_request_error', `prompt is too long: ${counted.total} tokens > ${v.model.max_input_tokens} maximum`),
      );
    }

    const scripted = await nextReply(body);
    if (scripted instanceof ApiFailure) {
      return sendError(res, rec, scripted.status, scripted.type, scripted.message, { 'x-should-retry': 'false' });
    }
    if (scripted.kind === 'message' && !v.thinkingEnabled && !allowUnrequestedThinking) {
      const at = scripted.content.findIndex((b) => b.type === 'thinking' || b.type === 'redacted_thinking');
      if (at >= 0) {
        return sendError(
          res,
          rec,
          500,
          'api_error',
          `fake-anthropic test setup: the scripted reply for this request has a ${scripted.content[at]?.type} block (content.${at}) but the request did not enable thinking ` +
            `(and ${v.model.id} does not think by default); the real model would not think. Enable thinking in the request, or start the fake with { allowUnrequestedThinking: true }.`,
          { 'x-should-retry': 'false' },
        );
      }
    }
    if (scripted.kind === 'message' && !v.webSearch && scripted.content.some((b) => b.type === 'web_search')) {
      return sendError(res, rec, 500, 'api_error', 'fake-anthropic test setup: the scripted reply searches the web but the request did not declare the web_search_20250305 tool; the real model could not search.', { 'x-should-retry': 'false' });
    }
    const paused = scripted.kind === 'message' ? pausedReplyProblem(scripted, v.webSearch) : undefined;
    if (paused) return sendError(res, rec, 500, 'api_error', `fake-anthropic test setup: ${paused}`, { 'x-should-retry': 'false' });
    if (scripted.kind === 'hang') {
      rec.reply = { status: 0, kind: 'hang', requestId: '' };
      return;
    }
    await sleep(scripted.delayMs ?? 0, timers);
    if (res.destroyed || closed) {
      rec.reply = { status: 0, kind: 'aborted', requestId: '' };
      return;
    }
    if (scripted.kind === 'disconnect') {
      rec.reply = { status: 0, kind: 'disconnect', requestId: '' };
      res.socket?.destroy();
      return;
    }
    if (scripted.kind === 'error') {
      const type = scripted.type ?? errorTypeForStatus(scripted.status);
      const headers: Record<string, string> = { ...(scripted.headers ?? {}) };
      if (scripted.retryAfter !== undefined) headers['retry-after'] = String(scripted.retryAfter);
      return sendError(res, rec, scripted.status, type, scripted.message ?? defaultErrorMessage(type), headers);
    }
    return sendMessage(res, rec, scripted, v.model, body, counted);
  }

  async function sendMessage(
    res: http.ServerResponse,
    rec: RecordedRequest,
    scripted: MessageReply,
    model: ModelEntry,
    body: MessagesRequestBody,
    counted: ReturnType<typeof promptTokens>,
  ): Promise<void> {
    const cc = isRecord(body.cache_control) ? body.cache_control : undefined;
    const acc = cache.account(
      counted.segments,
      counted.total,
      model.min_cacheable_tokens,
      now(),
      cc ? (typeof cc['ttl'] === 'string' ? { ttl: cc['ttl'] } : {}) : undefined,
    );
    const room = model.max_input_tokens - counted.total;
    const maxOutput = Math.max(1, Math.min(body.max_tokens, room));
    const built = buildMessage({
      reply: scripted,
      stopSequences: body.stop_sequences ?? [],
      model: model.id,
      maxOutput,
      windowLimited: room < body.max_tokens,
      ids,
      ...(model.binds_thinking_to_model ? { bindThinkingTo: model.id } : {}),
      usage: {
        input_tokens: acc.input_tokens,
        cache_creation_input_tokens: acc.cache_creation_input_tokens,
        cache_read_input_tokens: acc.cache_read_input_tokens,
        cache_creation: {
          ephemeral_5m_input_tokens: acc.ephemeral_5m_input_tokens,
          ephemeral_1h_input_tokens: acc.ephemeral_1h_input_tokens,
        },
        inference_geo: null,
        output_tokens_details: null,
        server_tool_use: null,
        service_tier: 'standard',
        speed: null,
      },
    });
    for (const s of built.issuedSignatures) {
      issuedSignatures.set(s, model.id);
      issuedSignatureValues.add(s.slice(0, s.indexOf('\u0000')));
    }
    for (const d of built.issuedRedacted) issuedRedacted.add(d);
    const message = built.message;
    if (message.stop_reason === 'pause_turn') pausedReplies.push(replyBlockKeys(message.content));
    const requestId = ids.request();

    if (body.stream !== true) {
      sendJson(res, rec, 200, message, 'message', requestId);
      if (rec.reply) rec.reply.usage = message.usage;
      return;
    }
    await streamMessage(res, rec, message, scripted, requestId);
  }

  async function streamMessage(
    res: http.ServerResponse,
    rec: RecordedRequest,
    message: Anthropic.Message,
    scripted: MessageReply,
    requestId: string,
  ): Promise<void> {
    const controls = scripted.stream ?? {};
    const events = sseEvents(message, controls);
    const cutInBlock = controls.cutInBlock ? cutPosition(events, controls.cutInBlock) : undefined;
    const written: Array<{ event: string; data: unknown }> = [];
    const recorded: RecordedReply = { status: 200, kind: 'stream', requestId, body: message, events: written, usage: message.usage };
    rec.reply = recorded;
    res.writeHead(200, {
      ...baseHeaders(requestId),
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    res.flushHeaders();
    const write = (e: SseEvent): Promise<void> =>
      new Promise((resolve) => {
        written.push({ event: e.event, data: e.data });
        res.write(formatSse(e), () => resolve());
      });

    for (let i = 0; i <= events.length; i++) {
      if (cutInBlock !== undefined && i === cutInBlock) {
        const type = controls.cutInBlock?.error;
        if (type === undefined) {
          recorded.kind = 'stream-cut';
          res.socket?.destroy();
          return;
        }
        recorded.kind = 'stream-error';
        await write({ event: 'error', data: { type: 'error', error: { type, message: defaultErrorMessage(type) } } });
        res.end();
        return;
      }
      if (controls.cutAfterEvents !== undefined && i === controls.cutAfterEvents) {
        recorded.kind = 'stream-cut';
        res.socket?.destroy();
        return;
      }
      if (controls.errorAfterEvents && i === controls.errorAfterEvents.after) {
        const type = controls.errorAfterEvents.type ?? 'overloaded_error';
        const msg = controls.errorAfterEvents.message ?? defaultErrorMessage(type);
        recorded.kind = 'stream-error';
        await write({ event: 'error', data: { type: 'error', error: { type, message: msg } } });
        res.end();
        return;
      }
      const e = events[i];
      if (!e) break;
      await sleep(controls.eventDelayMs ?? 0, timers);
      if (res.destroyed || res.writableEnded || closed) {
        recorded.kind = 'aborted';
        return;
      }
      await write(e);
    }
    res.end();
  }

  // -------------------------------------------------------------------------------------------
  // Other endpoints

  function handleCountTokens(res: http.ServerResponse, rec: RecordedRequest): void {
    try {
      const v = validateRequest(rec.body, { endpoint: 'count_tokens', resolveModel, ...thinkingChecks(rec) });
      const { total } = promptTokens(v.body);
      const result: Anthropic.MessageTokensCount = { input_tokens: total };
      sendJson(res, rec, 200, result, 'count_tokens', ids.request());
    } catch (e) {
      if (e instanceof ApiFailure) return sendFailure(res, rec, e);
      throw e;
    }
  }

  function handleModels(res: http.ServerResponse, rec: RecordedRequest, id: string | undefined): void {
    if (id !== undefined) {
      const entry = resolveModel(id);
      if (!entry) return sendError(res, rec, 404, 'not_found_error', `model: ${id}`);
      return sendJson(res, rec, 200, modelInfo(entry), 'model', ids.request());
    }
    const all = [...models.values()].sort((a, b) => b.created_at.localeCompare(a.created_at) || a.id.localeCompare(b.id));
    const limitRaw = Number(rec.query['limit'] ?? '20');
    const limit = Number.isInteger(limitRaw) && limitRaw >= 1 && limitRaw <= 1000 ? limitRaw : NaN;
    if (Number.isNaN(limit)) {
      return sendError(res, rec, 400, 'invalid_request_error', 'limit: Input should be less than or equal to 1000');
    }
    let start = 0;
    let end = all.length;
    const after = rec.query['after_id'];
    const before = rec.query['before_id'];
    if (after !== undefined) start = all.findIndex((m) => m.id === after) + 1;
    if (before !== undefined) end = Math.max(0, all.findIndex((m) => m.id === before));
    let slice = all.slice(start, end);
    const hasMore = slice.length > limit;
    slice = before !== undefined && after === undefined ? slice.slice(-limit) : slice.slice(0, limit);
    const page = {
      data: slice.map(modelInfo),
      has_more: hasMore,
      first_id: slice[0]?.id ?? null,
      last_id: slice[slice.length - 1]?.id ?? null,
    };
    sendJson(res, rec, 200, page, 'models', ids.request());
  }

  // -------------------------------------------------------------------------------------------
  // Dispatch

  function checkAuth(res: http.ServerResponse, rec: RecordedRequest): boolean {
    const key = rec.headers['x-api-key'];
    const auth = rec.headers['authorization'];
    const bearer = auth?.toLowerCase().startsWith('bearer ') ? auth.slice(7).trim() : undefined;
    if (key === undefined && bearer === undefined) {
      sendError(res, rec, 401, 'authentication_error', 'x-api-key header is required');
      return false;
    }
    if (key !== apiKey && bearer !== apiKey) {
      sendError(res, rec, 401, 'authentication_error', 'invalid x-api-key');
      return false;
    }
    const version = rec.headers['anthropic-version'];
    if (version === undefined) {
      sendError(res, rec, 400, 'invalid_request_error', 'anthropic-version: header is required');
      return false;
    }
    if (!VALID_VERSIONS.has(version)) {
      sendError(res, rec, 400, 'invalid_request_error', `anthropic-version: "${version}" is not a valid version`);
      return false;
    }
    return true;
  }

  async function route(res: http.ServerResponse, rec: RecordedRequest): Promise<void> {
    const { method, path } = rec;
    const modelMatch = /^\/v1\/models(?:\/([^/]+))?\/?$/.exec(path);
    const known = path === '/v1/messages' || path === '/v1/messages/count_tokens' || modelMatch !== null;
    if (!known) return sendError(res, rec, 404, 'not_found_error', 'Not Found');
    if (!checkAuth(res, rec)) return;
    if (path === '/v1/messages' || path === '/v1/messages/count_tokens') {
      if (method !== 'POST') return sendError(res, rec, 405, 'invalid_request_error', `Method Not Allowed`);
      if (typeof rec.body === 'string' || rec.body === undefined) {
        return sendError(res, rec, 400, 'invalid_request_error', 'There was an issue with the format or content of your request: the body must be a JSON object.');
      }
      return path === '/v1/messages' ? handleMessages(res, rec) : handleCountTokens(res, rec);
    }
    if (method !== 'GET') return sendError(res, rec, 405, 'invalid_request_error', 'Method Not Allowed');
    const id = modelMatch?.[1];
    return handleModels(res, rec, id === undefined ? undefined : decodeURIComponent(id));
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= maxBodyBytes) chunks.push(c);
    });
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const headers: Record<string, string> = {};
      for (const [k, val] of Object.entries(req.headers)) {
        if (val !== undefined) headers[k] = Array.isArray(val) ? val.join(', ') : val;
      }
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = undefined;
      if (size <= maxBodyBytes && text.length > 0) {
        try {
          body = JSON.parse(text) as unknown;
        } catch {
          body = text;
        }
      }
      const rec: RecordedRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: Object.fromEntries(url.searchParams.entries()),
        headers,
        body,
        at: now(),
      };
      requests.push(rec);
      if (size > maxBodyBytes) {
        sendError(res, rec, 413, 'request_too_large', 'Request exceeds the maximum size');
        return;
      }
      route(res, rec).catch((e: unknown) => {
        const msg = e instanceof Error ? (e.stack ?? e.message) : String(e);
        if (!res.headersSent) sendError(res, rec, 500, 'api_error', `fake-anthropic internal error: ${msg}`, { 'x-should-retry': 'false' });
        else res.destroy();
      });
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  const fake: FakeAnthropic = {
    url: `http://127.0.0.1:${port}`,
    apiKey,
    requests,
    enqueue(...replies: ScriptedReply[]): void {
      queue.push(...replies);
    },
    setResponder(fn): void {
      responder = fn;
    },
    setModel(id, info): void {
      aliases.delete(id);
      models.set(id, makeEntry(id, info));
    },
    advanceClock(ms: number): void {
      clockOffset += ms;
    },
    pendingReplies: () => queue.length,
    messageRequests: () => requests.filter((r) => r.path === '/v1/messages'),
    clearCache: () => cache.clear(),
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}
