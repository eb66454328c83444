export type { FakeAttachment, FakeFile } from './attachment-hosting.ts';
export type { FakeDiscordEvent, WaitForOptions } from './change-feed.ts';
export type { RegisteredCommand } from './command-registry.ts';
export type { DiscordErrorBody } from './discord-api-error.ts';
export { type FakeDiscord, type FakeDiscordOptions, startFakeDiscord } from './fake-discord.ts';
export type { FakeInteraction, InteractionKind, InteractionResponse } from './interaction-store.ts';
export type { InvalidRequestLimit, InvalidRequestState } from './invalid-requests.ts';
export { characterCount, messageLimits } from './message-limits.ts';
export type { FakeMessage, MessageRevision } from './message-store.ts';
export type { BotPermission } from './permissions.ts';
export type {
  BucketLimit,
  ForcedRateLimit,
  RateLimitHits,
  RateLimitKind,
  RateLimitOptions,
} from './rate-limiter.ts';
export type { RestCall } from './rest-call.ts';
export type { RestRouteName } from './rest-route.ts';
export type { SpecificationViolation, ViolationKind } from './specification-check.ts';
export type {
  AutocompleteOptions,
  ComponentOptions,
  ForwardOptions,
  SlashCommandOptions,
  UserMessageOptions,
} from './user-actions.ts';
export type { FakeChannel, FakeGuild, FakeUser } from './world.ts';
