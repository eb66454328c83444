import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import { randomEnvelopeId, randomSlackId } from './slack-ids.ts';
import type { Workspace } from './workspace.ts';

/**
 * The envelope types Slack sends over Socket Mode ("Using Socket Mode", docs.slack.dev/apis/
 * events-api/using-socket-mode): a `hello` on connect, then envelopes the app acks with their
 * `envelope_id` (within 3 seconds), and `disconnect` before Slack recycles a connection.
 */
export type EnvelopeType = 'events_api' | 'slash_commands' | 'interactive';

/** Delivery over the app's Socket Mode connection. */
export interface SocketTarget {
  mode: 'socket';
  /** `retry_attempt` of the envelope, as when Slack redelivers an event. */
  retryNum?: number;
  /** `retry_reason`, e.g. `timeout`. */
  retryReason?: string;
  /** How long to wait for a connection and then for the ack. Default: the fake's `ackTimeoutMs`. */
  ackTimeoutMs?: number;
  /**
   * The connection (an id of `socketConnections`) to deliver over; default the newest open one. An
   * app may hold up to 10 connections at once, and Slack sends each envelope to one of them, any of
   * them, retries included ("the Slack API server will send each event to only 1 random
   * connection", slackapi/bolt-python#448; "delivers to any of the active connections and does
   * retries for Events API messages", slackapi/bolt-python#1071): several processes of one app each
   * get a share of the events, and a retry may reach another process than the first delivery.
   */
  connectionId?: number;
}

/** An app's acknowledgement of one envelope. */
export interface SocketAck {
  envelopeId: string;
  type: EnvelopeType;
  /** The `payload` of the ack: what `ack(...)` was called with (a command's reply, say); often `{}`. */
  payload: unknown;
  /** From sending the envelope to receiving the ack. */
  ackDelayMs: number;
  atMs: number;
}

/** What delivering one envelope gave. */
export interface SocketDelivery {
  mode: 'socket';
  envelopeId: string;
  ack: SocketAck;
  durationMs: number;
}

/** One WebSocket connection an app opened. */
export interface SocketConnection {
  id: number;
  connectedAtMs: number;
  closedAtMs: number | undefined;
}

/** The Socket Mode side of the fake. */
export interface SocketModeServer {
  /** A URL for `apps.connections.open`; each is good for one connection. */
  createConnectionUrl(origin: string): string;
  /** Takes over an HTTP upgrade to the Socket Mode path. */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void;
  send(options: {
    type: EnvelopeType;
    payload: unknown;
    acceptsResponsePayload: boolean;
    target: SocketTarget;
  }): Promise<SocketDelivery>;
  /** Asks every connected app to reconnect, as Slack does before recycling a server. */
  disconnectAll(reason: string): void;
  /** Drops every connection without a word, like a network failure. */
  terminateAll(): void;
  readonly connections: SocketConnection[];
  readonly acks: SocketAck[];
  openCount(): number;
  close(): Promise<void>;
}

/** The path of Socket Mode URLs. */
export const socketModePath = '/socket-mode';

interface Pending {
  type: EnvelopeType;
  sentAtMs: number;
  resolve(ack: SocketAck): void;
  reject(error: Error): void;
}

