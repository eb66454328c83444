import type { Actor } from '../src/access/actor.ts';
import {
  type AdminSetting,
  findAdminSetting,
  type OverrideScope,
  type OverrideValue,
} from '../src/administration/admin-settings.ts';
import type { SettingSource } from '../src/administration/place-settings.ts';
import { type ConversationKey, placeOfConversation } from '../src/conversation/turn.ts';
import type { CommandServices } from './define-command.ts';
import { placeWords } from './place-words.ts';

/** One change an admin asks for: a value to set, or undefined to go back to the default. */
export interface ConfigChange {
  readonly name: string;
  readonly scope: OverrideScope | undefined;
  /** What they typed; undefined removes the override. */
  readonly text: string | undefined;
}

export type ConfigChangeResult =
  | { readonly isChanged: true; readonly description: string }
  | { readonly isChanged: false; readonly problem: string };

/** Words for where a value comes from, in a sentence, as people on `platform` name places. */
export function describeSource(source: SettingSource, platform: string): string {
  return source === 'environment' ? 'the default' : placeWords(platform)[source];
}

/** A change that passed its checks, ready to store. */
export interface CheckedChange {
  readonly setting: AdminSetting;
  readonly scope: OverrideScope;
  readonly value: OverrideValue | undefined;
}

/** Checks one change: the setting exists, may be set at the scope, and the value reads right. */
export async function checkConfigChange({
  services,
  conversationKey,
  change,
}: {
  services: CommandServices;
  conversationKey: ConversationKey;
  change: ConfigChange;
}): Promise<CheckedChange | { problem: string }> {
  const setting = findAdminSetting(change.name);
  if (!setting) return { problem: `There is no setting "${change.name}". /config show lists them.` };
  const scope = change.scope ?? setting.scopes[0] ?? 'server';
  if (!setting.scopes.includes(scope)) {
    const allowed = setting.scopes
      .map((item) => (item === 'server' ? 'whole server' : 'channel'))
      .join(' or ');
    return { problem: `${setting.name} can be set only for the ${allowed}.` };
  }
  if (change.text === undefined || change.text.trim().toLowerCase() === 'default') {
    return { setting, scope, value: undefined };
  }
  const parsed = await parseValue({
    services,
    setting,
    place: placeOfConversation(conversationKey),
    text: change.text,
  });
  if ('problem' in parsed) return { problem: `${setting.name} ${parsed.problem}.` };
  return { setting, scope, value: parsed.value };
}

/**
 * Stores one checked override and logs who changed what. It takes effect at once: every request
 * reads the overrides in force from the store.
 */
export async function storeConfigChange({
  services,
  user,
  conversationKey,
  checked,
}: {
  services: CommandServices;
  user: Actor;
  conversationKey: ConversationKey;
  checked: CheckedChange;
}): Promise<string> {
  const { setting, scope, value } = checked;
  const place = placeOfConversation(conversationKey);
  const previous = await services.overrides.change({
    place,
    scope,
    name: setting.name,
    value,
    changedBy: { id: user.id, name: user.name },
    at: services.now(),
  });
  services.logger.info(
    {
      setting: setting.name,
      scope,
      place,
      value: value === undefined ? 'default' : value,
      previous: previous === undefined ? 'default' : previous,
      changedById: user.id,
      changedByName: user.name,
    },
    'setting changed with /config',
  );
  const where = placeWords(place.platform)[scope];
  const was = previous === undefined ? '' : ` (was ${setting.format(previous)})`;
  const description =
    value === undefined
      ? `${setting.name} for ${where} is back to the default.`
      : `${setting.name} for ${where} is now ${setting.format(value)}${was}.`;
  await services.audit.record({
    platform: place.platform,
    workspace: place.workspace,
    channel: place.channel,
    actor: { id: user.id, name: user.name },
    kind: 'config-change',
    what: description,
    result: 'done',
    details: { setting: setting.name, scope },
  });
  return description;
}

/** Checks and stores one change. */
export async function applyConfigChange(options: {
  services: CommandServices;
  user: Actor;
  conversationKey: ConversationKey;
  change: ConfigChange;
}): Promise<ConfigChangeResult> {
  const checked = await checkConfigChange(options);
  if ('problem' in checked) return { isChanged: false, problem: checked.problem };
  return { isChanged: true, description: await storeConfigChange({ ...options, checked }) };
}

async function parseValue({
  services,
  setting,
  place,
  text,
}: {
  services: CommandServices;
  setting: AdminSetting;
  place: ReturnType<typeof placeOfConversation>;
  text: string;
}): Promise<{ value: OverrideValue } | { problem: string }> {
  const current = (await services.places.statesAt(place)).states.find((state) => state.name === setting.name);
  const parsed = setting.parse(text, current?.value);
  if ('problem' in parsed) return { problem: `${parsed.problem} (${setting.hint})` };
  if (setting.name === 'CHAT_MODEL' && !services.models.selectable.includes(String(parsed.value))) {
    return { problem: `must be one of /model's list: ${services.models.selectable.join(', ')}` };
  }
  return parsed;
}
