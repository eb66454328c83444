import type { App, webApi } from '@slack/bolt';
import { findCommand } from '../../commands/all-commands.ts';
import { placeOfConversation } from '../../src/conversation/turn.ts';
import { truncateText } from '../../src/delivery/card.ts';
import type { Form, FormField } from '../../src/delivery/form.ts';
import type { SlackAdapterContext } from './adapter-context.ts';
import { slackActorOf } from './slack-actor.ts';

/** Every modal parley opens is named after the command that handles what is submitted. */
const callbackPrefix = 'parley:form:';
/** The one element of each input block. */
const valueActionId = 'value';

/**
 * A form as a Slack modal (docs.slack.dev/reference/views/modal-views and block reference): title
 * and submit at most 24 characters, a header block (at most 150) per section, and an optional
 * plain-text input per field whose block id is the field's name, so problems come back beside it.
 */
export function renderFormModal(form: Form): webApi.ModalView {
  return {
    type: 'modal',
    callback_id: `${callbackPrefix}${form.commandName}`,
    title: { type: 'plain_text', text: truncateText(form.title, 24) },
    submit: { type: 'plain_text', text: truncateText(form.submitLabel, 24) },
    close: { type: 'plain_text', text: 'Cancel' },
    private_metadata: truncateText(form.context, 3_000),
    blocks: form.sections.flatMap((section) => [
      { type: 'header', text: { type: 'plain_text', text: truncateText(section.heading, 150) } },
      ...section.fields.map((field) => ({
        type: 'input',
        block_id: field.name,
        optional: true,
        label: { type: 'plain_text', text: truncateText(field.label, 2_000) },
        ...(field.hint ? { hint: { type: 'plain_text', text: truncateText(field.hint, 2_000) } } : {}),
        element: choiceMenuOf(field) ?? {
          type: 'plain_text_input',
          action_id: valueActionId,
          ...(field.isMultiline ? { multiline: true } : {}),
          ...(field.initialValue ? { initial_value: field.initialValue } : {}),
        },
      })),
    ]),
  } as webApi.ModalView;
}

/**
 * A multi-select menu of static options (docs.slack.dev/reference/block-kit/block-elements/
 * multi-select-menu-element): at most 100 options, each a plain_text text and a value of at most
 * 75 characters (@slack/types MultiStaticSelect, OptionDescriptor). Choices that do not fit stay a
 * text box, where every value can be written.
 */
const menuLimits = { options: 100, optionCharacters: 75 } as const;

function choiceMenuOf(field: FormField) {
  const choices = field.listChoices;
  if (
    choices === undefined ||
    choices.length === 0 ||
    choices.length > menuLimits.options ||
    choices.some((choice) => choice.length === 0 || choice.length > menuLimits.optionCharacters)
  ) {
    return undefined;
  }
  const optionOf = (choice: string) => ({ text: { type: 'plain_text', text: choice }, value: choice });
  const chosen = new Set(
    (field.initialValue ?? '')
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== ''),
  );
  const initial = choices.filter((choice) => chosen.has(choice));
  return {
    type: 'multi_static_select',
    action_id: valueActionId,
    placeholder: { type: 'plain_text', text: 'As inherited' },
    options: choices.map(optionOf),
    ...(initial.length > 0 ? { initial_options: initial.map(optionOf) } : {}),
  };
}

/** What a submitted input holds: a text box's text, or a menu's chosen values separated by `, `. */
function submittedText(
  action: { value?: string | null; selected_options?: { value?: string }[] } | undefined,
) {
  if (action?.selected_options) return action.selected_options.map((option) => option.value ?? '').join(', ');
  return String(action?.value ?? '');
}

/**
 * Submitted modals (`view_submission`): the command that opened the form checks and applies it.
 * Problems are acknowledged as `response_action: errors` keyed by block id, so Slack shows each under
 * its field and keeps the modal open; otherwise the modal closes and the person gets the outcome as a
 * message only they see. Bolt acknowledges with that body within Slack's 3 s.
 */
export function registerFormSubmissions({ app, adapter }: { app: App; adapter: SlackAdapterContext }): void {
  app.view({ type: 'view_submission', callback_id: new RegExp(`^${callbackPrefix}`) }, async (args) => {
    const { ack, body, view, client } = args;
    const command = findCommand(view.callback_id.slice(callbackPrefix.length));
    if (!command?.submitForm) {
      await ack();
      return;
    }
    const values = Object.fromEntries(
      Object.entries(view.state.values).map(([blockId, actions]) => [
        blockId,
        submittedText(Object.values(actions)[0]),
      ]),
    );
    const teamId = body.team?.id ?? 'unknown-team';
    const person = await adapter.directory.lookUp({ client, userId: body.user.id });
    const user = slackActorOf({
      person,
      userGroups: adapter.userGroups,
      client,
      teamId,
    });
    const outcome = await command.submitForm({
      submission: { values, context: view.private_metadata },
      user,
      services: adapter.services,
    });
    if ('problems' in outcome) {
      await ack({ response_action: 'errors', errors: { ...outcome.problems } });
      return;
    }
    await ack();
    await client.chat
      .postEphemeral({
        channel: placeOfConversation(view.private_metadata).channel,
        user: user.id,
        text: outcome.message,
      })
      .catch((error: unknown) => adapter.logger.warn({ err: error }, 'slack: could not confirm a form'));
  });
}
