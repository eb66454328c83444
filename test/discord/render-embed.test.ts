import type { APIEmbed } from 'discord.js';
import { expect } from 'vitest';
import { discordLimits } from '../../adapters/discord/discord-limits.ts';
import { embedLength, renderButtons, renderEmbed } from '../../adapters/discord/render-embed.ts';
import { describeCardRenderingContract } from '../support/card-rendering-contract.ts';

type Rendered = { embed: APIEmbed; components: ReturnType<typeof renderButtons> };

describeCardRenderingContract({
  name: 'Discord embed',
  render: (card, actions): Rendered => ({ embed: renderEmbed(card), components: renderButtons(actions) }),
  visibleText: (rendered) => {
    const { embed } = rendered as Rendered;
    return [
      embed.title,
      embed.description,
      ...(embed.fields ?? []).flatMap((field) => [field.name, field.value]),
      embed.footer?.text,
    ]
      .filter(Boolean)
      .join('\n');
  },
  buttons: (rendered) =>
    (rendered as Rendered).components.flatMap((row) =>
      row.components.map((button) => ({
        id: 'custom_id' in button ? button.custom_id : '',
        label: 'label' in button ? (button.label ?? '') : '',
      })),
    ),
  assertWithinLimits: (rendered) => {
    const { embed, components } = rendered as Rendered;
    expect(embed.title?.length ?? 0).toBeLessThanOrEqual(discordLimits.embedTitle);
    expect(embed.description?.length ?? 0).toBeLessThanOrEqual(discordLimits.embedDescription);
    expect(embed.fields?.length ?? 0).toBeLessThanOrEqual(discordLimits.embedFields);
    for (const field of embed.fields ?? []) {
      expect(field.name.length).toBeLessThanOrEqual(discordLimits.embedFieldName);
      expect(field.value.length).toBeLessThanOrEqual(discordLimits.embedFieldValue);
      expect(field.value.length).toBeGreaterThan(0);
    }
    expect(embed.footer?.text.length ?? 0).toBeLessThanOrEqual(discordLimits.embedFooter);
    expect(embedLength(embed)).toBeLessThanOrEqual(discordLimits.embedTotal);
    expect(components.length).toBeLessThanOrEqual(discordLimits.actionRows);
  },
});
