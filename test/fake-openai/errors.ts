/**
 * Error bodies, status mapping and id generation, matching the real API's shapes:
 * `{"error":{"message":"…","type":"…","param":…,"code":…}}`.
 */
import type { ApiErrorType } from './types';

export interface ErrorBody {
  error: { message: string; type: ApiErrorType | string; param: string | null; code: string | null };
}

export function errorBody(message: string, type: ApiErrorType | string, param: string | null = null, code: string | null = null): ErrorBody {
  return { error: { message, type, param, code } };
}

/** The type, code and message the real API uses for an HTTP status. */
export function defaultsForStatus(status: number): { type: ApiErrorType; code: string | null; message: string } {
  switch (status) {
    case 400:
      return { type: 'invalid_request_error', code: null, message: 'Invalid request.' };
    case 401:
      return {
        type: 'invalid_request_error',
        code: 'invalid_api_key',
        message: 'Incorrect API key provided: sk-wrong. You can find your API key at https://platform.openai.com/account/api-keys.',
      };
    case 403:
      return { type: 'invalid_request_error', code: 'unsupported_country_region_territory', message: 'Country, region, or territory not supported' };
    case 404:
      return { type: 'invalid_request_error', code: 'model_not_found', message: 'The model `unknown` does not exist or you do not have access to it.' };
    case 429:
      return {
        type: 'tokens',
        code: 'rate_limit_exceeded',
        message:
          'Rate limit reached for gpt-4o in organization org-fake on tokens per min (TPM): Limit 30000, Used 29000, Requested 2000. ' +
          'Please try again in 2s. Visit https://platform.openai.com/account/rate-limits to learn more.',
      };
    case 503:
      return { type: 'server_error', code: null, message: 'The engine is currently overloaded, please try again later' };
    default:
      return status >= 500
        ? { type: 'server_error', code: null, message: 'The server had an error while processing your request. Sorry about that!' }
        : { type: 'invalid_request_error', code: null, message: 'Invalid request.' };
  }
}

/** A validation failure: the status and error body the fake answers with. */
export class ApiFailure {
  constructor(
    readonly status: number,
    readonly message: string,
    readonly param: string | null = null,
    readonly code: string | null = null,
    readonly type: ApiErrorType | string = 'invalid_request_error',
  ) {}

  body(): ErrorBody {
    return errorBody(this.message, this.type, this.param, this.code);
  }
}

export function invalid(message: string, param: string | null = null, code: string | null = null): ApiFailure {
  return new ApiFailure(400, message, param, code);
}

// ---------------------------------------------------------------------------------------------
// Ids: deterministic per fake instance (seeded), in the real formats.

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export class IdGenerator {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0 || 1;
  }
  private next(): number {
    // xorshift32
    let x = this.state;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.state = x >>> 0;
    return this.state;
  }
  private chars(n: number): string {
    let s = '';
    for (let i = 0; i < n; i++) s += ALNUM[this.next() % ALNUM.length];
    return s;
  }
  /** `chatcmpl-…` (29 chars after the prefix, like the real ids). */
  completion(): string {
    return `chatcmpl-${this.chars(29)}`;
  }
  /** `call_…` (24 chars after the prefix). */
  toolCall(): string {
    return `call_${this.chars(24)}`;
  }
  /** `req_…` (32 hex-ish chars). */
  request(): string {
    return `req_${this.chars(32)}`;
  }
}
