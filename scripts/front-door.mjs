// The address a user types, http://127.0.0.1:8080/, must show Evergreen. code-server loads an
// extension under development only through the workbench URL's payload (see start.mjs), so a
// small front door listens on the public port: the bare "/" is redirected to that workbench URL,
// and everything else (assets, the extension host's WebSockets) is passed to code-server as is.
import * as http from 'node:http';
import * as net from 'node:net';

/**
 * @param {{ port: number, target: number, landing: string, log?: (line: string) => void }} options
 *   landing: path + query of the workbench URL ("/?folder=…&payload=…").
 * @returns {Promise<{ port: number, close(): Promise<void> }>}
 */
export function startFrontDoor({ port, target, landing, log = () => {} }) {
  const server = http.createServer((req, res) => {
    if ((req.method === 'GET' || req.method === 'HEAD') && req.url === '/') {
      res.writeHead(302, { Location: landing, 'Cache-Control': 'no-store' });
      res.end();
      return;
    }
    const upstream = http.request({ host: '127.0.0.1', port: target, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
      answer.pipe(res);
    });
    upstream.on('error', (error) => {
      log(`front door: ${req.method} ${req.url}: ${error.message}`);
      if (!res.headersSent) res.writeHead(502, { 'Content-Type': 'text/plain' });
      res.end('VS Code (code-server) is not answering; see the terminal running `npm start`.\n');
    });
    req.pipe(upstream);
  });
  // WebSockets: replay the request line and headers to code-server, then splice the two sockets.
  server.on('upgrade', (req, socket, head) => {
    const upstream = net.connect(target, '127.0.0.1', () => {
      const lines = [`${req.method} ${req.url} HTTP/${req.httpVersion}`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length > 0) upstream.write(head);
      socket.pipe(upstream).pipe(socket);
    });
    const close = () => {
      socket.destroy();
      upstream.destroy();
    };
    upstream.on('error', (error) => {
      log(`front door: WebSocket ${req.url}: ${error.message}`);
      close();
    });
    socket.on('error', close);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      resolve({
        port: typeof address === 'object' && address ? address.port : port,
        close: () => new Promise((done) => server.close(() => done())),
      });
    });
  });
}
