import {
  type APIActionRowComponent,
  type APIButtonComponent,
  type APIComponentInContainer,
  type APIContainerComponent,
  type APISectionComponent,
  type APITextDisplayComponent,
  ComponentType,
  MessageFlags,
} from 'discord.js';
import { type Action, type Card, renderTableAsText, truncateText } from '../../src/delivery/card.ts';
import type { OutgoingFile } from '../../src/delivery/surface.ts';
import { discordLimits } from './discord-limits.ts';
import { renderButtons, toneColours } from './render-embed.ts';

/** What one V2 message shows: a card, its words, its files and its buttons. */
export interface ComponentsPiece {
  readonly card?: Card | undefined;
  readonly text?: string | undefined;
  /** Files sent with the message, already fitted; images go in one gallery, the rest as files. */
  readonly files?: readonly OutgoingFile[] | undefined;
  readonly actions?: readonly Action[] | undefined;
}

export interface ComponentsPayload {
  readonly flags: MessageFlags.IsComponentsV2;
  readonly components: [APIContainerComponent];
}

/** Whether a piece is laid out with components (a card, or images for a gallery); plain text is not. */
export function isComponentsPiece(piece: ComponentsPiece): boolean {
  return piece.card !== undefined || (piece.files ?? []).some(isImageFile);
}

/**
 * A card (or drawn images) as one Components V2 container (components/reference.mdx, "Container"):
 * the card's accent colour; the title and what it says in a section with the first button beside it
 * (the button acts on what the card says: Regenerate beside /imagine's prompt); a separator; fields,
 * table and footer as text displays; images in one media gallery with the other buttons (Vary) right
 * under it; other files as file components. A message takes at most 40 components and 4,000
 * characters of text (see test/fakes/discord/components-v2-rules.ts): the text is fitted to it, long
 * parts shortened with `…` and fields past the room counted in a last line.
 */
export function renderComponents(piece: ComponentsPiece): ComponentsPayload {
  const { card } = piece;
  const files = piece.files ?? [];
  const images = files.filter(isImageFile).slice(0, discordLimits.galleryItems);
  const otherFiles = files.filter((file) => !isImageFile(file));
  const actions = usableActions(piece.actions ?? []);
  const [besideText, ...underneath] = actions;

  let room = discordLimits.componentsTextCharacters;
  const footer = card?.footer ? `-# ${truncateText(card.footer.replaceAll('\n', ' '), 300)}` : '';
  room -= footer.length;
  const title = card ? `### ${truncateText(card.title, discordLimits.embedTitle)}` : '';
  room -= title.length;
  const table =
    card?.table && card.table.rows.length > 0
      ? `\`\`\`\n${renderTableAsText(card.table, { maxLength: Math.min(1_500, Math.floor(room / 3)) })}\n\`\`\``
      : '';
  room -= table.length;
  const said = [piece.text ?? '', card?.description ?? ''].filter((part) => part !== '').join('\n\n');
  // What the card says may take most of the room left, but never all of it while fields wait.
  const saidShown = said
    ? truncateText(said, Math.max(40, Math.floor(room * ((card?.fields ?? []).length > 0 ? 0.5 : 0.95))))
    : '';
  room -= saidShown.length + 8;
  const fields = fitFields(card?.fields ?? [], room);

  const header = [title, saidShown].filter((part) => part !== '').join('\n');
  const children: APIComponentInContainer[] = [];
  if (header) {
    children.push(besideText ? sectionWithButton(header, besideText) : textDisplay(header));
  }
  const body = [fields, table].filter((part) => part !== '');
  if (header && (body.length > 0 || images.length > 0)) {
    children.push({ type: ComponentType.Separator, divider: true, spacing: 1 });
  }
  for (const part of body) children.push(textDisplay(part));
  if (images.length > 0) {
    children.push({
      type: ComponentType.MediaGallery,
      items: images.map((image) => ({ media: { url: `attachment://${image.name}` } })),
    });
  }
  const tail: APIComponentInContainer[] = otherFiles.map((file) => ({
    type: ComponentType.File,
    file: { url: `attachment://${file.name}` },
  }));
  if (footer) tail.push(textDisplay(footer));
  // Without text for it to sit beside, the first button joins the others; buttons that would pass
  // the 40 components (nested ones counted: the container, a section's accessory, each button and
  // its row) are left out, last first.
  const rowActions = (header ? underneath : actions).slice();
  const nestedCount = (component: APIComponentInContainer) =>
    component.type === ComponentType.Section ? 2 + component.components.length : 1;
  const countOf = (rows: readonly APIActionRowComponent<APIButtonComponent>[]) =>
    1 +
    children.reduce((total, child) => total + nestedCount(child), 0) +
    tail.length +
    rows.reduce((total, row) => total + 1 + row.components.length, 0);
  let rows = renderButtons(rowActions) as APIActionRowComponent<APIButtonComponent>[];
  while (rowActions.length > 0 && countOf(rows) > discordLimits.componentsPerMessage) {
    rowActions.pop();
    rows = renderButtons(rowActions) as APIActionRowComponent<APIButtonComponent>[];
  }
  children.push(...rows, ...tail);
  return {
    flags: MessageFlags.IsComponentsV2,
    components: [
      {
        type: ComponentType.Container,
        ...(card ? { accent_color: toneColours[card.tone ?? 'info'] } : {}),
        components: children,
      },
    ],
  };
}

function textDisplay(content: string): APITextDisplayComponent {
  return { type: ComponentType.TextDisplay, content };
}

function sectionWithButton(content: string, action: Action): APISectionComponent {
  const [row] = renderButtons([action]);
  const button = row?.components[0];
  return button
    ? { type: ComponentType.Section, components: [textDisplay(content)], accessory: button }
    : (textDisplay(content) as unknown as APISectionComponent);
}

/** The buttons Discord would take: ids it accepts, once each, as many as five rows hold. */
function usableActions(actions: readonly Action[]): Action[] {
  return actions
    .filter(
      (action, index) =>
        action.id.length <= discordLimits.customId &&
        actions.findIndex((other) => other.id === action.id) === index,
    )
    .slice(0, discordLimits.buttonsPerRow * discordLimits.actionRows);
}

/** The fields as one text display within `room` characters; those that do not fit are counted. */
function fitFields(fields: NonNullable<Card['fields']>, room: number): string {
  const shown: string[] = [];
  let used = 0;
  for (const [index, field] of fields.entries()) {
    const name = truncateText(field.name, discordLimits.embedFieldName);
    const value = truncateText(field.value || '—', discordLimits.embedFieldValue);
    const part = `**${name}**\n${value}`;
    const more = `-# … ${fields.length - index} more fields`;
    if (used + part.length + 2 > room - more.length - 2) {
      shown.push(more);
      break;
    }
    shown.push(part);
    used += part.length + 2;
  }
  return shown.join('\n\n');
}

function isImageFile(file: OutgoingFile): boolean {
  return file.mimeType.startsWith('image/');
}
