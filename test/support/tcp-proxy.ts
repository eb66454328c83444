import type { AddressInfo } from 'node:net';
import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a real server, for faults the server itself cannot be made to show: while
 * frozen it keeps every connection open and accepts bytes but passes nothing on, which is how a hung
 * Redis (or one behind a dead network path) looks to a client.
 */
export interface TcpProxy {
  readonly port: number;
  /** Connections clients opened through the proxy so far. */
  readonly connectionCount: number;
  freeze(): void;
  thaw(): void;
  close(): Promise<void>;
}

export async function startTcpProxy({ targetHost, targetPort }: { targetHost: string; targetPort: number }) {
  let isFrozen = false;
  let connectionCount = 0;
  const sockets = new Set<Socket>();
  const held: Array<() => void> = [];
  const server: Server = createServer((client) => {
    connectionCount += 1;
    const upstream = connect({ host: targetHost, port: targetPort });
    sockets.add(client).add(upstream);
    const forward = (from: Socket, to: Socket) =>
      from.on('data', (chunk) => {
        if (isFrozen) held.push(() => to.write(chunk));
        else to.write(chunk);
      });
    forward(client, upstream);
    forward(upstream, client);
    const closeBoth = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', closeBoth).on('error', closeBoth);
    upstream.on('close', closeBoth).on('error', closeBoth);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxy: TcpProxy = {
    port: (server.address() as AddressInfo).port,
    get connectionCount() {
      return connectionCount;
    },
    freeze() {
      isFrozen = true;
    },
    thaw() {
      isFrozen = false;
      for (const release of held.splice(0)) release();
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return proxy;
}
