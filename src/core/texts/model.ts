/** What the core says about the model's server: errors and retries, as kinds with data (src/core/texts/userText.ts); src/frontends/words/model.ts words them. */
import type { NestedText, NoData } from './value';

/**
 * `detail` is the server's (or the SDK's) own words, shown as they came; `status` an HTTP status
 * (an identifier, not a quantity); `who` is `model.theApi` or `model.theServer`.
 */
export interface ModelTexts {
  'model.theApi': NoData;
  'model.theServer': NoData;
  'model.keyRejected': { status: string; detail: string };
  'model.permissionDenied': { status: string; detail: string };
  'model.notFound': { status: string; detail: string };
  'model.rateLimited': { status: string; detail: string };
  'model.rateLimitedInStream': { detail: string };
  'model.overloaded': { who: NestedText; status: string; detail: string };
  'model.serverFailed': { who: NestedText; status: string; detail: string };
  'model.askedToRetry': { who: NestedText; status: string; detail: string };
  'model.rejected': { who: NestedText; status: string; detail: string };
  'model.rejectedInStream': { who: NestedText; detail: string };
  'model.failedMidReply': { detail: string };
  'model.noQuota': { detail: string };
  /** `provider`: the provider's name (Anthropic, OpenAI). */
  'model.noApiKey': { provider: string };
  'model.unreachableAnthropic': { url: string; detail: string };
  'model.unreachableOpenai': { url: string; detail: string };
  'model.connectionDropped': { detail: string };
  'model.streamEnded': NoData;
  'model.streamStalled': { waited: NestedText };
  'model.noReplyWithin': { waited: NestedText };
  'model.milliseconds': { value: number };
  'model.seconds': { value: number };
  /** The model-info request timed out (`waited`: a `model.seconds`): the session goes on with a guessed `window` (tokens). */
  'model.limitsNotSaid': { waited: NestedText; window: number };
  'model.modelsApiSilent': { waited: NestedText };
  /** `what`: what the server answered (a `model.answered…` kind). */
  'model.notCompatible': { url: string; what: NestedText };
  /** A request's answer: `body` is ": " and the start of the server's body, or empty. */
  'model.answered': { url: string; status: string; body: string };
  'model.answeredWith': { url: string; status: string; type: string; body: string };
  'model.answeredUntyped': { url: string; status: string; body: string };
  'model.noToolCalls': { model: string; url: string; detail: string };
  'model.apiUnknownModel': { model: string };
  'model.serverUnknownModel': { model: string; detail: string };
  /** An OpenAI-compatible server's "prompt is too long", with its count when it gave one. */
  'model.promptTooLong': { model: string; detail: string };
  'model.promptTooLongCounted': { prompt: string; max: string; model: string; detail: string };
  'model.cancelled': NoData;
  /** Next steps the same on every front end (the others are ErrorHint kinds, src/core/model/errors.ts). */
  'model.hintKeyPermission': NoData;
  'model.hintWaitAMoment': NoData;
  'model.hintTryInAMinute': NoData;
  'model.hintServiceStatus': NoData;
  'model.hintTryInAMoment': NoData;
  'model.hintBilling': NoData;
  'model.hintNetwork': NoData;
  'model.hintStalled': NoData;
  'model.hintServerRunning': NoData;
}
