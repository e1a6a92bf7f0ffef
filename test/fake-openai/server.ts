/**
 * A protocol-faithful fake of the OpenAI Chat Completions API for tests and benchmarks.
 *
 *   const fake = await startFakeOpenAI();
 *   const client = new OpenAI({ apiKey: fake.apiKey, baseURL: fake.url, maxRetries: 0 });
 *   fake.enqueue(reply.toolCall('read_file', { path: 'a.ts' }), reply.text('Done.'));
 *   ...
 *   await fake.close();
 *
 * It validates requests like the real API (400 with the real messages, params and codes),
 * enforces the context length with a real tokenizer count, simulates automatic prefix caching,
 * streams the real chunk sequence, and answers the models endpoints. A completion request with
 * no scripted reply gets a loud 500 naming the problem.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { PrefixCache } from './cache';
import { ApiFailure, defaultsForStatus, errorBody, IdGenerator } from './errors';
import { buildReply, completionObject, streamChunks } from './message';
import { defaultModels, makeEntry, modelObject, type ModelEntry } from './models';
import { promptIds, REPLY_PRIMING } from './tokens';
import type { ChatRequestBody, FakeOpenAI, FakeOpenAIOptions, MessageReply, RecordedReply, RecordedRequest, ScriptedReply } from './types';
import { validateRequest } from './validate';

export * from './types';
export { reply } from './replies';
export { countTextTokens, completionTokens, promptTokens, IMAGE_TOKENS, REPLY_PRIMING, TOOLS_PREAMBLE } from './tokens';
export { REASONING_TOKENS } from './message';
export { MIN_CACHED_TOKENS, CACHE_BLOCK_TOKENS } from './cache';

const DEFAULT_KEY = 'sk-test-openai-key';
const MAX_BODY_BYTES = 64 * 1024 * 1024;

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

/** How the real API shows a key in its 401 message. */
function maskKey(key: string): string {
  return key.length <= 8 ? '*'.repeat(key.length) : `${key.slice(0, 3)}${'*'.repeat(Math.min(key.length - 7, 20))}${key.slice(-4)}`;
}

