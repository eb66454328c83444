import type { FieldProblem } from './discord-api-error.ts';
import { characterCount } from './message-limits.ts';

/** resources/message.mdx, "Message Flags": IS_COMPONENTS_V2, `1 << 15`. */
export const componentsV2Flag = 1 << 15;

/**
 * Discord's rules for a message laid out with the newer components, written once:
 * - components/reference.mdx, introduction: with IS_COMPONENTS_V2 "The `content` and `embeds` fields
 *   will no longer work", "Messages allow up to 40 total components" (nested ones count), and
 *   attachments show only through components;
 * - resources/message.mdx, "Create Message": with the flag, "Providing `content`, `embeds`,
 *   `sticker_ids`, `poll`, or `shared_client_theme` will fail with a 400 BAD REQUEST response";
 *   "Edit Message": the flag "can only be set", and setting it needs `content` null and `embeds` [];
 * - the text of all text displays totals at most 4,000 characters (discord/discord-api-docs pull
 *   request #8562, "Document that text display components allows 4k characters", not yet merged);
 * - "Section": one to three text displays and an accessory (a button or a thumbnail); "Media
 *   Gallery": 1 to 10 items, alt text up to 1,024 characters; "File": only `attachment://` links;
 *   "Container": action rows, text displays, sections, media galleries, separators and files.
 */
export const componentsV2Limits = {
  componentsPerMessage: 40,
  textCharacters: 4000,
  sectionTexts: 3,
  galleryItems: 10,
  galleryDescriptionCharacters: 1024,
} as const;

const types = {
  actionRow: 1,
  button: 2,
  section: 9,
  textDisplay: 10,
  thumbnail: 11,
  mediaGallery: 12,
  file: 13,
  separator: 14,
  container: 17,
} as const;
const selectTypes = new Set([3, 5, 6, 7, 8]);
const topLevelTypes = new Set<number>([
  types.actionRow,
  types.section,
  types.textDisplay,
  types.mediaGallery,
  types.file,
  types.separator,
  types.container,
]);
const containerChildTypes = new Set<number>([
  types.actionRow,
  types.section,
  types.textDisplay,
  types.mediaGallery,
  types.file,
  types.separator,
]);

type Component = Record<string, unknown>;

function problem(path: (string | number)[], code: string, message: string): FieldProblem {
  return { path, error: { code, message } };
}

/** Whether a create or edit body asks for IS_COMPONENTS_V2. */
export function isComponentsV2(body: Record<string, unknown>): boolean {
  return typeof body.flags === 'number' && (body.flags & componentsV2Flag) !== 0;
}

/**
 * Every rule a V2 body breaks, as Discord's field errors (400, 50035). `filenames` are the files the
 * request uploads or keeps, which `attachment://` links must name.
 */
export function findComponentsV2Problems(
  body: Record<string, unknown>,
  filenames: ReadonlySet<string>,
): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const legacyCode = 'MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2';
  if (typeof body.content === 'string' && body.content !== '') {
    problems.push(problem(['content'], legacyCode, 'The content field cannot be used with IS_COMPONENTS_V2'));
  }
  if (Array.isArray(body.embeds) && body.embeds.length > 0) {
    problems.push(problem(['embeds'], legacyCode, 'The embeds field cannot be used with IS_COMPONENTS_V2'));
  }
  const components = Array.isArray(body.components) ? (body.components as Component[]) : [];
  const tally = { components: 0, textCharacters: 0 };
  for (const [index, component] of components.entries()) {
    const path = ['components', index];
    if (!topLevelTypes.has(Number(component.type))) {
      problems.push(problem([...path, 'type'], 'UNION_TYPE_CHOICES', 'Not a top-level component'));
      continue;
    }
    problems.push(...componentProblems(component, path, { tally, filenames }));
  }
  if (tally.components > componentsV2Limits.componentsPerMessage) {
    problems.push(
      problem(
        ['components'],
        'BASE_TYPE_MAX_LENGTH',
        `Must be ${componentsV2Limits.componentsPerMessage} or fewer components in total.`,
      ),
    );
  }
  if (tally.textCharacters > componentsV2Limits.textCharacters) {
    problems.push(
      problem(
        ['components'],
        'BASE_TYPE_MAX_LENGTH',
        `The text displays must total ${componentsV2Limits.textCharacters} or fewer characters.`,
      ),
    );
  }
  return problems;
}

