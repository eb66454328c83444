import { adminSettings, findAdminSetting } from '../../src/administration/admin-settings.ts';
import { placeOfConversation } from '../../src/conversation/turn.ts';
import { choiceOption, subcommandOption, textOption } from '../command-options.ts';
import { configCard } from '../config-card.ts';
import { applyConfigChange } from '../config-changes.ts';
import { configForm, submitConfigForm } from '../config-form.ts';
import { defineCommand } from '../define-command.ts';

/**
 * `/config`: one admin command to see and change budgets, access, and a channel's reply mode, model
 * and system prompt. Overrides are kept per server (Slack: workspace) or channel, win over the
 * environment, take effect at once, and are logged with who changed what. On Slack, `/config` alone
 * opens a form; elsewhere it shows the settings.
 */
export const configCommand = defineCommand({
  name: 'config',
  description: 'See and change budgets, access and channel settings (admins)',
  options: {
    action: subcommandOption({
      description: 'What to do',
      subcommands: {
        show: { description: 'Show every setting here and where it comes from', optionNames: [] },
        set: { description: 'Change a setting', optionNames: ['setting', 'value', 'scope'] },
        reset: { description: 'Put a setting back to its default', optionNames: ['setting', 'scope'] },
      },
    }),
    setting: textOption({
      description: 'Which setting, e.g. BUDGET_USER_DAILY',
      isPositional: true,
      maxLength: 40,
      suggest: ({ typed }) =>
        adminSettings
          .map((setting) => setting.name)
          .filter((name) => name.toLowerCase().includes(typed.toLowerCase().replaceAll('-', '_'))),
    }),
    value: textOption({
      description: 'The new value (default: back to the default; none: no limit)',
      isFreeText: true,
      maxLength: 4_000,
      suggest: ({ typed, models, tools, others }) => {
        const setting = findAdminSetting(String(others?.setting ?? ''));
        return ['default', ...(setting?.suggestions?.({ models, tools, typed }) ?? [])].filter((value) =>
          value.toLowerCase().includes(typed.toLowerCase()),
        );
      },
    }),
    scope: choiceOption({
      description: 'For the whole server (workspace) or this channel only',
      choices: ['server', 'channel', 'workspace'],
    }),
  },
  runsInConversationOrder: false,
  isForAdmins: true,
  isAnswerPrivate: () => true,
  async run({ input, conversationKey, user, responder, services }) {
    if (!user.isAdmin) {
      await responder.send({ text: 'Only server admins can use /config.', isPrivate: true });
      return;
    }
    // A server's (or the terminal's own) settings: not from a DM or a place parley is not installed.
    if (user.context !== 'server' && user.context !== 'terminal') {
      await responder.send({
        text: 'Use /config in a channel of the server you want to change.',
        isPrivate: true,
      });
      return;
    }
    const place = placeOfConversation(conversationKey);
    if (input.action === undefined && responder.openForm) {
      const { states, overrides } = await services.places.statesAt(place);
      await responder.openForm(
        configForm({
          conversationKey,
          states,
          overrides,
          sources: { models: services.models.selectable, tools: services.toolbox.all() },
        }),
      );
      return;
    }
    if (input.action === undefined || input.action === 'show') {
      const { states, overrides } = await services.places.statesAt(place);
      await responder.send({
        card: configCard({ states, overrides, timeZone: services.budgetTimeZone, platform: place.platform }),
        isPrivate: true,
      });
      return;
    }
    if (!input.setting) {
      await responder.send({
        text: `/config ${input.action} needs a setting, e.g. BUDGET_USER_DAILY.`,
        isPrivate: true,
      });
      return;
    }
    if (input.action === 'set' && !input.value) {
      await responder.send({ text: `/config set ${input.setting} needs a value.`, isPrivate: true });
      return;
    }
    const result = await applyConfigChange({
      services,
      user,
      conversationKey,
      change: {
        name: input.setting,
        scope: input.scope === 'workspace' ? 'server' : input.scope,
        text: input.action === 'reset' ? undefined : input.value,
      },
    });
    await responder.send({
      text: result.isChanged ? `✅ ${result.description}` : `⚠ ${result.problem}`,
      isPrivate: true,
    });
  },
  submitForm: submitConfigForm,
});
