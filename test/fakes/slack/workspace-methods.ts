import { stringArgument } from './api-arguments.ts';
import type { ApiMethod } from './fake-slack-state.ts';
import { SlackApiError } from './slack-api-error.ts';
import { randomSlackId } from './slack-ids.ts';

const authTest: ApiMethod = (state) => ({
  url: `https://${state.workspace.domain}.slack.com/`,
  team: state.workspace.teamName,
  user: state.workspace.botName,
  team_id: state.workspace.teamId,
  user_id: state.workspace.botUserId,
  bot_id: state.workspace.botId,
  is_enterprise_install: false,
});

const usersInfo: ApiMethod = (state, args) => {
  const id = stringArgument(args, 'user');
  if (id === undefined) {
    throw new SlackApiError('user_not_found');
  }
  const user = state.directory.user(id);
  const isBotUser = id === state.workspace.botUserId;
  return {
    user: {
      id: user.id,
      team_id: state.workspace.teamId,
      name: user.name,
      deleted: user.isDeleted,
      real_name: user.realName,
      tz: user.timeZone,
      is_bot: user.isBot,
      is_app_user: false,
      // The user object (docs.slack.dev/reference/objects/user-object) says who administers the
      // workspace: is_admin, is_owner, is_primary_owner; guests are is_restricted/is_ultra_restricted.
      is_admin: user.isAdmin,
      is_owner: user.isOwner,
      is_primary_owner: false,
      is_restricted: false,
      is_ultra_restricted: false,
      profile: {
        real_name: user.realName,
        display_name: user.displayName,
        real_name_normalized: user.realName,
        display_name_normalized: user.displayName,
        ...(isBotUser ? { bot_id: state.workspace.botId, api_app_id: state.workspace.appId } : {}),
        image_48: `${state.origin}/avatars/${user.id}-48.png`,
        team: state.workspace.teamId,
      },
    },
  };
};

// The status line under a thread ("is thinking…") of an AI app; the call log keeps each change.
// assistant.threads.setStatus (docs.slack.dev/reference/methods/assistant.threads.setStatus): channel_id,
// thread_ts and status are required.
const setStatus: ApiMethod = (_state, args) => {
  if (stringArgument(args, 'channel_id') === undefined) {
    throw new SlackApiError('channel_not_found');
  }
  if (stringArgument(args, 'thread_ts') === undefined) {
    throw new SlackApiError('invalid_arguments');
  }
  if (typeof args.status !== 'string') {
    throw new SlackApiError('invalid_arguments');
  }
  return {};
};

const viewsOpen: ApiMethod = (state, args) => {
  if (stringArgument(args, 'trigger_id') === undefined) {
    throw new SlackApiError('invalid_trigger_id');
  }
  const view = args.view;
  if (typeof view !== 'object' || view === null) {
    throw new SlackApiError('invalid_arguments');
  }
  return {
    view: { id: randomSlackId('V'), team_id: state.workspace.teamId, app_id: state.workspace.appId, ...view },
  };
};

const connectionsOpen: ApiMethod = (state) => ({ url: state.openSocketUrl() });

/** `auth.test`, `users.info`, `assistant.threads.setStatus`, `views.open`, `apps.connections.open`. */
export const workspaceMethods: Record<string, ApiMethod> = {
  'auth.test': authTest,
  'users.info': usersInfo,
  'assistant.threads.setStatus': setStatus,
  'views.open': viewsOpen,
  'apps.connections.open': connectionsOpen,
};
