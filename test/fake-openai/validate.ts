/**
 * Request validation for POST /v1/chat/completions, mirroring the real API's checks and messages
 * (including its `param` paths and `code`s). Throws `ApiFailure`; returns the typed body and the
 * resolved model otherwise. Context length is checked by the server (it needs the token count).
 */
import { imageSize } from 'image-size';
import { ApiFailure, invalid } from './errors';
import type { ModelEntry } from './models';
import type { ChatRequestBody } from './types';

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const BODY_KEYS = new Set([
  'model',
  'messages',
  'audio',
  'frequency_penalty',
  'function_call',
  'functions',
  'logit_bias',
  'logprobs',
  'max_completion_tokens',
  'max_tokens',
  'metadata',
  'modalities',
  'n',
  'parallel_tool_calls',
  'prediction',
  'presence_penalty',
  'prompt_cache_key',
  'reasoning_effort',
  'response_format',
  'safety_identifier',
  'seed',
  'service_tier',
  'stop',
  'store',
  'stream',
  'stream_options',
  'temperature',
  'tool_choice',
  'tools',
  'top_logprobs',
  'top_p',
  'user',
  'verbosity',
  'web_search_options',
]);

const ROLES = ['system', 'assistant', 'user', 'function', 'tool', 'developer'];
const MESSAGE_KEYS: Record<string, Set<string>> = {
  system: new Set(['role', 'content', 'name']),
  developer: new Set(['role', 'content', 'name']),
  user: new Set(['role', 'content', 'name']),
  assistant: new Set(['role', 'content', 'name', 'tool_calls', 'refusal', 'audio', 'function_call']),
  tool: new Set(['role', 'content', 'tool_call_id']),
  function: new Set(['role', 'content', 'name']),
};
/** Content part types allowed per role. */
const PART_TYPES: Record<string, string[]> = {
  system: ['text'],
  developer: ['text'],
  user: ['text', 'image_url', 'input_audio', 'file'],
  assistant: ['text', 'refusal'],
  tool: ['text'],
  function: ['text'],
};

const TOOL_NAME = /^[a-zA-Z0-9_-]+$/;

/** The server reads the bytes of a data URL: they must be an image of a type it takes. */
function isSupportedImage(base64: string): boolean {
  try {
    return ['png', 'jpg', 'gif', 'webp'].includes(imageSize(Buffer.from(base64, 'base64')).type ?? '');
  } catch {
    return false;
  }
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'an integer' : 'a decimal';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'boolean') return 'a boolean';
  return `a ${typeof v}`;
}

function missing(param: string): ApiFailure {
  return invalid(`Missing required parameter: '${param}'.`, param, 'missing_required_parameter');
}

function wrongType(param: string, expected: string, got: unknown): ApiFailure {
  return invalid(`Invalid type for '${param}': expected ${expected}, but got ${typeName(got)} instead.`, param, 'invalid_type');
}

function checkContent(m: Record<string, unknown>, role: string, i: number): void {
  const param = `messages[${i}].content`;
  const content = m['content'];
  if (role === 'assistant' && (content === null || content === undefined)) {
    if (!Array.isArray(m['tool_calls']) && m['function_call'] === undefined) {
      throw invalid(`Invalid value for 'content': expected a string, got null.`, `messages.[${i}].content`, null);
    }
    return;
  }
  if (content === undefined) throw missing(param);
  if (typeof content === 'string') return;
  if (!Array.isArray(content)) throw wrongType(param, 'one of a string or array of objects', content);
  if (content.length === 0) {
    throw invalid(`Invalid '${param}': empty array. Expected an array with minimum length 1, but got an empty array instead.`, param, 'empty_array');
  }
  const allowed = PART_TYPES[role] ?? ['text'];
  content.forEach((part, j) => {
    const p = `${param}[${j}]`;
    if (!isRecord(part)) throw wrongType(p, 'an object', part);
    const type = part['type'];
    if (typeof type !== 'string') throw missing(`${p}.type`);
    if (!allowed.includes(type)) {
      throw invalid(`Invalid value: '${type}'. Supported values are: ${allowed.map((t) => `'${t}'`).join(', ')}.`, `${p}.type`, 'invalid_value');
    }
    if (type === 'text' && typeof part['text'] !== 'string') throw part['text'] === undefined ? missing(`${p}.text`) : wrongType(`${p}.text`, 'a string', part['text']);
    if (type === 'refusal' && typeof part['refusal'] !== 'string') throw missing(`${p}.refusal`);
    if (type === 'image_url') {
      const img = part['image_url'];
      if (!isRecord(img) || typeof img['url'] !== 'string') throw missing(`${p}.image_url.url`);
      const url = img['url'];
      if (!/^https?:\/\//.test(url) && !/^data:image\/(png|jpeg|gif|webp);base64,/.test(url)) {
        throw invalid(`Invalid '${p}.image_url.url': Expected a base64-encoded data URL with an image MIME type (e.g. 'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU='), but got unsupported MIME type.`, `${p}.image_url.url`, 'invalid_value');
      }
      if (url.startsWith('data:') && !isSupportedImage(url.slice(url.indexOf(',') + 1))) {
        throw invalid("You uploaded an unsupported image. Please make sure your image has of one the following formats: ['png', 'jpeg', 'gif', 'webp'].", `${p}.image_url.url`, 'invalid_image_format');
      }
    }
  });
}

