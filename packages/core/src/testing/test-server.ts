// Throwaway servers on 127.0.0.1 for the tests of every package that talks HTTP.
import * as http from 'node:http';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface TestServer {
  port: number;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** `127.0.0.1:<port>`, the allowlist entry for this server. */
  hostPort: string;
  close(): Promise<void>;
}

/** An HTTP server on 127.0.0.1 with a random port; `close` also drops keep-alive connections. */
export async function startServer(handler: http.RequestListener): Promise<TestServer> {
  const server = http.createServer(handler);
  return listen(server, () => server.closeAllConnections());
}

/** A TCP server that accepts connections and never answers (stalls TLS handshakes and requests). */
export async function startSilentServer(): Promise<TestServer> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  return listen(server, () => {
    for (const s of sockets) s.destroy();
  });
}

async function listen(server: net.Server, dropConnections: () => void): Promise<TestServer> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    hostPort: `127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        dropConnections();
      }),
  };
}
