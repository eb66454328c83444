import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * The network path between the bot and a real Redis, on a port of its own: it can freeze (the TCP
 * connections stay up, nothing gets through: a hung server or a dead route) or go down (connections
 * reset, the port refuses new ones, as when Redis stops) and come back on the same port.
 */
export interface RedisLink {
  /** `redis://127.0.0.1:<port>/<db>` of the link, for the bot's STORE_URL. */
  readonly url: string;
  freeze(): void;
  thaw(): void;
  /**
   * Freezes the whole link (as a SIGSTOP'd Redis would be) the moment a command whose text matches
   * `pattern` goes by, that command included, and thaws it `forMs` later. Resolves when it froze
   * (the time, in epoch milliseconds), or with undefined when no such command came within `withinMs`.
   */
  freezeAt(options: { pattern: RegExp; forMs: number; withinMs: number }): Promise<number | undefined>;
  takeDown(): Promise<void>;
  bringUp(): Promise<void>;
  close(): Promise<void>;
}

export async function startRedisLink({ redisUrl }: { redisUrl: string }): Promise<RedisLink> {
  const target = new URL(redisUrl);
  const sockets = new Set<Socket>();
  const held: Array<() => void> = [];
  let isFrozen = false;
  let trigger: { pattern: RegExp; fire: () => void } | undefined;
  const thaw = () => {
    isFrozen = false;
    for (const release of held.splice(0)) release();
  };
  const onClient = (client: Socket) => {
    const upstream = connect({ host: target.hostname, port: Number(target.port || 6379) });
    sockets.add(client).add(upstream);
    const forward = (from: Socket, to: Socket) =>
      from.on('data', (chunk) => {
        if (from === client && trigger !== undefined && trigger.pattern.test(chunk.toString('latin1'))) {
          trigger.fire();
        }
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
  };
  let server: Server | undefined = createServer(onClient);
  await listen(server, 0);
  const port = (server.address() as { port: number }).port;
  const closeServer = async () => {
    const closing = server;
    server = undefined;
    // Stop listening first, so a client reconnecting at once is refused rather than let in.
    const closed =
      closing === undefined
        ? Promise.resolve()
        : new Promise<void>((resolve) => closing.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    sockets.clear();
    held.length = 0;
    await closed;
  };
  return {
    url: `redis://127.0.0.1:${port}${target.pathname}`,
    freeze() {
      isFrozen = true;
    },
    thaw,
    freezeAt({ pattern, forMs, withinMs }) {
      return new Promise((resolve) => {
        const giveUp = setTimeout(() => {
          trigger = undefined;
          resolve(undefined);
        }, withinMs);
        trigger = {
          pattern,
          fire: () => {
            trigger = undefined;
            clearTimeout(giveUp);
            isFrozen = true;
            setTimeout(thaw, forMs);
            resolve(Date.now());
          },
        };
      });
    },
    takeDown: closeServer,
    async bringUp() {
      if (server !== undefined) return;
      server = createServer(onClient);
      await listen(server, port);
    },
    close: closeServer,
  };
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
}
