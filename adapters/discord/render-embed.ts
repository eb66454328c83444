import {
  type APIActionRowComponent,
  type APIButtonComponent,
  type APIEmbed,
  type APIEmbedField,
  ButtonStyle,
  ComponentType,
} from 'discord.js';
import { type Action, type Card, renderTableAsText, truncateText } from '../../src/delivery/card.ts';
import { discordLimits } from './discord-limits.ts';

/** The accent of a card's tone, on an embed or a container. */
export const toneColours: Record<NonNullable<Card['tone']>, number> = {
  info: 0x5865f2,
  success: 0x57f287,
  warning: 0xfee75c,
  error: 0xed4245,
};

/**
 * A card as one Discord embed within every embed limit: long text is shortened with `…`, fields past
 * the 25th are counted in a last field, and the table is a monospace block that says how many rows
 * did not fit. The 6,000-character total is kept by shortening the table and fields last.
 */
export function renderEmbed(card: Card): APIEmbed {
  const title = truncateText(card.title, discordLimits.embedTitle);
  const footer = card.footer ? truncateText(card.footer, discordLimits.embedFooter) : undefined;
  // Room is kept for a "… N more fields" note, and the description may take at most 60% of the rest
  // so a long TL;DR never crowds out every field.
  let budget = discordLimits.embedTotal - title.length - (footer?.length ?? 0) - 40;

  const tableBlock =
    card.table && card.table.rows.length > 0 ? tableAsCodeBlock(card.table, Math.min(1_800, budget / 2)) : '';
  const descriptionRoom = Math.min(
    discordLimits.embedDescription - tableBlock.length - 2,
    Math.floor(budget * 0.6) - tableBlock.length - 2,
  );
  const description = [
    card.description ? truncateText(card.description, Math.max(0, descriptionRoom)) : '',
    tableBlock,
  ]
    .filter((part) => part !== '')
    .join('\n\n');
  budget -= description.length;

  const fields: APIEmbedField[] = [];
  const sourceFields = card.fields ?? [];
  for (const [index, field] of sourceFields.entries()) {
    const isLastSlot = fields.length === discordLimits.embedFields - 1 && sourceFields.length - index > 1;
    if (isLastSlot) {
      fields.push({ name: '…', value: `${sourceFields.length - index} more fields` });
      break;
    }
    const name = truncateText(field.name, discordLimits.embedFieldName);
    const value = truncateText(
      field.value || '—',
      Math.min(discordLimits.embedFieldValue, Math.max(1, budget - name.length - 40)),
    );
    if (name.length + value.length > budget - 20) {
      fields.push({ name: '…', value: `${sourceFields.length - index} more fields` });
      break;
    }
    fields.push({ name, value, ...(field.isInline ? { inline: true } : {}) });
    budget -= name.length + value.length;
  }
  const embed: APIEmbed = {
    title,
    ...(description ? { description } : {}),
    ...(fields.length > 0 ? { fields } : {}),
    ...(footer ? { footer: { text: footer } } : {}),
    color: toneColours[card.tone ?? 'info'],
  };
  return keepWithinTotal(embed, sourceFields.length);
}

// The estimates above leave small margins; this makes the total a guarantee by trading the last
// shown fields for a "more fields" note until the embed fits.
function keepWithinTotal(embed: APIEmbed, sourceFieldCount: number): APIEmbed {
  const fields = [...(embed.fields ?? [])];
  const shownCount = () => fields.filter((field) => field.name !== '…').length;
  while (embedLength({ ...embed, fields }) > discordLimits.embedTotal && fields.length > 0) {
    fields.pop();
    if (fields.at(-1)?.name === '…') fields.pop();
    fields.push({ name: '…', value: `${sourceFieldCount - shownCount()} more fields` });
    if (shownCount() === 0) break;
  }
  return { ...embed, ...(fields.length > 0 ? { fields } : {}) };
}

function tableAsCodeBlock(table: NonNullable<Card['table']>, maxLength: number): string {
  return `\`\`\`\n${renderTableAsText(table, { maxLength: Math.max(100, Math.floor(maxLength) - 8) })}\n\`\`\``;
}

const buttonStyles: Record<
  NonNullable<Action['style']>,
  ButtonStyle.Primary | ButtonStyle.Secondary | ButtonStyle.Danger
> = {
  primary: ButtonStyle.Primary,
  secondary: ButtonStyle.Secondary,
  danger: ButtonStyle.Danger,
};

/**
 * Actions as rows of buttons: five a row, five rows at most. Discord refuses the whole message for
 * one bad button, so an id it would refuse (too long, or already on the message) is left out: a
 * shortened id would name the wrong action.
 */
export function renderButtons(actions: readonly Action[]): APIActionRowComponent<APIButtonComponent>[] {
  const rows: APIActionRowComponent<APIButtonComponent>[] = [];
  const usable = actions
    .filter(
      (action, index) =>
        action.id.length <= discordLimits.customId &&
        actions.findIndex((other) => other.id === action.id) === index,
    )
    .slice(0, discordLimits.buttonsPerRow * discordLimits.actionRows);
  for (let start = 0; start < usable.length; start += discordLimits.buttonsPerRow) {
    rows.push({
      type: ComponentType.ActionRow,
      components: usable.slice(start, start + discordLimits.buttonsPerRow).map((action) => ({
        type: ComponentType.Button,
        custom_id: action.id,
        label: truncateText(action.label, discordLimits.buttonLabel),
        style: buttonStyles[action.style ?? 'secondary'],
      })),
    });
  }
  return rows;
}

/** The number of characters Discord counts toward an embed's 6,000 total. */
export function embedLength(embed: APIEmbed): number {
  return (
    (embed.title?.length ?? 0) +
    (embed.description?.length ?? 0) +
    (embed.footer?.text.length ?? 0) +
    (embed.fields ?? []).reduce((total, field) => total + field.name.length + field.value.length, 0)
  );
}