function checkToolCalls(calls: unknown, i: number, seenIds: Set<string>): string[] {
  const param = `messages[${i}].tool_calls`;
  if (!Array.isArray(calls)) throw wrongType(param, 'an array', calls);
  if (calls.length === 0) {
    throw invalid(`Invalid '${param}': empty array. Expected an array with minimum length 1, but got an empty array instead.`, param, 'empty_array');
  }
  const ids: string[] = [];
  calls.forEach((call, j) => {
    const p = `${param}[${j}]`;
    if (!isRecord(call)) throw wrongType(p, 'an object', call);
    if (call['id'] === undefined || call['id'] === null) throw missing(`${p}.id`);
    if (typeof call['id'] !== 'string') throw wrongType(`${p}.id`, 'a string', call['id']);
    if (call['id'].length > 40) {
      throw invalid(`Invalid '${p}.id': string too long. Expected a string with maximum length 40, but got a string with length ${call['id'].length} instead.`, `${p}.id`, 'string_above_max_length');
    }
    if (call['type'] !== 'function') throw call['type'] === undefined ? missing(`${p}.type`) : invalid(`Invalid value: '${String(call['type'])}'. Supported values are: 'function'.`, `${p}.type`, 'invalid_value');
    const fn = call['function'];
    if (!isRecord(fn)) throw missing(`${p}.function`);
    if (typeof fn['name'] !== 'string') throw missing(`${p}.function.name`);
    if (fn['arguments'] === undefined) throw missing(`${p}.function.arguments`);
    if (typeof fn['arguments'] !== 'string') throw wrongType(`${p}.function.arguments`, 'a string', fn['arguments']);
    if (ids.includes(call['id']) || seenIds.has(call['id'])) {
      throw invalid(`Invalid parameter: Duplicate value for 'tool_call_id' of ${call['id']} in message[${i}]. Please ensure all tool call IDs are unique.`, `messages.[${i}].tool_calls`, null);
    }
    ids.push(call['id']);
  });
  return ids;
}

function checkMessages(messages: unknown): void {
  if (messages === undefined) throw missing('messages');
  if (!Array.isArray(messages)) throw wrongType('messages', 'an array', messages);
  if (messages.length === 0) throw invalid("[] is too short - 'messages'", 'messages', null);
  /** The open assistant turn's tool_call ids not answered yet, and that assistant's index. */
  let pending: { index: number; ids: string[] } | undefined;
  const seenIds = new Set<string>();
  const unanswered = (): ApiFailure =>
    invalid(
      `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${pending?.ids.join(', ')}`,
      `messages.[${pending?.index}].role`,
      null,
    );
  messages.forEach((m, i) => {
    if (!isRecord(m)) throw wrongType(`messages[${i}]`, 'an object', m);
    const role = m['role'];
    if (role === undefined) throw missing(`messages[${i}].role`);
    if (typeof role !== 'string' || !ROLES.includes(role)) {
      throw invalid(`Invalid value: '${String(role)}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.`, `messages[${i}].role`, 'invalid_value');
    }
    for (const k of Object.keys(m)) {
      if (!MESSAGE_KEYS[role]?.has(k)) throw invalid(`Additional properties are not allowed ('${k}' was unexpected) - 'messages.${i}'`, `messages.[${i}]`, null);
    }
    checkContent(m, role, i);
    if (role === 'tool') {
      const id = m['tool_call_id'];
      if (id === undefined) throw missing(`messages[${i}].tool_call_id`);
      if (typeof id !== 'string') throw wrongType(`messages[${i}].tool_call_id`, 'a string', id);
      if (!pending) {
        throw invalid("Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", `messages.[${i}].role`, null);
      }
      const at = pending.ids.indexOf(id);
      if (at < 0) throw invalid(`Invalid parameter: 'tool_call_id' of '${id}' not found in 'tool_calls' of previous message.`, `messages.[${i}].tool_call_id`, null);
      pending.ids.splice(at, 1);
      if (pending.ids.length === 0) pending = undefined;
      return;
    }
    if (pending) throw unanswered();
    if (role === 'assistant' && m['tool_calls'] !== undefined) {
      const ids = checkToolCalls(m['tool_calls'], i, seenIds);
      for (const id of ids) seenIds.add(id);
      pending = { index: i, ids };
    }
  });
  if (pending) throw unanswered();
}