export async function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const apiKey = options.apiKey ?? DEFAULT_KEY;
  const baseNow = options.now ?? Date.now;
  let clockOffset = 0;
  const now = (): number => baseNow() + clockOffset;
  const ids = new IdGenerator(options.seed ?? 1);
  const cache = new PrefixCache(options.cacheTtlMs ?? 10 * 60_000);
  const models = options.models ? new Map(Object.entries(options.models).map(([id, spec]) => [id, makeEntry(id, spec)] as const)) : defaultModels();

  const queue: ScriptedReply[] = [];
  let responder: ((req: ChatRequestBody, index: number) => ScriptedReply | Promise<ScriptedReply>) | undefined;
  let scriptIndex = 0;
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let closed = false;

  // -------------------------------------------------------------------------------------------
  // Response helpers

  function headers(requestId: string): Record<string, string> {
    return { 'x-request-id': requestId, 'openai-organization': 'org-fake', 'openai-processing-ms': '42', 'openai-version': '2020-10-01' };
  }

  function sendJson(res: http.ServerResponse, rec: RecordedRequest, status: number, body: unknown, kind: RecordedReply['kind'], extra: Record<string, string> = {}): RecordedReply {
    const requestId = ids.request();
    const text = JSON.stringify(body);
    res.writeHead(status, { ...headers(requestId), 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...extra });
    res.end(text);
    rec.reply = { status, kind, requestId, body };
    return rec.reply;
  }

  /** A refusal by the fake's own checks (auth, validation, model, context length): counted as rejected. */
  function reject(res: http.ServerResponse, rec: RecordedRequest, f: ApiFailure): void {
    sendJson(res, rec, f.status, f.body(), 'error').rejected = true;
  }

  // -------------------------------------------------------------------------------------------
  // POST /v1/chat/completions

  async function nextReply(body: ChatRequestBody): Promise<ScriptedReply | ApiFailure> {
    const index = scriptIndex++;
    const queued = queue.shift();
    if (queued) return queued;
    const problem = (what: string) => new ApiFailure(500, `fake-openai test setup: ${what} for POST /v1/chat/completions #${index}`, null, null, 'server_error');
    if (responder) {
      try {
        return await responder(body, index);
      } catch (e) {
        return problem(`the responder threw (${e instanceof Error ? e.message : String(e)})`);
      }
    }
    return problem('no scripted reply (the queue is empty and no responder is set; call fake.enqueue(...) or fake.setResponder(...))');
  }

  async function handleCompletions(res: http.ServerResponse, rec: RecordedRequest): Promise<void> {
    let v;
    try {
      v = validateRequest(rec.body, (id) => models.get(id), { rejectReasoningEffort: options.rejectReasoningEffort ?? false });
    } catch (e) {
      if (e instanceof ApiFailure) return reject(res, rec, e);
      throw e;
    }
    const { body, model } = v;
    const ids_ = promptIds(body);
    const prompt = ids_.length + REPLY_PRIMING;
    const window = model.context_window;
    if (v.maxTokens !== undefined && prompt + v.maxTokens > window) {
      return reject(
        res,
        rec,
        new ApiFailure(
          400,
          `This model's maximum context length is ${window} tokens. However, you requested ${prompt + v.maxTokens} tokens (${prompt} in the messages, ${v.maxTokens} in the completion). Please reduce the length of the messages or completion.`,
          'messages',
          'context_length_exceeded',
        ),
      );
    }
    if (prompt > window) {
      return reject(
        res,
        rec,
        new ApiFailure(400, `This model's maximum context length is ${window} tokens. However, your messages resulted in ${prompt} tokens. Please reduce the length of the messages.`, 'messages', 'context_length_exceeded'),
      );
    }

    const scripted = await nextReply(body);
    if (scripted instanceof ApiFailure) {
      sendJson(res, rec, scripted.status, scripted.body(), 'error', { 'x-should-retry': 'false' });
      return;
    }
    if (scripted.kind === 'hang') {
      rec.reply = { status: 0, kind: 'hang', requestId: '' };
      return;
    }
    await sleep(scripted.kind === 'raw' ? 0 : (scripted.delayMs ?? 0), timers);
    if (res.destroyed || closed) {
      rec.reply = { status: 0, kind: 'aborted', requestId: '' };
      return;
    }
    switch (scripted.kind) {
      case 'disconnect':
        rec.reply = { status: 0, kind: 'disconnect', requestId: '' };
        res.socket?.destroy();
        return;
      case 'raw': {
        const requestId = ids.request();
        res.writeHead(scripted.status, { 'content-type': scripted.contentType, 'content-length': Buffer.byteLength(scripted.body) });
        res.end(scripted.body);
        rec.reply = { status: scripted.status, kind: 'raw', requestId, body: scripted.body };
        return;
      }
      case 'error': {
        const d = defaultsForStatus(scripted.status);
        const extra: Record<string, string> = { ...(scripted.headers ?? {}) };
        if (scripted.retryAfter !== undefined) extra['retry-after'] = String(scripted.retryAfter);
        const code = scripted.code === undefined ? d.code : scripted.code;
        const message = scripted.message ?? (scripted.status === 404 ? `The model \`${body.model}\` does not exist or you do not have access to it.` : d.message);
        sendJson(res, rec, scripted.status, errorBody(message, scripted.type ?? d.type, scripted.param ?? null, code), 'error', extra);
        return;
      }
      case 'message':
        // Cache accounting only for requests the model answers (a refused request caches nothing).
        return sendMessage(res, rec, scripted, model, body, ids_, prompt, v.maxTokens, v.reasoningEffort);
    }
  }

  async function sendMessage(
    res: http.ServerResponse,
    rec: RecordedRequest,
    scripted: MessageReply,
    model: ModelEntry,
    body: ChatRequestBody,
    tokenIds: number[],
    prompt: number,
    maxTokens: number | undefined,
    reasoningEffort: string | undefined,
  ): Promise<void> {
    const cached = cache.account(tokenIds, now());
    const budget = Math.max(1, Math.min(maxTokens ?? model.max_output_tokens, model.max_output_tokens, model.context_window - prompt));
    const streaming = body.stream === true;
    const built = buildReply({
      reply: scripted,
      model: model.id,
      budget,
      promptTokens: prompt,
      cachedTokens: cached,
      ids,
      now: now(),
      streaming,
      ...(reasoningEffort !== undefined ? { reasoningEffort } : {}),
    });
    if (!streaming) {
      sendJson(res, rec, 200, completionObject(built), 'message').usage = built.usage;
      return;
    }
    const controls = scripted.stream ?? {};
    const includeUsage = isRecord(body.stream_options) && body.stream_options['include_usage'] === true;
    const chunks = streamChunks(built, controls, includeUsage);
    const requestId = ids.request();
    const written: unknown[] = [];
    const recorded: RecordedReply = { status: 200, kind: 'stream', requestId, chunks: written, usage: built.usage };
    rec.reply = recorded;
    res.writeHead(200, { ...headers(requestId), 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.flushHeaders();
    const write = (data: unknown): Promise<void> =>
      new Promise((resolve) => {
        written.push(data);
        res.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`, () => resolve());
      });
    for (let i = 0; i <= chunks.length; i++) {
      if (controls.cutAfterChunks !== undefined && i === controls.cutAfterChunks) {
        recorded.kind = 'stream-cut';
        res.socket?.destroy();
        return;
      }
      if (controls.errorAfterChunks && i === controls.errorAfterChunks.after) {
        const e = controls.errorAfterChunks;
        recorded.kind = 'stream-error';
        await write(errorBody(e.message ?? 'The server had an error while processing your request. Sorry about that!', e.type ?? 'server_error', null, e.code ?? null));
        res.end();
        return;
      }
      const c = chunks[i];
      if (c === undefined) break;
      await sleep(controls.chunkDelayMs ?? 0, timers);
      if (res.destroyed || res.writableEnded || closed) {
        recorded.kind = 'aborted';
        return;
      }
      await write(c);
    }
    res.end();
  }

  // -------------------------------------------------------------------------------------------
  // Models

  function handleModels(res: http.ServerResponse, rec: RecordedRequest, id: string | undefined): void {
    if (id === undefined) {
      sendJson(res, rec, 200, { object: 'list', data: [...models.values()].map(modelObject) }, 'models');
      return;
    }
    const entry = models.get(id);
    if (!entry) {
      sendJson(res, rec, 404, errorBody(`The model '${id}' does not exist`, 'invalid_request_error', 'model', 'model_not_found'), 'error');
      return;
    }
    sendJson(res, rec, 200, modelObject(entry), 'model');
  }

  // -------------------------------------------------------------------------------------------
  // Dispatch

  function checkAuth(res: http.ServerResponse, rec: RecordedRequest): boolean {
    const auth = rec.headers['authorization'];
    const bearer = auth?.toLowerCase().startsWith('bearer ') ? auth.slice(7).trim() : undefined;
    if (!bearer) {
      reject(
        res,
        rec,
        new ApiFailure(
          401,
          "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're accessing the API from your browser and are prompted for a username. You can obtain an API key from https://platform.openai.com/account/api-keys.",
        ),
      );
      return false;
    }
    if (bearer !== apiKey) {
      reject(res, rec, new ApiFailure(401, `Incorrect API key provided: ${maskKey(bearer)}. You can find your API key at https://platform.openai.com/account/api-keys.`, null, 'invalid_api_key'));
      return false;
    }
    return true;
  }

  async function route(res: http.ServerResponse, rec: RecordedRequest): Promise<void> {
    const { method, path } = rec;
    const modelMatch = /^\/v1\/models(?:\/(.+?))?\/?$/.exec(path);
    if (path !== '/v1/chat/completions' && !modelMatch) {
      return reject(res, rec, new ApiFailure(404, `Invalid URL (${method} ${path})`));
    }
    if (!checkAuth(res, rec)) return;
    if (path === '/v1/chat/completions') {
      if (method !== 'POST') return reject(res, rec, new ApiFailure(405, `Invalid method for URL (${method} ${path})`));
      return handleCompletions(res, rec);
    }
    if (method !== 'GET') return reject(res, rec, new ApiFailure(405, `Invalid method for URL (${method} ${path})`));
    const id = modelMatch?.[1];
    return handleModels(res, rec, id === undefined ? undefined : decodeURIComponent(id));
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY_BYTES) chunks.push(c);
    });
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const hdrs: Record<string, string> = {};
      for (const [k, val] of Object.entries(req.headers)) if (val !== undefined) hdrs[k] = Array.isArray(val) ? val.join(', ') : val;
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = undefined;
      if (text.length > 0) {
        try {
          body = JSON.parse(text) as unknown;
        } catch {
          body = text;
        }
      }
      const rec: RecordedRequest = { method: req.method ?? 'GET', path: url.pathname, query: Object.fromEntries(url.searchParams.entries()), headers: hdrs, body, at: now() };
      requests.push(rec);
      if (size > MAX_BODY_BYTES) return reject(res, rec, new ApiFailure(413, 'Request too large.'));
      route(res, rec).catch((e: unknown) => {
        const msg = e instanceof Error ? (e.stack ?? e.message) : String(e);
        if (!res.headersSent) sendJson(res, rec, 500, errorBody(`fake-openai internal error: ${msg}`, 'server_error'), 'error', { 'x-should-retry': 'false' });
        else res.destroy();
      });
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject_) => {
    server.once('error', reject_);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  const completionRequests = () => requests.filter((r) => r.path === '/v1/chat/completions');
  const fake: FakeOpenAI = {
    url: `http://127.0.0.1:${port}/v1`,
    apiKey,
    requests,
    enqueue(...replies: ScriptedReply[]): void {
      queue.push(...replies);
    },
    setResponder(fn): void {
      responder = fn;
    },
    setModel(id, spec): void {
      models.set(id, makeEntry(id, spec));
    },
    advanceClock(ms: number): void {
      clockOffset += ms;
    },
    pendingReplies: () => queue.length,
    completionRequests,
    rejectedRequests: () => completionRequests().filter((r) => r.reply?.rejected === true),
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
