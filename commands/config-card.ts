import { adminSettings } from '../src/administration/admin-settings.ts';
import type { PlaceOverrides } from '../src/administration/override-store.ts';
import type { SettingState } from '../src/administration/place-settings.ts';
import { type Card, type CardField, truncateText } from '../src/delivery/card.ts';
import { describeSource } from './config-changes.ts';

const groups: ReadonlyArray<{ readonly title: string; readonly prefix: RegExp }> = [
  { title: 'Budgets', prefix: /^BUDGET_/ },
  { title: 'Access', prefix: /^ACCESS_/ },
  { title: 'This channel', prefix: /^(REPLY_MODE|CHAT_MODEL|SYSTEM_PROMPT)$/ },
];

/** Every setting /config can change, as it stands here, with where each value comes from. */
export function configCard({
  states,
  overrides,
  timeZone,
  platform,
}: {
  /** Whose words name the places values come from (Discord's server, Slack's workspace…). */
  platform: string;
  states: readonly SettingState[];
  overrides: PlaceOverrides;
  timeZone: string;
}): Card {
  const fields: CardField[] = groups.map((group) => ({
    name: group.title,
    value: states
      .filter((state) => group.prefix.test(state.name))
      .map((state) => {
        const setting = adminSettings.find((candidate) => candidate.name === state.name);
        const shown = truncateText(setting?.format(state.value) ?? String(state.value), 120);
        const source = state.source === 'environment' ? '' : ` _(${describeSource(state.source, platform)})_`;
        return `\`${state.name}\` ${shown}${source}`;
      })
      .join('\n'),
  }));
  const latest = overrides.changes.slice(0, 3).map((change) => {
    const when = change.changedAt.slice(0, 16).replace('T', ' ');
    return `${change.name} (${change.scope}) by ${change.changedByName}, ${when} UTC`;
  });
  if (latest.length > 0) fields.push({ name: 'Latest changes', value: latest.join('\n') });
  return {
    title: 'Settings here',
    description:
      'Change one with `/config set NAME value` (add `--scope channel` for this channel only); `default` goes back to the default, `none` means no limit.',
    fields,
    footer: `Costs in the gateway's units; days and months in ${timeZone}.`,
    tone: 'info',
  };
}
