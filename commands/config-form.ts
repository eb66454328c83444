import {
  type AdminSetting,
  adminSettings,
  type OverrideScope,
  type OverrideValue,
  type SuggestionSources,
} from '../src/administration/admin-settings.ts';
import type { PlaceOverrides } from '../src/administration/override-store.ts';
import type { SettingState } from '../src/administration/place-settings.ts';
import { type ConversationKey, placeOfConversation } from '../src/conversation/turn.ts';
import type { Form, FormField, FormOutcome } from '../src/delivery/form.ts';
import { checkConfigChange, describeSource, storeConfigChange } from './config-changes.ts';
import type { FormContext } from './define-command.ts';

const scopes: readonly OverrideScope[] = ['server', 'channel'];

/** A field's name in the form: `server.BUDGET_USER_DAILY`. */
function fieldName(scope: OverrideScope, setting: AdminSetting): string {
  return `${scope}.${setting.name}`;
}

/** Reads a field's text for the form: the override at that scope, or empty when there is none. */
function overrideText(setting: AdminSetting, value: OverrideValue | undefined): string {
  return value === undefined ? '' : setting.format(value);
}

/**
 * The settings as a form (Slack's modal): a section for the whole server (workspace) and one for
 * this channel. A field shows the override at its scope; empty means "as inherited", named in its
 * hint.
 */
export function configForm({
  conversationKey,
  states,
  overrides,
  sources,
}: {
  conversationKey: ConversationKey;
  states: readonly SettingState[];
  overrides: PlaceOverrides;
  /** What a list setting's choices are made of: the models and the tools parley has now. */
  sources: Omit<SuggestionSources, 'typed'>;
}): Form {
  const sections = scopes.map((scope) => ({
    heading: scope === 'server' ? 'The whole workspace' : 'This channel only',
    fields: adminSettings
      .filter((setting) => setting.scopes.includes(scope))
      .map((setting): FormField => {
        const value = (scope === 'server' ? overrides.server : overrides.channel)[setting.name];
        const state = states.find((candidate) => candidate.name === setting.name);
        const inherited =
          scope === 'channel' && state?.source === 'channel'
            ? 'the workspace’s value'
            : `${setting.format(state?.source === scope ? undefined : state?.value)} (${describeSource(state?.source === scope ? 'environment' : (state?.source ?? 'environment'), placeOfConversation(conversationKey).platform)})`;
        const initialValue = overrideText(setting, value);
        // What is set stays among the choices, a tool of a server that is down included.
        const listChoices = setting.listChoices
          ? [...new Set([...setting.listChoices(sources), ...listItems(initialValue)])]
          : undefined;
        return {
          name: fieldName(scope, setting),
          label: setting.label,
          hint: `${setting.hint}. Empty: ${inherited}.`,
          initialValue,
          ...(setting.isLong ? { isMultiline: true } : {}),
          ...(listChoices ? { listChoices } : {}),
        };
      }),
  }));
  return {
    commandName: 'config',
    title: 'parley settings',
    submitLabel: 'Save',
    context: conversationKey,
    sections,
  };
}

function listItems(text: string): string[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** Applies every field that changed, or none: the form stays open with the problems when any is wrong. */
export async function submitConfigForm({ submission, user, services }: FormContext): Promise<FormOutcome> {
  if (!user.isAdmin) return { message: 'Only server admins can change parley’s settings.' };
  const conversationKey = submission.context;
  const { overrides } = await services.places.statesAt(placeOfConversation(conversationKey));
  const changes = scopes.flatMap((scope) =>
    adminSettings
      .filter((setting) => setting.scopes.includes(scope))
      .flatMap((setting) => {
        const field = fieldName(scope, setting);
        const typed = (submission.values[field] ?? '').trim();
        const before = overrideText(
          setting,
          (scope === 'server' ? overrides.server : overrides.channel)[setting.name],
        );
        return typed === before
          ? []
          : [{ field, change: { name: setting.name, scope, text: typed === '' ? undefined : typed } }];
      }),
  );
  const checked = await Promise.all(
    changes.map(async ({ field, change }) => ({
      field,
      result: await checkConfigChange({ services, conversationKey, change }),
    })),
  );
  const problems = Object.fromEntries(
    checked.flatMap(({ field, result }) => ('problem' in result ? [[field, result.problem]] : [])),
  );
  if (Object.keys(problems).length > 0) return { problems };
  const done: string[] = [];
  for (const { result } of checked) {
    if (!('problem' in result))
      done.push(await storeConfigChange({ services, user, conversationKey, checked: result }));
  }
  return { message: done.length === 0 ? 'Nothing changed.' : done.join('\n') };
}