function componentProblems(
  component: Component,
  path: (string | number)[],
  context: { tally: { components: number; textCharacters: number }; filenames: ReadonlySet<string> },
): FieldProblem[] {
  context.tally.components += 1;
  const problems: FieldProblem[] = [];
  const children = Array.isArray(component.components) ? (component.components as Component[]) : [];
  switch (component.type) {
    case types.textDisplay:
      if (typeof component.content !== 'string' || component.content === '') {
        problems.push(problem([...path, 'content'], 'BASE_TYPE_REQUIRED', 'This field is required'));
      } else {
        context.tally.textCharacters += characterCount(component.content);
      }
      break;
    case types.container:
      for (const [index, child] of children.entries()) {
        if (!containerChildTypes.has(Number(child.type))) {
          problems.push(
            problem([...path, 'components', index, 'type'], 'UNION_TYPE_CHOICES', 'Not a container child'),
          );
          continue;
        }
        problems.push(...componentProblems(child, [...path, 'components', index], context));
      }
      if (
        component.accent_color !== undefined &&
        component.accent_color !== null &&
        !(Number.isInteger(component.accent_color) && Number(component.accent_color) <= 0xffffff)
      ) {
        problems.push(problem([...path, 'accent_color'], 'NUMBER_TYPE_MAX', 'Must be 0xFFFFFF or less.'));
      }
      break;
    case types.section: {
      const texts = children.filter((child) => child.type === types.textDisplay);
      if (
        texts.length === 0 ||
        texts.length !== children.length ||
        texts.length > componentsV2Limits.sectionTexts
      ) {
        problems.push(
          problem([...path, 'components'], 'BASE_TYPE_BAD_LENGTH', 'Must be 1 to 3 text displays.'),
        );
      }
      for (const [index, child] of texts.entries()) {
        problems.push(...componentProblems(child, [...path, 'components', index], context));
      }
      const accessory = component.accessory as Component | undefined;
      if (accessory?.type === types.button || accessory?.type === types.thumbnail) {
        context.tally.components += 1;
      } else {
        problems.push(
          problem([...path, 'accessory'], 'BASE_TYPE_REQUIRED', 'A button or a thumbnail is required'),
        );
      }
      break;
    }
    case types.actionRow: {
      const hasSelect = children.some((child) => selectTypes.has(Number(child.type)));
      if (children.length === 0 || children.length > 5 || (hasSelect && children.length > 1)) {
        problems.push(
          problem(
            [...path, 'components'],
            'BASE_TYPE_BAD_LENGTH',
            'Must be between 1 and 5 in length, or one select.',
          ),
        );
      }
      context.tally.components += children.length;
      break;
    }
    case types.mediaGallery: {
      const items = Array.isArray(component.items) ? (component.items as Component[]) : [];
      if (items.length === 0 || items.length > componentsV2Limits.galleryItems) {
        problems.push(
          problem([...path, 'items'], 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 10 in length.'),
        );
      }
      for (const [index, item] of items.entries()) {
        const url = (item.media as Component | undefined)?.url;
        problems.push(
          ...linkProblems(url, [...path, 'items', index, 'media', 'url'], context.filenames, false),
        );
        if (
          typeof item.description === 'string' &&
          characterCount(item.description) > componentsV2Limits.galleryDescriptionCharacters
        ) {
          problems.push(
            problem(
              [...path, 'items', index, 'description'],
              'BASE_TYPE_MAX_LENGTH',
              'Must be 1024 or fewer in length.',
            ),
          );
        }
      }
      break;
    }
    case types.file:
      problems.push(
        ...linkProblems(
          (component.file as Component | undefined)?.url,
          [...path, 'file', 'url'],
          context.filenames,
          true,
        ),
      );
      break;
    default:
      break;
  }
  return problems;
}

/** components/reference.mdx, "Unfurled Media Item": a link, or `attachment://<filename>` of a file sent with it. */
function linkProblems(
  url: unknown,
  path: (string | number)[],
  filenames: ReadonlySet<string>,
  isAttachmentOnly: boolean,
): FieldProblem[] {
  if (typeof url !== 'string' || url === '') {
    return [problem(path, 'BASE_TYPE_REQUIRED', 'This field is required')];
  }
  if (url.startsWith('attachment://')) {
    return filenames.has(url.slice('attachment://'.length))
      ? []
      : [problem(path, 'UNFURLED_MEDIA_ITEM_ATTACHMENT_NOT_FOUND', 'No attachment with that name')];
  }
  return isAttachmentOnly
    ? [problem(path, 'UNFURLED_MEDIA_ITEM_URL_INVALID', 'A file component takes attachment:// links only')]
    : [];
}
