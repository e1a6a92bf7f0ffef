/** The fake's model table and the /v1/models object shapes. */
import type Anthropic from '@anthropic-ai/sdk';
import type { ModelSpec, ThinkingType } from './types';

export interface ModelEntry extends ModelSpec {
  id: string;
  display_name: string;
  created_at: string;
  min_cacheable_tokens: number;
  supports_thinking: boolean;
  supports_interleaved_thinking: boolean;
  supports_prefill: boolean;
  thinking_types: ThinkingType[];
  thinking_default: 'off' | 'adaptive';
  binds_thinking_to_model: boolean;
}

/** Family and version of a Claude id (`claude-opus-4-1-20250805` → opus 4.1), or undefined. */
function version(id: string): { family: string; major: number; minor: number } | undefined {
  const m = /^claude-(opus|sonnet|haiku|fable|mythos)-(\d)(?:-(\d{1,2})(?!\d))?/.exec(id);
  if (!m || !m[1] || !m[2]) return undefined;
  return { family: m[1], major: Number(m[2]), minor: Number(m[3] ?? '0') };
}

/** Thinking tied to the model that wrote it: Sonnet / Opus 5.5 and later. */
export function defaultBindsThinking(id: string): boolean {
  const v = version(id);
  return v !== undefined && (v.family === 'sonnet' || v.family === 'opus') && v.major * 100 + v.minor >= 505;
}

/** Whether forced tool use is accepted with adaptive thinking (it is skipped then); not on Opus/Sonnet 5.5 or Fable/Mythos 5.1 on. */
export function adaptiveAllowsForcedToolUse(id: string): boolean {
  const v = version(id);
  if (!v) return true;
  const at = v.major * 100 + v.minor;
  if (v.family === 'fable' || v.family === 'mythos') return at < 501;
  return at < 505;
}

/**
 * Thinking types per model and the default when `thinking` is omitted, from the per-model table of
 * the thinking-troubleshooting docs; unknown ids (test models) behave like Claude 4.5.
 */
export function defaultThinking(id: string): { types: ThinkingType[]; default: 'off' | 'adaptive' } {
  const v = version(id);
  if (!v) return { types: ['enabled', 'disabled'], default: 'off' };
  const at = v.major * 100 + v.minor;
  if (v.family === 'fable' || v.family === 'mythos' || (v.family === 'opus' && v.major >= 5)) return { types: ['adaptive'], default: 'adaptive' };
  if (v.family === 'sonnet' && at >= 505) return { types: ['adaptive', 'between_tools'], default: 'adaptive' };
  if (v.family === 'sonnet' && v.major >= 5) return { types: ['adaptive', 'disabled'], default: 'adaptive' };
  if (at >= 407) return { types: ['adaptive', 'disabled'], default: 'off' };
  if (at === 406) return { types: ['enabled', 'adaptive', 'disabled'], default: 'off' };
  return { types: ['enabled', 'disabled'], default: 'off' };
}

/** Extended thinking: Claude 3.7 Sonnet and every Claude 4+ model; not the Claude 3 / 3.5 models (extended-thinking docs). */
export function defaultSupportsThinking(id: string): boolean {
  return !/^claude-3-(?!7)/.test(id);
}

/** Prefill (a final assistant message): refused from Opus / Sonnet 4.6 on. */
export function defaultSupportsPrefill(id: string): boolean {
  return !/^claude-(opus|sonnet)-(4-[6-9]|[5-9])/.test(id);
}

/** Interleaved thinking (the `interleaved-thinking-2025-05-14` beta): Claude 4 models and later. */
export function defaultSupportsInterleavedThinking(id: string): boolean {
  return !/^claude-3-/.test(id);
}

/** Minimum cacheable prefix per family, per the prompt-caching docs. */
export function defaultMinCacheable(id: string): number {
  if (/haiku-4-5|opus-4-5|opus-4-6/.test(id)) return 4096;
  if (/haiku/.test(id)) return 2048;
  return 1024;
}

function line(id: string): Anthropic.ModelLine | null {
  if (id.includes('haiku')) return 'haiku';
  if (id.includes('sonnet')) return 'sonnet';
  if (id.includes('opus')) return 'opus';
  return null;
}

function displayName(id: string): string {
  const m = /^claude-(\w+)-(\d+)-(\d+)/.exec(id);
  if (!m || !m[1] || !m[2] || !m[3]) return id;
  return `Claude ${m[1].charAt(0).toUpperCase()}${m[1].slice(1)} ${m[2]}.${m[3]}`;
}

