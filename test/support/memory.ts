/** A tool registry with only the memory tool, over `folder`, and a context to call it with. */
import * as os from 'node:os';
import { createMemoryTool } from '../../src/core/tools/memory';
import { createToolRegistry, type ToolRegistry } from '../../src/core/tools/registry';
import type { ToolContext, ToolDefinition } from '../../src/core/tools/types';
import { NodeWorkspace } from '../../src/core/workspace/workspace';

export interface MemorySession {
  registry: ToolRegistry;
  ctx: ToolContext;
  call(input: Record<string, unknown>): ReturnType<ToolRegistry['executeToolCall']>;
}

export function memorySession(folder: string, readOnly = false): MemorySession {
  const registry = createToolRegistry({ trusted: true, externalTools: [createMemoryTool({ folder, readOnly }) as ToolDefinition<unknown>] });
  const ctx: ToolContext = { workspace: new NodeWorkspace(os.tmpdir()), signal: new AbortController().signal, onProgress: () => undefined, approve: async () => ({ approved: false }) };
  return { registry, ctx, call: (input) => registry.executeToolCall('memory', input, ctx) };
}

