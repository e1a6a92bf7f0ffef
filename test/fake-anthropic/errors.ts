/**
 * Error bodies, status mapping and id generation, matching the real API's shapes:
 * `{"type":"error","error":{"type":"…","message":"…"},"request_id":"req_…"}`.
 */
import type { ApiErrorType } from './types';

/** The error type the real API uses for an HTTP status. */
export function errorTypeForStatus(status: number): ApiErrorType {
  switch (status) {
    case 400:
      return 'invalid_request_error';
    case 401:
      return 'authentication_error';
    case 402:
      return 'billing_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 413:
      return 'request_too_large';
    case 429:
      return 'rate_limit_error';
    case 504:
      return 'timeout_error';
    case 529:
      return 'overloaded_error';
    default:
      return status >= 500 ? 'api_error' : 'invalid_request_error';
  }
}

/** Default `error.message` per type (as observed from the real API). */
export function defaultErrorMessage(type: ApiErrorType): string {
  switch (type) {
    case 'invalid_request_error':
      return 'Invalid request';
    case 'authentication_error':
      return 'invalid x-api-key';
    case 'billing_error':
      return 'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.';
    case 'permission_error':
      return 'Your API key does not have permission to use the specified resource.';
    case 'not_found_error':
      return 'Not found';
    case 'request_too_large':
      return 'Request exceeds the maximum size';
    case 'rate_limit_error':
      return (
        'This request would exceed the rate limit for your organization (00000000-0000-0000-0000-000000000000) ' +
        'of 50 requests per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits. ' +
        'You can see the response headers for current usage. Please reduce the prompt length or the maximum ' +
        'tokens requested, or try again later. You may also contact sales at https://www.anthropic.com/contact-sales ' +
        'to discuss your options for a rate limit increase.'
      );
    case 'api_error':
      return 'Internal server error';
    case 'timeout_error':
      return 'Request timed out';
    case 'overloaded_error':
      return 'Overloaded';
  }
}

/** Whether the real API tells the SDK to retry (`x-should-retry`). */
export function shouldRetry(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

export interface ErrorBody {
  type: 'error';
  error: { type: ApiErrorType | string; message: string };
  request_id: string;
}

export function errorBody(type: ApiErrorType | string, message: string, requestId: string): ErrorBody {
  return { type: 'error', error: { type, message }, request_id: requestId };
}

/** A validation failure: the status and error the fake answers with. */
export class ApiFailure {
  constructor(
    readonly status: number,
    readonly type: ApiErrorType,
    readonly message: string,
  ) {}
}

export function invalid(message: string): ApiFailure {
  return new ApiFailure(400, 'invalid_request_error', message);
}

// ---------------------------------------------------------------------------------------------
// Ids: deterministic per fake instance (seeded), in the real formats.

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

export class IdGenerator {
  private state: number;
  constructor(seed: number) {
    this.state = (seed >>> 0) || 1;
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
    for (let i = 0; i < n; i++) s += BASE58[this.next() % BASE58.length];
    return s;
  }
  /** `msg_01…` (24 chars after the prefix, like the real ids). */
  message(): string {
    return `msg_01${this.chars(22)}`;
  }
  /** `toolu_01…` */
  toolUse(): string {
    return `toolu_01${this.chars(22)}`;
  }
  /** `req_011C…` */
  request(): string {
    return `req_011C${this.chars(20)}`;
  }
}
