/** The one place that knows which class serves which provider. */
import { AnthropicBackend } from './anthropic';
import type { BackendOptions, ModelBackend, ProviderId } from './backend';

export interface BackendConfig extends BackendOptions {
  provider: ProviderId;
}

/** A back end for `config.provider`; each reads its own provider's env variables for what is not given. */
export function createBackend(config: BackendConfig): ModelBackend {
  const { provider, ...options } = config;
  switch (provider) {
    case 'anthropic':
      return new AnthropicBackend(options);
    case 'openai':
      throw new Error('The OpenAI back end is not wired yet.');
  }
}
