// Local web servers for the web tools' tests: 127.0.0.1 only, every request recorded, and every
// response loop bounded (it stops when the client goes away or after a fixed amount).
import { readFileSync } from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
}

export interface WebServer {
  /** http://127.0.0.1:PORT (or https://). */
  origin: string;
  port: number;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'web');

export async function startWebServer(handler: Handler, options: { tls?: boolean } = {}): Promise<WebServer> {
  const requests: RecordedRequest[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const listener: Handler = (req, res) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    handler(req, res);
  };
  const server = options.tls
    ? https.createServer({ key: readFileSync(path.join(FIXTURES, 'selfsigned.key')), cert: readFileSync(path.join(FIXTURES, 'selfsigned.crt')) }, listener)
    : http.createServer(listener);
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('tlsClientError', () => undefined); // The client refusing our certificate is the point of that test.
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * Writes `totalBytes` of `chunk` repeated, as fast as the client reads, and stops when the client
 * goes away: a huge response that costs the test only what the client really reads.
 */
export function streamBytes(res: http.ServerResponse, chunk: Buffer, totalBytes: number): void {
  let sent = 0;
  const write = (): void => {
    while (sent < totalBytes && !res.destroyed) {
      sent += chunk.length;
      if (!res.write(chunk)) {
        res.once('drain', write);
        return;
      }
    }
    if (!res.destroyed) res.end();
  };
  res.on('close', () => {
    sent = totalBytes;
  });
  write();
}
