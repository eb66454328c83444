import type { AttachmentHosting } from './attachment-hosting.ts';
import type { ChangeFeed } from './change-feed.ts';
import type { CommandRegistry } from './command-registry.ts';
import type { GatewayServer } from './gateway-server.ts';
import type { InteractionStore } from './interaction-store.ts';
import type { InvalidRequestCounter } from './invalid-requests.ts';
import type { MessageStore } from './message-store.ts';
import type { RateLimiter } from './rate-limiter.ts';
import type { RestCall } from './rest-call.ts';
import type { SnowflakeGenerator } from './snowflake.ts';
import type { SpecificationViolation } from './specification-check.ts';
import type { World } from './world.ts';

/** Everything the parts of the fake share: its state, its gateway and its settings. */
export interface FakeDiscordContext {
  /** Where the fake is reachable, e.g. `http://127.0.0.1:43121`; set once the server listens. */
  origin: string;
  token: string;
  applicationId: string;
  ids: SnowflakeGenerator;
  world: World;
  messages: MessageStore;
  attachments: AttachmentHosting;
  interactions: InteractionStore;
  commands: CommandRegistry;
  gateway: GatewayServer;
  changes: ChangeFeed;
  rateLimiter: RateLimiter;
  invalidRequests: InvalidRequestCounter;
  requests: RestCall[];
  /** Requests Discord's OpenAPI specification forbids, until a test takes them. */
  specificationViolations: SpecificationViolation[];
  /** Whether requests are checked against the specification at all (`FakeDiscordOptions`). */
  isCheckingSpecification: boolean;
  settings: {
    /** The upload limit of one file, sent to the bot as `attachment_size_limit`. */
    attachmentSizeLimitBytes: number;
    /** The largest body a message may be sent with, files included. */
    requestSizeLimitBytes: number;
    /** How long after an interaction its first callback is accepted (Discord: 3 s). */
    interactionResponseDeadlineMs: number;
    /** How long an interaction token works for follow-ups and edits (Discord: 15 min). */
    interactionTokenLifetimeMs: number;
    /** The Developer Portal's Message Content Intent toggle (or its approval, for verified apps). */
    isMessageContentIntentEnabled: boolean;
    /** The `shards` /gateway/bot recommends (events/gateway.mdx, "Get Gateway Bot"). */
    recommendedShardCount: number;
  };
}
