// The providers Evergreen has a back end for. A leaf module: backend.ts (the seam) and models.ts
// (per-provider models and prices) both need it, and neither may import the other in a cycle.

export type ProviderId = 'anthropic' | 'openai';
export const PROVIDERS: readonly ProviderId[] = ['anthropic', 'openai'];
export const DEFAULT_PROVIDER: ProviderId = 'anthropic';

/** How a provider is named to users, and the environment variables its back end falls back to. */
export const PROVIDER_INFO: Readonly<Record<ProviderId, { label: string; apiKeyEnv: string; baseUrlEnv: string }>> = {
  anthropic: { label: 'Anthropic', apiKeyEnv: 'ANTHROPIC_API_KEY', baseUrlEnv: 'ANTHROPIC_BASE_URL' },
  openai: { label: 'OpenAI', apiKeyEnv: 'OPENAI_API_KEY', baseUrlEnv: 'OPENAI_BASE_URL' },
};

/** A provider name from a setting or flag, or undefined when it is not one we know. */
export function parseProvider(value: unknown): ProviderId | undefined {
  return typeof value === 'string' && (PROVIDERS as readonly string[]).includes(value.trim().toLowerCase()) ? (value.trim().toLowerCase() as ProviderId) : undefined;
}
