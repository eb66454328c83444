import type { ReplyPlace } from './reply-place.ts';
import { isMissingFeatureError, type WorkspaceFeatures } from './workspace-features.ts';

/**
 * How widely one refusal of `chat.startStream` applies, from its error code (chat.startStream,
 * "Errors"): the app lacks the feature in the `workspace`; Slack does not stream in this kind of
 * channel (`channel-type`; a DM when the app's Messages tab is off); posting is restricted in this
 * `channel`; the `recipient` cannot get a stream; or only `this-reply` (a passing failure).
 */
export type RefusalScope = 'workspace' | 'channel-type' | 'channel' | 'recipient' | 'this-reply';

/** The scope of each documented refusal; any other error counts for this reply only. */
export function refusalScopeOf(errorCode: string | undefined): RefusalScope {
  if (isMissingFeatureError(errorCode)) return 'workspace';
  if (errorCode === 'channel_type_not_supported' || errorCode === 'messages_tab_disabled') {
    return 'channel-type';
  }
  // restricted_action and its variants (_read_only_channel, _thread_only_channel, …).
  if (errorCode?.startsWith('restricted_action')) return 'channel';
  if (errorCode === 'team_not_found' || errorCode === 'user_not_found') return 'recipient';
  return 'this-reply';
}

/**
 * The key a refusal of `scope` is remembered under in the place's workspace. A channel's type is
 * known from message events (`channel_type`) and from a DM's id; without it a channel stands alone.
 */
function scopeKey(place: ReplyPlace, scope: Exclude<RefusalScope, 'this-reply'>): string {
  switch (scope) {
    case 'workspace':
      return place.teamId;
    case 'channel-type':
      return place.channelType === undefined
        ? `${place.teamId} channel:${place.channel}`
        : `${place.teamId} type:${place.channelType}`;
    case 'channel':
      return `${place.teamId} channel:${place.channel}`;
    case 'recipient':
      return `${place.teamId} user:${place.recipientUserId ?? ''}`;
  }
}

const rememberedScopes = ['workspace', 'channel-type', 'channel', 'recipient'] as const;

/** Whether a native stream may be tried in this place: Slack has refused none that applies here. */
export function mayStreamNatively(features: WorkspaceFeatures, place: ReplyPlace): boolean {
  return rememberedScopes.every((scope) => features.isAvailable(scopeKey(place, scope), 'nativeStreaming'));
}

/** Remembers Slack's refusal of a stream in this place as widely as its code means; returns the scope. */
export function rememberStreamRefusal({
  features,
  place,
  errorCode,
}: {
  features: WorkspaceFeatures;
  place: ReplyPlace;
  errorCode: string | undefined;
}): RefusalScope {
  const scope = refusalScopeOf(errorCode);
  if (scope !== 'this-reply') features.markUnavailable(scopeKey(place, scope), 'nativeStreaming');
  return scope;
}
