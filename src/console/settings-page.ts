import { adminSettings } from '../administration/admin-settings.ts';
import type { SettingState } from '../administration/place-settings.ts';
import { placePath } from './console-layout.ts';
import type { ConsolePlace } from './console-person.ts';
import { html, type SafeHtml } from './safe-html.ts';

/** What the last change said: done, or the problem `/config` found with it. */
export type ChangeOutcome =
  | { readonly isChanged: true; readonly description: string }
  | { readonly isChanged: false; readonly problem: string };

/**
 * Budgets & access: every setting `/config` can change, as it stands at the place, each with a
 * form that posts to the same code `/config set` runs. A value of `default` (or an empty one)
 * goes back to the default, `none` means no limit, as in chat. A setting that may be set per
 * channel takes a channel id; left empty, the change is for the whole server.
 */
export function settingsPageBody({
  place,
  states,
  csrfToken,
  outcome,
}: {
  place: ConsolePlace;
  states: readonly SettingState[];
  csrfToken: string;
  outcome: ChangeOutcome | undefined;
}): SafeHtml {
  const action = placePath(place, 'settings');
  const rows = adminSettings.map((setting) => {
    const state = states.find((candidate) => candidate.name === setting.name);
    const source = state === undefined || state.source === 'environment' ? 'default' : state.source;
    const fieldId = `value-${setting.name}`;
    const mayBeChannel = setting.scopes.includes('channel');
    const isServerOnly = !setting.scopes.includes('server');
    return html`<tr>
<td><strong>${setting.label}</strong><br><code>${setting.name}</code></td>
<td class="value">${setting.format(state?.value)}<br><small>(${source})</small></td>
<td><form class="inline" method="post" action="${action}">
<input type="hidden" name="csrf" value="${csrfToken}">
<input type="hidden" name="setting" value="${setting.name}">
<label for="${fieldId}">New value</label>
<input type="text" id="${fieldId}" name="value" maxlength="4000" placeholder="${setting.hint}">
${
  mayBeChannel
    ? html`<label for="channel-${setting.name}">Channel id${isServerOnly ? '' : ' (optional)'}</label>
<input type="text" id="channel-${setting.name}" name="channel" maxlength="40" ${isServerOnly ? 'required' : ''}>`
    : ''
}
<button type="submit">Save</button>
</form></td>
</tr>`;
  });
  const notice =
    outcome === undefined
      ? ''
      : outcome.isChanged
        ? html`<p class="notice" role="status">✅ ${outcome.description}</p>`
        : html`<p class="notice problem" role="alert">⚠ ${outcome.problem}</p>`;
  return html`${notice}
<p>Each change is the one <code>/config set</code> makes: checked the same way, in force at once, and recorded in the audit trail. Write <code>default</code> to go back to the default, <code>none</code> for no limit.</p>
<table>
<thead><tr><th scope="col">Setting</th><th scope="col">Now</th><th scope="col">Change</th></tr></thead>
<tbody>${rows}</tbody>
</table>`;
}
