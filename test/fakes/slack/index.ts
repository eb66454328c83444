export {
  agentSessionStopped,
  appContextChanged,
  appHomeOpened,
  assistantThreadContextChanged,
  assistantThreadStarted,
} from './agent-event-payloads.ts';
export type { AgentSession, AgentSessionStatus, AgentSessionsState } from './agent-sessions.ts';
export type { AgentExperience, PublishedHomeView, SuggestedPrompts } from './agent-view.ts';
export type { AppDelivery, Deliver, DeliveryTarget } from './app-delivery.ts';
export {
  appMention,
  botMessage,
  channelMessage,
  defaultPersonId,
  directMessage,
  type EventOrigin,
  eventEnvelope,
  type MessageEventOptions,
  type SlackEvent,
  threadReply,
} from './event-payloads.ts';
export { type FakeSlack, type FakeSlackOptions, startFakeSlack } from './fake-slack.ts';
export type { ApiCall, EphemeralMessage, HistoryAccess, NativeStreamingMode } from './fake-slack-state.ts';
export type { FileDownload, SlackFile, UploadedFile } from './file-store.ts';
export type { HttpDelivery, HttpTarget } from './http-delivery.ts';
export {
  buttonClick,
  feedbackClick,
  type InteractionPayload,
  messageShortcut,
  type SlashCommandPayload,
  slashCommand,
  viewSubmission,
} from './interaction-payloads.ts';
export type { SlackMention } from './mention-scanner.ts';
export { markdownShownRaw, messageLimits } from './message-limits.ts';
export type { StoredMessage } from './message-store.ts';
export type { NativeStream, StreamWrite } from './native-streams.ts';
export type { EnterpriseOrg, InstallableWorkspace } from './oauth-installs.ts';
export { defaultRateLimits, type RateLimit, rateLimitTiers } from './rate-limiter.ts';
export { signSlackRequest } from './request-signing.ts';
export type { ResponseUrlPost } from './response-urls.ts';
export type { SocketAck, SocketConnection, SocketDelivery, SocketTarget } from './socket-mode-server.ts';
export { defaultWorkspace, type Workspace } from './workspace.ts';
