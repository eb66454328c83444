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
      // The profile's zone as an IANA name (api.slack.com/types/user: "tz": "Europe/London").
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

// views.open (docs.slack.dev/reference/methods/views.open): trigger_id must be one Slack issued with
// an interaction, and "expires 3 seconds after being issued" (expired_trigger_id); the view is a
// modal (docs.slack.dev/reference/views/modal-views): type modal, a plain_text title of at most 24
// characters, submit (at most 24) required with input blocks, up to 100 blocks, callback_id up to
// 255 and private_metadata up to 3,000 characters; an input block has a label (at most 2,000) and an
// element, and block ids are unique.
const triggerLifetimeMs = 3_000;
const viewsOpen: ApiMethod = (state, args) => {
  const triggerId = stringArgument(args, 'trigger_id');
  const issuedAtMs = triggerId === undefined ? undefined : state.issuedTriggers.get(triggerId);
  if (triggerId === undefined || issuedAtMs === undefined) throw new SlackApiError('invalid_trigger_id');
  if (Date.now() - issuedAtMs > triggerLifetimeMs) throw new SlackApiError('expired_trigger_id');
  const view = args.view;
  if (typeof view !== 'object' || view === null || Array.isArray(view))
    throw new SlackApiError('invalid_arguments');
  const problems = modalProblems(view as Record<string, unknown>);
  if (problems.length > 0)
    throw new SlackApiError('invalid_arguments', { response_metadata: { messages: problems } });
  const opened = {
    id: randomSlackId('V'),
    team_id: state.workspace.teamId,
    app_id: state.workspace.appId,
    ...view,
  };
  state.openedViews.push({ id: opened.id, triggerId, view: opened });
  state.notifyChange();
  return { view: opened };
};

function textLength(value: unknown): number {
  return typeof value === 'object' && value !== null && typeof (value as { text?: unknown }).text === 'string'
    ? [...(value as { text: string }).text].length
    : -1;
}

function modalProblems(view: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const blocks = Array.isArray(view.blocks) ? (view.blocks as Record<string, unknown>[]) : [];
  if (view.type !== 'modal') problems.push('[ERROR] must be a modal [json-pointer:/view/type]');
  const title = textLength(view.title);
  if (title < 1 || title > 24)
    problems.push('[ERROR] title must be 1-24 characters [json-pointer:/view/title]');
  const hasInput = blocks.some((block) => block.type === 'input');
  const submit = textLength(view.submit);
  if ((hasInput && submit < 1) || submit > 24)
    problems.push('[ERROR] submit must be 1-24 characters [json-pointer:/view/submit]');
  if (!Array.isArray(view.blocks) || blocks.length > 100)
    problems.push('[ERROR] must have up to 100 blocks [json-pointer:/view/blocks]');
  if (typeof view.callback_id === 'string' && view.callback_id.length > 255)
    problems.push('[ERROR] callback_id too long');
  if (typeof view.private_metadata === 'string' && view.private_metadata.length > 3_000)
    problems.push('[ERROR] private_metadata too long');
  const blockIds = new Set<string>();
  for (const [index, block] of blocks.entries()) {
    if (typeof block.block_id === 'string') {
      if (blockIds.has(block.block_id) || block.block_id.length > 255)
        problems.push(`[ERROR] block_id invalid [json-pointer:/view/blocks/${index}]`);
      blockIds.add(block.block_id);
    }
    if (block.type === 'input') {
      const label = textLength(block.label);
      if (label < 1 || label > 2_000 || typeof block.element !== 'object')
        problems.push(`[ERROR] input needs a label and an element [json-pointer:/view/blocks/${index}]`);
      const element = block.element as Record<string, unknown> | undefined;
      if (element?.type === 'multi_static_select') {
        problems.push(...multiStaticSelectProblems(element, `/view/blocks/${index}/element`));
      }
    }
  }
  return problems;
}

/** The most options a static menu holds, and the longest option text and value (see below). */
export const staticMenuLimits = { options: 100, optionText: 75, optionValue: 75 } as const;

// A multi-select menu of static options (docs.slack.dev/reference/block-kit/block-elements/
// multi-select-menu-element, static_multi_select; @slack/types MultiStaticSelect): `options` holds
// at most 100 option objects, each a plain_text `text` of at most 75 characters and a `value` of at
// most 75 (composition objects, option object; @slack/types OptionDescriptor), and
// `initial_options` must "exactly match one or more of the options within `options`".
function multiStaticSelectProblems(element: Record<string, unknown>, pointer: string): string[] {
  const problems: string[] = [];
  const options = Array.isArray(element.options) ? (element.options as Record<string, unknown>[]) : [];
  if (options.length < 1 || options.length > staticMenuLimits.options)
    problems.push(
      `[ERROR] must have 1-${staticMenuLimits.options} options [json-pointer:${pointer}/options]`,
    );
  const values = new Set<string>();
  for (const [index, option] of options.entries()) {
    const text = textLength(option.text);
    const value = typeof option.value === 'string' ? [...option.value].length : -1;
    if (text < 1 || text > staticMenuLimits.optionText || value < 1 || value > staticMenuLimits.optionValue)
      problems.push(
        `[ERROR] option text and value must be 1-75 characters [json-pointer:${pointer}/options/${index}]`,
      );
    values.add(String(option.value));
  }
  const initial = Array.isArray(element.initial_options)
    ? (element.initial_options as Record<string, unknown>[])
    : [];
  for (const [index, option] of initial.entries()) {
    const match = options.find(
      (candidate) =>
        candidate.value === option.value && textLength(candidate.text) === textLength(option.text),
    );
    if (!match)
      problems.push(
        `[ERROR] initial option must match an option [json-pointer:${pointer}/initial_options/${index}]`,
      );
  }
  return problems;
}

// usergroups.list (docs.slack.dev/reference/methods/usergroups.list): with include_users, each group
// lists its members in `users`; needs the usergroups:read scope.
const userGroupsList: ApiMethod = (state, args) => {
  const includeUsers = args.include_users === true || args.include_users === 'true';
  return {
    usergroups: [...state.directory.userGroups.values()].map((group) => ({
      id: group.id,
      team_id: state.workspace.teamId,
      is_usergroup: true,
      handle: group.handle,
      name: group.name,
      ...(includeUsers ? { users: group.userIds, user_count: group.userIds.length } : {}),
    })),
  };
};

const connectionsOpen: ApiMethod = (state) => ({ url: state.openSocketUrl() });

/** `auth.test`, `users.info`, `assistant.threads.setStatus`, `views.open`, `apps.connections.open`. */
export const workspaceMethods: Record<string, ApiMethod> = {
  'auth.test': authTest,
  'users.info': usersInfo,
  'assistant.threads.setStatus': setStatus,
  'views.open': viewsOpen,
  'usergroups.list': userGroupsList,
  'apps.connections.open': connectionsOpen,
};
