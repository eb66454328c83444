import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import { guildIdOfEvent, readShard, type ShardPair, shardReceives } from './shard-routing.ts';

/** Builds the `d` of a dispatch for one session, or `undefined` when its intents exclude it. */
export type DispatchBuilder = (intents: number) => unknown;

/** What the gateway needs from the rest of the fake. */
export interface GatewayServerOptions {
  /** The bot token an IDENTIFY must carry (without the `Bot ` prefix). */
  token: string;
  heartbeatIntervalMs: number;
  /** The `d` of READY for a new session. */
  readyPayload: (sessionId: string) => Record<string, unknown>;
  /** One GUILD_CREATE `d` per guild, sent right after READY. */
  guildCreatePayloads: () => Record<string, unknown>[];
  /** The members of a guild for a REQUEST_GUILD_MEMBERS (op 8). */
  guildMembers: (guildId: string) => { user?: { id: string } }[];
  /** The privileged intent bits the application may not ask for: not enabled, or not approved. */
  disallowedIntents: () => number;
}

/** The gateway WebSocket: handshake, heartbeats and dispatches to every identified session. */
export interface GatewayServer {
  /** Takes an HTTP upgrade for `/gateway`; returns `false` for other paths. */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /**
   * Sends a dispatch (op 0) to every session whose intents admit it; a session that lost its
   * connection keeps it for a RESUME.
   */
  dispatch(eventName: string, build: DispatchBuilder): void;
  /** How many sessions are identified and connected. */
  readonly identifiedSessionCount: number;
  /** How many sessions exist, connected or waiting for a RESUME. */
  readonly sessionCount: number;
  /** The `shard` each connected session identified with (undefined: not sharded). */
  readonly identifiedShards: ReadonlyArray<ShardPair | undefined>;
  /** Closes every connection with `code`, e.g. to make clients resume. */
  disconnectAll(code?: number): void;
  /**
   * Ends every session, as when Discord cannot resume them: connections close, a RESUME gets
   * INVALID_SESSION (`d: false`) and the client must identify afresh; its IDENTIFY waits until `end()`,
   * so what happens meanwhile reaches no session and is never replayed.
   */
  interruptSessions(): { end(): void };
  /** Between `interruptSessions()` and its `end()`: clients are coming back, but nothing reaches them. */
  readonly isInterrupted: boolean;
  close(): void;
}

/** Gateway opcodes the fake speaks. */
const opcodes = {
  dispatch: 0,
  heartbeat: 1,
  identify: 2,
  presenceUpdate: 3,
  voiceStateUpdate: 4,
  resume: 6,
  requestGuildMembers: 8,
  invalidSession: 9,
  hello: 10,
  heartbeatAck: 11,
} as const;

/**
 * Close codes Discord uses for protocol mistakes; clients react to each differently
 * (topics/opcodes-and-status-codes.mdx, "Gateway Close Event Codes").
 */
const closeCodes = {
  unknownOpcode: 4001,
  decodeError: 4002,
  notAuthenticated: 4003,
  authenticationFailed: 4004,
  alreadyAuthenticated: 4005,
  invalidShard: 4010,
  disallowedIntents: 4014,
} as const;

/** One WebSocket connection; it belongs to a session once it identified or resumed. */
interface Connection {
  socket: WebSocket;
  session: Session | null;
}

/**
 * A gateway session outlives its connection so that a client can RESUME it and get what it missed,
 * as on Discord. A client that closes with 1000/1001 ends its session.
 */
interface Session {
  id: string;
  sequence: number;
  intents: number;
  /** `[shard_id, num_shards]` from IDENTIFY; the session gets only its shard's guilds. */
  shard: ShardPair | undefined;
  connection: Connection | null;
  /** The latest dispatches, replayed on RESUME. */
  backlog: { sequence: number; text: string }[];
}

// Enough for any test's disconnect; an older sequence gets INVALID_SESSION and identifies afresh.
const maxBacklogEvents = 1000;