function checkTools(tools: unknown): void {
  if (tools === undefined) return;
  if (!Array.isArray(tools)) throw wrongType('tools', 'an array', tools);
  if (tools.length === 0) throw invalid("Invalid 'tools': empty array. Expected an array with minimum length 1, but got an empty array instead.", 'tools', 'empty_array');
  if (tools.length > 128) throw invalid(`Invalid 'tools': array too long. Expected an array with maximum length 128, but got an array with length ${tools.length} instead.`, 'tools', 'array_above_max_length');
  const names = new Set<string>();
  tools.forEach((tool, i) => {
    const p = `tools[${i}]`;
    if (!isRecord(tool)) throw wrongType(p, 'an object', tool);
    if (tool['type'] !== 'function') throw tool['type'] === undefined ? missing(`${p}.type`) : invalid(`Invalid value: '${String(tool['type'])}'. Supported values are: 'function' and 'custom'.`, `${p}.type`, 'invalid_value');
    const fn = tool['function'];
    if (!isRecord(fn)) throw missing(`${p}.function`);
    const name = fn['name'];
    if (name === undefined) throw missing(`${p}.function.name`);
    if (typeof name !== 'string') throw wrongType(`${p}.function.name`, 'a string', name);
    if (name.length > 64) {
      throw invalid(`Invalid '${p}.function.name': string too long. Expected a string with maximum length 64, but got a string with length ${name.length} instead.`, `${p}.function.name`, 'string_above_max_length');
    }
    if (!TOOL_NAME.test(name)) {
      throw invalid(`Invalid '${p}.function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`, `${p}.function.name`, 'invalid_value');
    }
    if (names.has(name)) throw invalid(`Invalid 'tools': duplicate function name '${name}'.`, 'tools', null);
    names.add(name);
    if (fn['description'] !== undefined && typeof fn['description'] !== 'string') throw wrongType(`${p}.function.description`, 'a string', fn['description']);
    const params = fn['parameters'];
    if (params !== undefined) {
      if (!isRecord(params)) throw wrongType(`${p}.function.parameters`, 'an object', params);
      if (params['type'] !== 'object') {
        throw invalid(`Invalid schema for function '${name}': schema must be a JSON Schema of 'type: "object"', got 'type: "${String(params['type'])}"'.`, `${p}.function.parameters`, 'invalid_function_parameters');
      }
      if (params['properties'] !== undefined && !isRecord(params['properties'])) {
        throw invalid(`Invalid schema for function '${name}': ${JSON.stringify(params['properties'])} is not of type 'object'.`, `${p}.function.parameters`, 'invalid_function_parameters');
      }
    }
  });
}

function checkMaxTokens(body: Record<string, unknown>, model: ModelEntry): void {
  for (const key of ['max_tokens', 'max_completion_tokens'] as const) {
    const v = body[key];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'number' || !Number.isInteger(v)) throw wrongType(key, 'an integer', v);
    if (v < 1) throw invalid(`Invalid '${key}': integer below minimum value. Expected a value >= 1, but got ${v} instead.`, key, 'integer_below_min_value');
    if (v > model.max_output_tokens) {
      throw invalid(`${key} is too large: ${v}. This model supports at most ${model.max_output_tokens} completion tokens, whereas you provided ${v}.`, key, 'invalid_value');
    }
  }
}

export interface Validated {
  body: ChatRequestBody;
  model: ModelEntry;
  /** The completion budget the request asked for (max_completion_tokens, else max_tokens), if any. */
  maxTokens: number | undefined;
  /** The `reasoning_effort` a reasoning model accepted (undefined when absent or null). */
  reasoningEffort: string | undefined;
}

