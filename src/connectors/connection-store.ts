import type { OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type Keyv from 'keyv';
import { z } from 'zod';
import type { AtRestEncryption } from '../secrets/encryption-at-rest.ts';

/**
 * Whose connection it is: a person's own (`auth: "person"` servers), or a place's, made by one of
 * its admins (`auth: "owner"`). Keyed by platform, so a Discord id never opens a Slack person's.
 */
export type ConnectionOwner =
  | { readonly kind: 'person'; readonly platform: string; readonly userId: string }
  | { readonly kind: 'place'; readonly platform: string; readonly workspace: string };

export function ownerKey(owner: ConnectionOwner): string {
  return owner.kind === 'person'
    ? `person:${owner.platform}:${owner.userId}`
    : `place:${owner.platform}:${owner.workspace}`;
}

const tokensSchema = z.looseObject({
  access_token: z.string(),
  token_type: z.string(),
  expires_in: z.number().optional(),
  refresh_token: z.string().optional(),
  scope: z.string().optional(),
});

const connectionSchema = z.object({
  tokens: tokensSchema,
  /** When the access token stops working, by the clock of the process that saved it. */
  expiresAtMs: z.number().optional(),
  connectedAtMs: z.number(),
  /** Who made it (the admin, for a place's), for /connections and the audit trail. */
  connectedBy: z.object({ id: z.string(), name: z.string() }),
});

/** How long what discovery found is kept before it is looked up again. */
const discoveryLifetimeMs = 24 * 60 * 60_000;

/** One connection: the tokens, sealed at rest, and when it was made. */
export type Connection = z.infer<typeof connectionSchema>;

/**
 * Every connection parley keeps, sealed with CONNECTOR_TOKENS_KEY (AES-256-GCM) before it reaches
 * the store, each with its owner and server as the associated data, so a sealed value copied under
 * another person's key does not open. A client registration (dynamic or by metadata) is kept per
 * server, sealed too (it may hold a client secret).
 */
export interface ConnectionStore {
  get(owner: ConnectionOwner, server: string): Promise<Connection | undefined>;
  save(owner: ConnectionOwner, server: string, connection: Connection): Promise<void>;
  delete(owner: ConnectionOwner, server: string): Promise<boolean>;
  /** The servers this owner has a connection to, by server name. */
  listFor(owner: ConnectionOwner, servers: readonly string[]): Promise<Map<string, Connection>>;
  clientInformation(server: string): Promise<OAuthClientInformationMixed | undefined>;
  /** What the SDK's discovery found for the server (public metadata), kept so a callback or a refresh need not find it again. */
  discoveryState(server: string): Promise<OAuthDiscoveryState | undefined>;
  saveDiscoveryState(server: string, state: OAuthDiscoveryState | undefined): Promise<void>;
  saveClientInformation(server: string, information: OAuthClientInformationMixed): Promise<void>;
}

export function createConnectionStore({
  store,
  encryption,
}: {
  /** Its own keyv namespace (`connectors`). */
  store: Keyv;
  encryption: AtRestEncryption;
}): ConnectionStore {
  const tokenKey = (owner: ConnectionOwner, server: string) => `token:${ownerKey(owner)}:${server}`;
  const seal = (value: unknown, context: string) =>
    encryption.seal({ plaintext: JSON.stringify(value), context });
  const open = (sealed: unknown, context: string): unknown => {
    if (typeof sealed !== 'string') return undefined;
    return JSON.parse(encryption.open({ sealed, context }));
  };
  const get = async (owner: ConnectionOwner, server: string) => {
    const key = tokenKey(owner, server);
    const parsed = connectionSchema.safeParse(open(await store.get(key), key));
    return parsed.success ? parsed.data : undefined;
  };
  return {
    get,
    async save(owner, server, connection) {
      const key = tokenKey(owner, server);
      await store.set(key, seal(connection, key));
    },
    delete: (owner, server) => store.delete(tokenKey(owner, server)),
    async listFor(owner, servers) {
      const found = new Map<string, Connection>();
      for (const server of servers) {
        const connection = await get(owner, server);
        if (connection) found.set(server, connection);
      }
      return found;
    },
    async clientInformation(server) {
      const key = `client:${server}`;
      return open(await store.get(key), key) as OAuthClientInformationMixed | undefined;
    },
    async saveClientInformation(server, information) {
      const key = `client:${server}`;
      await store.set(key, seal(information, key));
    },
    async discoveryState(server) {
      return (await store.get(`discovery:${server}`)) as OAuthDiscoveryState | undefined;
    },
    async saveDiscoveryState(server, state) {
      if (state === undefined) await store.delete(`discovery:${server}`);
      // Public metadata, so not sealed; kept a day, so a server that moves is found again.
      else await store.set(`discovery:${server}`, JSON.parse(JSON.stringify(state)), discoveryLifetimeMs);
    },
  };
}

/** The tokens as the SDK gives them, with when they expire by this process's clock. */
export function connectionOf({
  tokens,
  nowMs,
  connectedBy,
  connectedAtMs,
}: {
  tokens: OAuthTokens;
  nowMs: number;
  connectedBy: Connection['connectedBy'];
  connectedAtMs: number;
}): Connection {
  return {
    tokens: tokensSchema.parse(tokens),
    ...(tokens.expires_in === undefined ? {} : { expiresAtMs: nowMs + tokens.expires_in * 1_000 }),
    connectedAtMs,
    connectedBy,
  };
}
