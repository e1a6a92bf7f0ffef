// The MCP benchmark's server (stdio): RECORD_TABLES tools (default 300) `fetch_records_<n>`, each
// taking {bytes, seed} and answering with records.mjs's text of that size. Its definitions are
// far over 10% of a 64k window, so a session offers them through mcp_search and mcp_call.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { records, TABLES } from './records.mjs';

const count = Number(process.env.RECORD_TABLES ?? 300);
const tools = Array.from({ length: count }, (_, n) => ({
  name: `fetch_records_${n}`,
  description: `Fetches rows of the ${TABLES[n % TABLES.length]} table, shard ${n}, as text (one row a line). Large shards return megabytes; ask for the bytes you need.`,
  inputSchema: {
    type: 'object',
    properties: {
      bytes: { type: 'integer', minimum: 1, maximum: 20_000_000, description: 'How many bytes of rows to return.' },
      seed: { type: 'integer', minimum: 0, description: 'Which page of rows (any number; the same number gives the same rows).' },
    },
    required: ['bytes', 'seed'],
    additionalProperties: false,
  },
}));

const server = new Server({ name: 'bench-records', version: '1.0.0' }, { capabilities: { tools: { listChanged: false } } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const match = /^fetch_records_(\d+)$/.exec(request.params.name);
  if (!match || Number(match[1]) >= count) return { content: [{ type: 'text', text: `unknown tool ${request.params.name}` }], isError: true };
  const { bytes, seed } = request.params.arguments ?? {};
  return { content: [{ type: 'text', text: records(Number(match[1]), Number(seed), Number(bytes)) }] };
});
await server.connect(new StdioServerTransport());
