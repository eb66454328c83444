import { defaultPersonId, verificationToken } from './event-payloads.ts';
import { nextMessageTs, randomTriggerId } from './slack-ids.ts';
import { defaultWorkspace } from './workspace.ts';

/** A slash command as Slack sends it (all fields are strings, as in the form body). */
export type SlashCommandPayload = Record<string, string> & { command: string; text: string };

/** An interactivity payload: `block_actions`, `message_action`, … */
export type InteractionPayload = Record<string, unknown> & { type: string };

/**
 * A slash command. `response_url` is left empty: the fake fills in one of its own when it delivers
 * the command, so that what the app posts there is recorded.
 */
export function slashCommand(options: {
  command: string;
  text?: string;
  user?: string;
  userName?: string;
  channel?: string;
  channelName?: string;
  teamId?: string;
  triggerId?: string;
  responseUrl?: string;
}): SlashCommandPayload {
  const command = options.command.startsWith('/') ? options.command : `/${options.command}`;
  const user = options.user ?? defaultPersonId;
  const channel = options.channel ?? 'C0GENERAL1';
  return {
    token: verificationToken,
    team_id: options.teamId ?? defaultWorkspace.teamId,
    team_domain: defaultWorkspace.domain,
    channel_id: channel,
    channel_name: options.channelName ?? (channel.startsWith('D') ? 'directmessage' : 'general'),
    user_id: user,
    user_name: options.userName ?? `user-${user.toLowerCase()}`,
    command,
    text: options.text ?? '',
    api_app_id: defaultWorkspace.appId,
    is_enterprise_install: 'false',
    response_url: options.responseUrl ?? '',
    trigger_id: options.triggerId ?? randomTriggerId(),
  };
}

function userOf(user: string) {
  return {
    id: user,
    username: `user-${user.toLowerCase()}`,
    name: `user-${user.toLowerCase()}`,
    team_id: defaultWorkspace.teamId,
  };
}

/**
 * A click on a button of a message (`block_actions`). The fake replaces `message` with the stored
 * message when it has one, and fills in `response_url`.
 */
export function buttonClick(options: {
  actionId: string;
  value?: string;
  messageTs: string;
  channel: string;
  user?: string;
  blockId?: string;
  buttonText?: string;
  threadTs?: string;
}): InteractionPayload {
  const user = options.user ?? defaultPersonId;
  const actionTs = nextMessageTs();
  return {
    type: 'block_actions',
    user: userOf(user),
    api_app_id: defaultWorkspace.appId,
    token: verificationToken,
    container: {
      type: 'message',
      message_ts: options.messageTs,
      channel_id: options.channel,
      is_ephemeral: false,
      ...(options.threadTs === undefined ? {} : { thread_ts: options.threadTs }),
    },
    trigger_id: randomTriggerId(),
    team: { id: defaultWorkspace.teamId, domain: defaultWorkspace.domain },
    enterprise: null,
    is_enterprise_install: false,
    channel: { id: options.channel, name: options.channel.startsWith('D') ? 'directmessage' : 'general' },
    message: {
      type: 'message',
      ts: options.messageTs,
      text: '',
      ...(options.threadTs === undefined ? {} : { thread_ts: options.threadTs }),
    },
    state: { values: {} },
    response_url: '',
    actions: [
      {
        action_id: options.actionId,
        block_id: options.blockId ?? 'actions',
        text: { type: 'plain_text', text: options.buttonText ?? options.actionId, emoji: true },
        value: options.value ?? '',
        type: 'button',
        action_ts: actionTs,
      },
    ],
  };
}

/**
 * A click on one side of a feedback_buttons element (a `block_actions` payload whose action is
 * `type: feedback_buttons` with the pressed side's `value` and `text`; @slack/bolt
 * FeedbackButtonsAction), under a message of the app.
 */
