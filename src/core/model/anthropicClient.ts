/**
 * The Anthropic SDK's client with only the API resources Evergreen calls: messages (create, stream,
 * count tokens) and models (a model's window). The SDK's `Anthropic` class is this same base class
 * with every resource of the API attached (organization, beta, files, skills, …); its base class and
 * resource classes are public exports, and leaving the rest out keeps about 300 KB of minified code
 * out of the .vsix (bench/package.ts). Requests, retries, errors and streaming are the SDK's own.
 */
import { BaseAnthropic } from '@anthropic-ai/sdk/client';
import { Messages } from '@anthropic-ai/sdk/resources/messages/messages';
import { Models } from '@anthropic-ai/sdk/resources/models';

export class AnthropicClient extends BaseAnthropic {
  readonly messages = new Messages(this);
  readonly models = new Models(this);
}
