/**
 * MCP over HTTP: a Streamable HTTP server of our own on 127.0.0.1 (the SDK's server side), and the
 * ways an HTTP server fails: 401, 404 (an SSE-only server), 500, and a redirect to another origin,
 * which must not carry the configured headers there.
 */
import { strict as assert } from 'node:assert';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { parseMcpConfigValue, type McpServerConfig } from '../../src/core/mcp/config';
import { McpServerConnection } from '../../src/core/mcp/connection';
import { silentLogger } from '../../src/core/logger';

interface TestServer {
  url: string;
  /** The Authorization header of every request it received. */
  authorizations: Array<string | undefined>;
  close(): Promise<void>;
}

/** A server on 127.0.0.1 answering each request with `handle`. */
async function listen(handle: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<TestServer> {
  const authorizations: Array<string | undefined> = [];
  const server = http.createServer((req, res) => {
    authorizations.push(req.headers.authorization);
    handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/mcp`, authorizations, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** A stateless Streamable HTTP MCP server with one tool, `whoami`, that answers with the Authorization header it got. */
function mcpHandler(req: http.IncomingMessage, res: http.ServerResponse): void {
  const server = new Server({ name: 'http-test', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: 'whoami', description: 'Says which credentials arrived.', inputSchema: { type: 'object', properties: {} } }] }));
  server.setRequestHandler(CallToolRequestSchema, async () => ({ content: [{ type: 'text', text: `authorization: ${req.headers.authorization ?? '(none)'}` }] }));
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  void server.connect(transport).then(() => transport.handleRequest(req, res));
}

function httpServer(url: string, headers: Record<string, string> = {}): McpServerConfig {
  const parsed = parseMcpConfigValue({ remote: { type: 'http', url, headers } }, { scope: 'user', source: 'test' }, { env: { TOKEN: 's3cret' } }, { bare: true });
  assert.equal(parsed.problems.length, 0, JSON.stringify(parsed.problems));
  return parsed.servers[0]!;
}

describe('MCP servers over HTTP (servers of our own on 127.0.0.1)', function () {
  this.timeout(30_000);
  const servers: TestServer[] = [];
  const connections: McpServerConnection[] = [];
  const connect = (config: McpServerConfig) => {
    const connection = new McpServerConnection(config, { logger: silentLogger, clientVersion: 'test', startTimeoutMs: 5_000 });
    connections.push(connection);
    return connection;
  };
  afterEach(async () => {
    await Promise.all(connections.splice(0).map((connection) => connection.stop()));
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  it('lists and calls tools over Streamable HTTP, with the configured headers (${env:…} expanded)', async () => {
    const server = await listen(mcpHandler);
    servers.push(server);
    const connection = connect(httpServer(server.url, { Authorization: 'Bearer ${env:TOKEN}' }));
    const tools = await connection.start();
    assert.deepEqual(tools.map((tool) => tool.name), ['whoami']);
    const result = await connection.callTool('whoami', {}, new AbortController().signal);
    assert.match(JSON.stringify(result.content), /authorization: Bearer s3cret/);
  });

  for (const [status, expected] of [
    [401, /401/],
    [500, /500/],
  ] as const) {
    it(`a server that answers ${status} fails to start with the status in the reason`, async () => {
      const server = await listen((_req, res) => {
        res.writeHead(status, { 'content-type': 'text/plain' });
        res.end(status === 401 ? 'Unauthorized' : 'Internal error');
      });
      servers.push(server);
      const connection = connect(httpServer(server.url));
      await assert.rejects(connection.start(), (error: Error) => expected.test(error.message) && /failed to start/.test(error.message));
      assert.equal(connection.state.kind, 'failed');
    });
  }

  it('a 404 to Streamable HTTP falls back to SSE, and fails with a reason when that is not there either', async () => {
    const server = await listen((_req, res) => {
      res.writeHead(404);
      res.end('Not Found');
    });
    servers.push(server);
    const connection = connect(httpServer(server.url));
    await assert.rejects(connection.start(), /failed to start: HTTP 404/);
    // The POST of Streamable HTTP, then the GET of SSE.
    assert.ok(server.authorizations.length >= 2, `${server.authorizations.length} request(s)`);
  });

  it('a redirect to another origin is not followed: the headers never reach it', async () => {
    const elsewhere = await listen(mcpHandler);
    servers.push(elsewhere);
    const redirecting = await listen((_req, res) => {
      res.writeHead(307, { location: elsewhere.url });
      res.end();
    });
    servers.push(redirecting);
    const connection = connect(httpServer(redirecting.url, { Authorization: 'Bearer ${env:TOKEN}' }));
    await assert.rejects(connection.start(), /failed to start/);
    assert.ok(redirecting.authorizations.includes('Bearer s3cret'), 'the configured server got its header');
    assert.deepEqual(elsewhere.authorizations.filter((value) => value !== undefined), [], 'no header went to the other origin');
  });
});