export function makeEntry(id: string, spec: ModelSpec): ModelEntry {
  return {
    ...spec,
    id,
    display_name: spec.display_name ?? displayName(id),
    created_at: spec.created_at ?? '2025-09-29T00:00:00Z',
    min_cacheable_tokens: spec.min_cacheable_tokens ?? defaultMinCacheable(id),
    supports_thinking: spec.supports_thinking ?? defaultSupportsThinking(id),
    supports_interleaved_thinking: spec.supports_interleaved_thinking ?? defaultSupportsInterleavedThinking(id),
    supports_prefill: spec.supports_prefill ?? defaultSupportsPrefill(id),
    thinking_types: spec.thinking_types ?? defaultThinking(id).types,
    thinking_default: spec.thinking_default ?? defaultThinking(id).default,
    binds_thinking_to_model: spec.binds_thinking_to_model ?? defaultBindsThinking(id),
  };
}

/** Default table: dated ids, with the undated aliases resolving to them (as the real API does). */
export function defaultModels(): { models: Map<string, ModelEntry>; aliases: Map<string, string> } {
  const models = new Map<string, ModelEntry>();
  const add = (id: string, spec: ModelSpec): void => {
    models.set(id, makeEntry(id, spec));
  };
  add('claude-sonnet-4-5-20250929', {
    max_input_tokens: 200_000,
    max_tokens: 64_000,
    display_name: 'Claude Sonnet 4.5',
    created_at: '2025-09-29T00:00:00Z',
  });
  add('claude-haiku-4-5-20251001', {
    max_input_tokens: 200_000,
    max_tokens: 64_000,
    display_name: 'Claude Haiku 4.5',
    created_at: '2025-10-01T00:00:00Z',
  });
  add('claude-opus-4-1-20250805', {
    max_input_tokens: 200_000,
    max_tokens: 32_000,
    display_name: 'Claude Opus 4.1',
    created_at: '2025-08-05T00:00:00Z',
  });
  // Undated ids (no alias): newer models the SDK does not flag as deprecated.
  add('claude-sonnet-4-6', {
    max_input_tokens: 200_000,
    max_tokens: 128_000,
    display_name: 'Claude Sonnet 4.6',
    created_at: '2026-02-17T00:00:00Z',
  });
  add('claude-opus-4-6', {
    max_input_tokens: 200_000,
    max_tokens: 128_000,
    display_name: 'Claude Opus 4.6',
    created_at: '2026-02-05T00:00:00Z',
  });
  // Evergreen's default model (src/core/model/models.ts): the current Sonnet, 1M window per the models docs.
  add('claude-sonnet-5-5', {
    max_input_tokens: 1_000_000,
    max_tokens: 128_000,
    display_name: 'Claude Sonnet 5.5',
    created_at: '2026-10-01T00:00:00Z',
  });
  // Older models src/core/model/models.ts still lists: 3.7 Sonnet thinks (not interleaved), 3.5 Haiku cannot.
  add('claude-3-7-sonnet-20250219', {
    max_input_tokens: 200_000,
    max_tokens: 64_000,
    display_name: 'Claude Sonnet 3.7',
    created_at: '2025-02-24T00:00:00Z',
  });
  add('claude-3-5-haiku-20241022', {
    max_input_tokens: 200_000,
    max_tokens: 8_192,
    display_name: 'Claude Haiku 3.5',
    created_at: '2024-10-22T00:00:00Z',
  });
  const aliases = new Map<string, string>([
    ['claude-3-7-sonnet-latest', 'claude-3-7-sonnet-20250219'],
    ['claude-3-5-haiku-latest', 'claude-3-5-haiku-20241022'],
    ['claude-sonnet-4-5', 'claude-sonnet-4-5-20250929'],
    ['claude-haiku-4-5', 'claude-haiku-4-5-20251001'],
    ['claude-opus-4-1', 'claude-opus-4-1-20250805'],
  ]);
  return { models, aliases };
}

export function modelInfo(e: ModelEntry): Anthropic.ModelInfo {
  return {
    type: 'model',
    id: e.id,
    display_name: e.display_name,
    created_at: e.created_at,
    max_input_tokens: e.max_input_tokens,
    max_tokens: e.max_tokens,
    capabilities: null,
    deprecated_at: null,
    lifecycle: 'active',
    line: line(e.id),
    retires_at: null,
  };
}
