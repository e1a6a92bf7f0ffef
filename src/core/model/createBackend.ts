/** The one place that knows which class serves which provider. */
import type { Logger } from '../logger';
import { AnthropicBackend } from './anthropic';
import type { BackendOptions, ModelBackend, ProviderId } from './backend';
import { OpenAIBackend } from './openai';

export interface BackendConfig extends BackendOptions {
  provider: ProviderId;
  /** Where a back end notes odd server behaviour (the OpenAI one: unknown finish reasons, missing usage). */
  logger?: Logger | undefined;
}

/** A back end for `config.provider`; each reads its own provider's env variables for what is not given. */
export function createBackend(config: BackendConfig): ModelBackend {
  const { provider, logger, ...options } = config;
  switch (provider) {
    case 'anthropic':
      return new AnthropicBackend(options);
    case 'openai':
      return new OpenAIBackend({ ...options, ...(logger ? { logger } : {}) });
  }
}