/** Creates the gateway; it shares the HTTP server of the REST API through upgrades. */
export function createGatewayServer(options: GatewayServerOptions): GatewayServer {
  const server = new WebSocketServer({ noServer: true });
  const connections = new Set<Connection>();
  const sessions = new Map<string, Session>();
  // IDENTIFYs held while the sessions are interrupted, answered in order when it ends.
  let heldIdentifies: { connection: Connection; data: Record<string, unknown> }[] | undefined;

  function send(connection: Connection, payload: Record<string, unknown>): void {
    sendText(connection, JSON.stringify(payload));
  }

  function sendText(connection: Connection, text: string): void {
    if (connection.socket.readyState === connection.socket.OPEN) {
      connection.socket.send(text);
    }
  }

  function dispatchTo(session: Session, eventName: string, data: unknown): void {
    session.sequence += 1;
    const text = JSON.stringify({ op: opcodes.dispatch, t: eventName, s: session.sequence, d: data });
    session.backlog.push({ sequence: session.sequence, text });
    if (session.backlog.length > maxBacklogEvents) {
      session.backlog.shift();
    }
    if (session.connection !== null) {
      sendText(session.connection, text);
    }
  }

  function attach(connection: Connection, session: Session): void {
    connection.session = session;
    session.connection = connection;
  }

  function identify(connection: Connection, data: Record<string, unknown>): void {
    if (heldIdentifies !== undefined && connection.session === null) {
      heldIdentifies.push({ connection, data });
      return;
    }
    if (connection.session !== null) {
      connection.socket.close(closeCodes.alreadyAuthenticated, 'Already authenticated.');
      return;
    }
    if (data.token !== options.token) {
      connection.socket.close(closeCodes.authenticationFailed, 'Authentication failed.');
      return;
    }
    const intents = typeof data.intents === 'number' ? data.intents : 0;
    // events/gateway.mdx, "Gateway Restrictions": a privileged intent in IDENTIFY that the app has
    // not enabled in the Developer Portal (or was not approved for) closes the connection with 4014
    // (topics/opcodes-and-status-codes.mdx: "Disallowed intent(s)", not to be reconnected with).
    if ((intents & options.disallowedIntents()) !== 0) {
      connection.socket.close(closeCodes.disallowedIntents, 'Disallowed intent(s).');
      return;
    }
    const shardReading = readShard(data.shard);
    if (shardReading === 'invalid') {
      connection.socket.close(closeCodes.invalidShard, 'Invalid shard.');
      return;
    }
    const { shard } = shardReading;
    const session: Session = {
      id: randomBytes(16).toString('hex'),
      sequence: 0,
      intents,
      shard,
      connection: null,
      backlog: [],
    };
    sessions.set(session.id, session);
    attach(connection, session);
    const ready = options.readyPayload(session.id);
    // events/gateway-events.mdx, "Ready": `guilds` are the guilds of this session (its shard), and
    // `shard` echoes what IDENTIFY sent.
    const readyGuilds = (ready.guilds as { id: string }[]).filter((guild) => shardReceives(shard, guild.id));
    dispatchTo(session, 'READY', { ...ready, guilds: readyGuilds, shard: shard ?? [0, 1] });
    for (const guild of options.guildCreatePayloads()) {
      if (shardReceives(shard, String(guild.id))) dispatchTo(session, 'GUILD_CREATE', guild);
    }
  }

  /**
   * events/gateway.mdx, "Resuming": the missed events are replayed, then RESUMED; a session that
   * cannot be resumed gets INVALID_SESSION (op 9, `d: false`).
   */
  function resume(connection: Connection, data: Record<string, unknown>): void {
    if (data.token !== options.token) {
      connection.socket.close(closeCodes.authenticationFailed, 'Authentication failed.');
      return;
    }
    const session = sessions.get(String(data.session_id));
    const lastSeen = Number(data.seq ?? 0);
    const oldestKept = session?.backlog[0]?.sequence ?? Number.POSITIVE_INFINITY;
    const canReplay = session !== undefined && (lastSeen >= session.sequence || lastSeen + 1 >= oldestKept);
    if (session === undefined || session.connection !== null || !canReplay) {
      send(connection, { op: opcodes.invalidSession, d: false });
      return;
    }
    attach(connection, session);
    for (const event of session.backlog) {
      if (event.sequence > lastSeen) {
        sendText(connection, event.text);
      }
    }
    dispatchTo(session, 'RESUMED', null);
  }

  function requestGuildMembers(session: Session, data: Record<string, unknown>): void {
    const guildIds = Array.isArray(data.guild_id) ? data.guild_id : [data.guild_id];
    const userIds = Array.isArray(data.user_ids)
      ? data.user_ids
      : data.user_ids === undefined
        ? undefined
        : [data.user_ids];
    for (const guildId of guildIds) {
      const members = options
        .guildMembers(String(guildId))
        .filter((member) => userIds === undefined || userIds.includes(member.user?.id));
      dispatchTo(session, 'GUILD_MEMBERS_CHUNK', {
        guild_id: guildId,
        members,
        chunk_index: 0,
        chunk_count: 1,
        ...(data.nonce === undefined ? {} : { nonce: data.nonce }),
      });
    }
  }

  function onMessage(connection: Connection, raw: string): void {
    let payload: { op?: unknown; d?: unknown };
    try {
      payload = JSON.parse(raw) as { op?: unknown; d?: unknown };
    } catch {
      connection.socket.close(closeCodes.decodeError, 'Error while decoding payload.');
      return;
    }
    const data = (typeof payload.d === 'object' && payload.d !== null ? payload.d : {}) as Record<
      string,
      unknown
    >;
    switch (payload.op) {
      case opcodes.heartbeat:
        // events/gateway.mdx, "Sending Heartbeats": every heartbeat is acknowledged with op 11;
        // without an ACK the client declares the connection a zombie and reconnects.
        send(connection, { op: opcodes.heartbeatAck });
        return;
      case opcodes.identify:
        identify(connection, data);
        return;
      case opcodes.resume:
        resume(connection, data);
        return;
      case opcodes.requestGuildMembers:
      case opcodes.presenceUpdate:
      case opcodes.voiceStateUpdate:
        if (connection.session === null) {
          connection.socket.close(closeCodes.notAuthenticated, 'Not authenticated.');
        } else if (payload.op === opcodes.requestGuildMembers) {
          requestGuildMembers(connection.session, data);
        }
        return;
      default:
        connection.socket.close(closeCodes.unknownOpcode, 'Unknown opcode.');
    }
  }

  function onClose(connection: Connection, code: number): void {
    connections.delete(connection);
    const { session } = connection;
    if (session === null) {
      return;
    }
    session.connection = null;
    // 1000/1001 from the client is a deliberate goodbye: Discord ends the session, nothing to resume.
    if (code === 1000 || code === 1001) {
      sessions.delete(session.id);
    }
  }

  server.on('connection', (socket: WebSocket) => {
    const connection: Connection = { socket, session: null };
    connections.add(connection);
    socket.on('message', (raw) => onMessage(connection, raw.toString()));
    socket.on('close', (code) => onClose(connection, code));
    socket.on('error', () => onClose(connection, 1006));
    send(connection, { op: opcodes.hello, d: { heartbeat_interval: options.heartbeatIntervalMs } });
  });

  return {
    handleUpgrade(request, socket, head) {
      const path = new URL(request.url ?? '/', 'http://localhost').pathname;
      if (path !== '/gateway') {
        return false;
      }
      server.handleUpgrade(request, socket, head, (webSocket) =>
        server.emit('connection', webSocket, request),
      );
      return true;
    },
    dispatch(eventName, build) {
      for (const session of sessions.values()) {
        const data = build(session.intents);
        if (data !== undefined && shardReceives(session.shard, guildIdOfEvent(eventName, data))) {
          dispatchTo(session, eventName, data);
        }
      }
    },
    get identifiedSessionCount() {
      let count = 0;
      for (const session of sessions.values()) {
        count += session.connection === null ? 0 : 1;
      }
      return count;
    },
    get sessionCount() {
      return sessions.size;
    },
    get identifiedShards() {
      return [...sessions.values()]
        .filter((session) => session.connection !== null)
        .map((session) => session.shard);
    },
    disconnectAll(code = 4000) {
      for (const connection of connections) {
        connection.socket.close(code, 'Disconnected by the test.');
      }
    },
    interruptSessions() {
      heldIdentifies = heldIdentifies ?? [];
      sessions.clear();
      for (const connection of connections) {
        connection.session = null;
        connection.socket.close(4000, 'Sessions interrupted by the test.');
      }
      return {
        end() {
          const held = heldIdentifies ?? [];
          heldIdentifies = undefined;
          for (const { connection, data } of held) {
            if (connections.has(connection)) identify(connection, data);
          }
        },
      };
    },
    get isInterrupted() {
      return heldIdentifies !== undefined;
    },
    close() {
      for (const connection of connections) {
        connection.socket.terminate();
      }
      connections.clear();
      sessions.clear();
      server.close();
    },
  };
}
