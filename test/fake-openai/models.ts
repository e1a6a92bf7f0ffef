/** The fake's model table and the /v1/models object shapes. */
import type { ModelSpec } from './types';

export interface ModelEntry extends Required<Omit<ModelSpec, 'expose_max_model_len' | 'rejects_stream_options' | 'requires_max_completion_tokens' | 'reasoning_efforts'>> {
  id: string;
  expose_max_model_len: boolean;
  rejects_stream_options: boolean;
  requires_max_completion_tokens: boolean;
  /** Empty: not a reasoning model. */
  reasoning_efforts: string[];
}

/** The efforts OpenAI's reasoning models take before gpt-5.1 (the SDK's ReasoningEffort docs): gpt-5 adds `minimal`. */
const O_SERIES_EFFORTS = ['low', 'medium', 'high'];
const GPT5_EFFORTS = ['minimal', 'low', 'medium', 'high'];

export function makeEntry(id: string, spec: ModelSpec): ModelEntry {
  return {
    id,
    context_window: spec.context_window,
    max_output_tokens: spec.max_output_tokens,
    supports_tools: spec.supports_tools ?? true,
    expose_max_model_len: spec.expose_max_model_len ?? false,
    rejects_stream_options: spec.rejects_stream_options ?? false,
    requires_max_completion_tokens: spec.requires_max_completion_tokens ?? false,
    reasoning_efforts: spec.reasoning_efforts ?? [],
    owned_by: spec.owned_by ?? 'system',
    created: spec.created ?? 1_715_367_049,
  };
}

/** Published windows and output limits of a few real models, plus one without tool support (an Ollama tag). */
export function defaultModels(): Map<string, ModelEntry> {
  const table: Record<string, ModelSpec> = {
    'gpt-4o': { context_window: 128_000, max_output_tokens: 16_384 },
    'gpt-4o-mini': { context_window: 128_000, max_output_tokens: 16_384 },
    'gpt-4.1': { context_window: 1_047_576, max_output_tokens: 32_768 },
    'gpt-4.1-mini': { context_window: 1_047_576, max_output_tokens: 32_768 },
    'gpt-5': { context_window: 400_000, max_output_tokens: 128_000, requires_max_completion_tokens: true, reasoning_efforts: GPT5_EFFORTS },
    'gpt-5-mini': { context_window: 400_000, max_output_tokens: 128_000, requires_max_completion_tokens: true, reasoning_efforts: GPT5_EFFORTS },
    'o4-mini': { context_window: 200_000, max_output_tokens: 100_000, requires_max_completion_tokens: true, reasoning_efforts: O_SERIES_EFFORTS },
    o3: { context_window: 200_000, max_output_tokens: 100_000, requires_max_completion_tokens: true, reasoning_efforts: O_SERIES_EFFORTS },
    o1: { context_window: 200_000, max_output_tokens: 100_000, requires_max_completion_tokens: true, reasoning_efforts: O_SERIES_EFFORTS },
    'gpt-4-turbo': { context_window: 128_000, max_output_tokens: 4_096 },
    'gemma2:2b': { context_window: 8_192, max_output_tokens: 8_192, supports_tools: false, owned_by: 'library' },
  };
  return new Map(Object.entries(table).map(([id, spec]) => [id, makeEntry(id, spec)] as const));
}

/** A model object as GET /v1/models returns it (vLLM adds max_model_len). */
export function modelObject(m: ModelEntry): Record<string, unknown> {
  return { id: m.id, object: 'model', created: m.created, owned_by: m.owned_by, ...(m.expose_max_model_len ? { max_model_len: m.context_window } : {}) };
}