/** Creates the Socket Mode server; `notifyChange` is called on connects, closes and acks. */
export function createSocketModeServer(options: {
  workspace: Workspace;
  defaultAckTimeoutMs: number;
  notifyChange: () => void;
}): SocketModeServer {
  const server = new WebSocketServer({ noServer: true });
  const tickets = new Set<string>();
  const open = new Map<WebSocket, SocketConnection>();
  const connections: SocketConnection[] = [];
  const acks: SocketAck[] = [];
  const pending = new Map<string, Pending>();
  const connectionWaiters = new Set<() => void>();
  let isClosed = false;

  function onConnection(socket: WebSocket): void {
    const connection: SocketConnection = {
      id: connections.length + 1,
      connectedAtMs: Date.now(),
      closedAtMs: undefined,
    };
    connections.push(connection);
    open.set(socket, connection);
    socket.on('message', (data, isBinary) => {
      if (!isBinary) {
        onAppMessage(data.toString());
      }
    });
    socket.on('close', () => {
      connection.closedAtMs = Date.now();
      open.delete(socket);
      options.notifyChange();
    });
    socket.on('error', () => socket.terminate());
    socket.send(
      JSON.stringify({
        type: 'hello',
        num_connections: open.size,
        debug_info: { host: 'applink-fake-1', build_number: 1, approximate_connection_time: 18_060 },
        connection_info: { app_id: options.workspace.appId },
      }),
    );
    for (const wake of connectionWaiters) {
      wake();
    }
    options.notifyChange();
  }

  function onAppMessage(text: string): void {
    let message: { envelope_id?: unknown; payload?: unknown };
    try {
      message = JSON.parse(text) as typeof message;
    } catch {
      return;
    }
    const envelopeId = typeof message.envelope_id === 'string' ? message.envelope_id : '';
    const waiting = pending.get(envelopeId);
    if (waiting === undefined) {
      return;
    }
    pending.delete(envelopeId);
    const ack: SocketAck = {
      envelopeId,
      type: waiting.type,
      payload: message.payload,
      ackDelayMs: performance.now() - waiting.sentAtMs,
      atMs: Date.now(),
    };
    acks.push(ack);
    waiting.resolve(ack);
    options.notifyChange();
  }

  function openSocket(connectionId: number | undefined): WebSocket | undefined {
    const candidates = [...open.entries()].filter(
      ([socket, connection]) =>
        socket.readyState === socket.OPEN && (connectionId === undefined || connection.id === connectionId),
    );
    return candidates.at(-1)?.[0];
  }

  async function waitForSocket(deadlineMs: number, connectionId: number | undefined): Promise<WebSocket> {
    for (;;) {
      if (isClosed) {
        throw new Error('fake slack: closed');
      }
      const socket = openSocket(connectionId);
      if (socket !== undefined) {
        return socket;
      }
      const remainingMs = deadlineMs - performance.now();
      if (remainingMs <= 0) {
        throw new Error('fake slack: no Socket Mode connection to deliver to (did the app start?)');
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, remainingMs);
        function done() {
          clearTimeout(timer);
          connectionWaiters.delete(done);
          resolve();
        }
        connectionWaiters.add(done);
      });
    }
  }

  return {
    createConnectionUrl(origin) {
      const ticket = randomSlackId('', 24).toLowerCase();
      tickets.add(ticket);
      const host = origin.replace(/^http/, 'ws');
      return `${host}${socketModePath}?ticket=${ticket}&app_id=${options.workspace.appId}`;
    },
    handleUpgrade(request, socket, head) {
      const ticket = new URL(request.url ?? '/', 'http://fake').searchParams.get('ticket') ?? '';
      if (!tickets.delete(ticket)) {
        socket.end('HTTP/1.1 401 Unauthorized\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
        return;
      }
      server.handleUpgrade(request, socket, head, onConnection);
    },
    async send({ type, payload, acceptsResponsePayload, target }) {
      const startedAtMs = performance.now();
      const timeoutMs = target.ackTimeoutMs ?? options.defaultAckTimeoutMs;
      const socket = await waitForSocket(startedAtMs + timeoutMs, target.connectionId);
      const envelopeId = randomEnvelopeId();
      const envelope: Record<string, unknown> = {
        envelope_id: envelopeId,
        type,
        payload,
        accepts_response_payload: acceptsResponsePayload,
      };
      if (type === 'events_api') {
        envelope.retry_attempt = target.retryNum ?? 0;
        envelope.retry_reason = target.retryReason ?? (target.retryNum ? 'timeout' : '');
      }
      const ack = await new Promise<SocketAck>((resolve, reject) => {
        const timer = setTimeout(
          () => {
            pending.delete(envelopeId);
            reject(
              new Error(`fake slack: envelope ${envelopeId} (${type}) was not acked within ${timeoutMs} ms`),
            );
          },
          Math.max(0, startedAtMs + timeoutMs - performance.now()),
        );
        pending.set(envelopeId, {
          type,
          sentAtMs: performance.now(),
          resolve(received) {
            clearTimeout(timer);
            resolve(received);
          },
          reject(error) {
            clearTimeout(timer);
            reject(error);
          },
        });
        socket.send(JSON.stringify(envelope));
      });
      return { mode: 'socket', envelopeId, ack, durationMs: performance.now() - startedAtMs };
    },
    disconnectAll(reason) {
      for (const socket of open.keys()) {
        socket.send(JSON.stringify({ type: 'disconnect', reason, debug_info: { host: 'applink-fake-1' } }));
      }
    },
    terminateAll() {
      for (const socket of open.keys()) {
        socket.terminate();
      }
    },
    connections,
    acks,
    openCount: () => open.size,
    async close() {
      isClosed = true;
      for (const socket of open.keys()) {
        socket.terminate();
      }
      for (const wake of connectionWaiters) {
        wake();
      }
      for (const waiting of pending.values()) {
        waiting.reject(new Error('fake slack: closed before the envelope was acked'));
      }
      pending.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