export function feedbackClick(options: {
  message: { ts: string; blocks?: unknown[] };
  channel: string;
  side: 'positive' | 'negative';
  user?: string;
  threadTs?: string;
}): InteractionPayload {
  const block = (options.message.blocks ?? []).find(
    (candidate) => (candidate as { type?: string }).type === 'context_actions',
  ) as { block_id?: string; elements?: Array<Record<string, unknown>> } | undefined;
  const element = block?.elements?.find((candidate) => candidate.type === 'feedback_buttons');
  if (element === undefined) throw new Error('fake slack: the message has no feedback buttons');
  const button = element[`${options.side}_button`] as { value: string; text: unknown };
  const click = buttonClick({
    actionId: String(element.action_id),
    value: button.value,
    messageTs: options.message.ts,
    channel: options.channel,
    user: options.user,
    blockId: block?.block_id,
    threadTs: options.threadTs,
  });
  return {
    ...click,
    actions: [
      {
        type: 'feedback_buttons',
        action_id: String(element.action_id),
        block_id: block?.block_id ?? 'feedback',
        value: button.value,
        text: button.text,
        action_ts: nextMessageTs(),
      },
    ],
  };
}

/** A message shortcut (`message_action`): someone picked the app's action from a message's menu. */
export function messageShortcut(options: {
  callbackId: string;
  messageTs: string;
  channel: string;
  user?: string;
  /** The message the shortcut was used on; the fake uses the stored one when it has it. */
  message?: Record<string, unknown>;
}): InteractionPayload {
  const user = options.user ?? defaultPersonId;
  return {
    type: 'message_action',
    token: verificationToken,
    action_ts: nextMessageTs(),
    team: { id: defaultWorkspace.teamId, domain: defaultWorkspace.domain },
    user: userOf(user),
    channel: { id: options.channel, name: options.channel.startsWith('D') ? 'directmessage' : 'general' },
    is_enterprise_install: false,
    enterprise: null,
    callback_id: options.callbackId,
    trigger_id: randomTriggerId(),
    response_url: '',
    message_ts: options.messageTs,
    message: options.message ?? { type: 'message', ts: options.messageTs, text: '' },
  };
}

/**
 * A modal submitted (`view_submission`, docs.slack.dev/reference/interaction-payloads/view-interactions-payload):
 * the view as opened, with `state.values` by block id and action id holding each plain-text input's
 * value: the one given in `values` (by block id), else what the field showed (its initial value), and
 * null for a field left empty; a multi-select's `selected_options`, given as values separated by
 * commas, else its initial options.
 */
export function viewSubmission(options: {
  view: Record<string, unknown>;
  values: Record<string, string>;
  user?: string;
}): InteractionPayload {
  const user = options.user ?? defaultPersonId;
  const stateValues: Record<string, Record<string, unknown>> = {};
  for (const block of (options.view.blocks ?? []) as Array<Record<string, unknown>>) {
    if (block.type !== 'input') continue;
    const element = block.element as {
      action_id?: string;
      initial_value?: string;
      type?: string;
      options?: Array<{ value: string }>;
      initial_options?: Array<{ value: string }>;
    };
    const blockId = String(block.block_id);
    const given = options.values[blockId];
    if (element.type === 'multi_static_select') {
      // The options chosen (given as their values separated by commas), as the payload's
      // `selected_options`: whole option objects from the menu's own.
      const chosen =
        given === undefined
          ? (element.initial_options ?? []).map((option) => option.value)
          : given
              .split(',')
              .map((value) => value.trim())
              .filter((value) => value !== '');
      stateValues[blockId] = {
        [element.action_id ?? blockId]: {
          type: element.type,
          selected_options: chosen.map((value) => {
            const option = (element.options ?? []).find((candidate) => candidate.value === value);
            if (!option) throw new Error(`fake Slack: ${value} is not an option of ${blockId}`);
            return option;
          }),
        },
      };
      continue;
    }
    const value = given ?? element.initial_value ?? '';
    stateValues[blockId] = {
      [element.action_id ?? blockId]: {
        type: element.type ?? 'plain_text_input',
        value: value === '' ? null : value,
      },
    };
  }
  return {
    type: 'view_submission',
    team: { id: defaultWorkspace.teamId, domain: defaultWorkspace.domain },
    user: userOf(user),
    api_app_id: defaultWorkspace.appId,
    token: verificationToken,
    trigger_id: randomTriggerId(),
    view: { ...options.view, state: { values: stateValues }, hash: `${Date.now()}.fake` },
    response_urls: [],
    is_enterprise_install: false,
    enterprise: null,
  };
}