/** Every `reasoning_effort` value the API knows (openai SDK 6 `ReasoningEffort`). */
const REASONING_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'];

/** `a', 'b', and 'c'` as the API lists supported values. */
function listValues(values: readonly string[]): string {
  const quoted = values.map((v) => `'${v}'`);
  return quoted.length <= 2 ? quoted.join(' and ') : `${quoted.slice(0, -1).join(', ')}, and ${quoted.at(-1)}`;
}

/**
 * `reasoning_effort`: only reasoning models take it (others, and compatible servers that do not
 * know it, refuse it as an unrecognized argument); the value must be one the model supports.
 */
function checkReasoningEffort(raw: Record<string, unknown>, model: ModelEntry, refuseAll: boolean): string | undefined {
  const effort = raw['reasoning_effort'];
  if (effort === undefined) return undefined;
  if (refuseAll || model.reasoning_efforts.length === 0) throw invalid('Unrecognized request argument supplied: reasoning_effort');
  if (effort === null) return undefined;
  if (typeof effort !== 'string') throw wrongType('reasoning_effort', 'a string', effort);
  if (!REASONING_EFFORTS.includes(effort)) {
    throw invalid(`Invalid value: '${effort}'. Supported values are: ${listValues(REASONING_EFFORTS)}.`, 'reasoning_effort', 'invalid_value');
  }
  if (!model.reasoning_efforts.includes(effort)) {
    throw invalid(
      `Unsupported value: 'reasoning_effort' does not support '${effort}' with this model. Supported values are: ${listValues(model.reasoning_efforts)}.`,
      'reasoning_effort',
      'unsupported_value',
    );
  }
  return effort;
}

export function validateRequest(
  raw: unknown,
  resolveModel: (id: string) => ModelEntry | undefined,
  options: { rejectReasoningEffort?: boolean } = {},
): Validated {
  if (!isRecord(raw)) throw invalid('We could not parse the JSON body of your request. (HINT: This likely means you aren\'t using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)');
  for (const k of Object.keys(raw)) {
    if (!BODY_KEYS.has(k)) throw invalid(`Unrecognized request argument supplied: ${k}`);
  }
  if (typeof raw['model'] !== 'string' || raw['model'] === '') throw invalid('you must provide a model parameter');
  const model = resolveModel(raw['model']);
  if (!model) throw new ApiFailure(404, `The model \`${raw['model']}\` does not exist or you do not have access to it.`, null, 'model_not_found');
  if (model.rejects_stream_options && raw['stream_options'] !== undefined) throw invalid('Unrecognized request argument supplied: stream_options');
  if (model.requires_max_completion_tokens && raw['max_tokens'] !== undefined) {
    throw invalid("Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", 'max_tokens', 'unsupported_parameter');
  }
  const reasoningEffort = checkReasoningEffort(raw, model, options.rejectReasoningEffort ?? false);
  checkMessages(raw['messages']);
  checkTools(raw['tools']);
  if (raw['tool_choice'] !== undefined && raw['tools'] === undefined) {
    throw invalid("Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.", 'tool_choice', null);
  }
  if (raw['stream'] !== undefined && typeof raw['stream'] !== 'boolean') throw wrongType('stream', 'a boolean', raw['stream']);
  if (raw['stream_options'] !== undefined && raw['stream_options'] !== null) {
    if (raw['stream'] !== true) throw invalid("The 'stream_options' parameter is only allowed when 'stream' is enabled.", 'stream_options', null);
    if (!isRecord(raw['stream_options'])) throw wrongType('stream_options', 'an object', raw['stream_options']);
  }
  if (raw['n'] !== undefined && raw['n'] !== 1) throw invalid('The fake serves n=1 only.', 'n', 'invalid_value');
  checkMaxTokens(raw, model);
  const maxRaw = raw['max_completion_tokens'] ?? raw['max_tokens'];
  // A server without tool support refuses any request that offers tools (the Ollama wording).
  if (!model.supports_tools && raw['tools'] !== undefined) {
    throw new ApiFailure(400, `registry.ollama.ai/library/${model.id} does not support tools`, null, null, 'api_error');
  }
  return { body: raw as unknown as ChatRequestBody, model, maxTokens: typeof maxRaw === 'number' ? maxRaw : undefined, reasoningEffort };
}
