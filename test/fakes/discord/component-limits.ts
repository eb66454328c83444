import type { FieldProblem } from './discord-api-error.ts';
import { characterCount } from './message-limits.ts';

/** Discord's limits on legacy message components (buttons and selects in action rows), written once. */
export const componentLimits = {
  /** components/reference.mdx, "Legacy Message Component Behavior": "up to 5 action rows". */
  actionRowsPerMessage: 5,
  /** components/reference.mdx, "Action Row": "Up to 5 ... buttons or a single select". */
  buttonsPerRow: 5,
  /** components/reference.mdx, "Component Object": `custom_id` is 1-100 characters. */
  customIdCharacters: 100,
  /** components/reference.mdx, "Button": "label ... max 80 characters". */
  buttonLabelCharacters: 80,
  /** components/reference.mdx, "Button": "url ... max 512 characters". */
  buttonUrlCharacters: 512,
} as const;

const componentTypes = { actionRow: 1, button: 2 } as const;
const selectTypes = new Set([3, 5, 6, 7, 8]);
const linkButtonStyle = 5;
const premiumButtonStyle = 6;
/** IS_COMPONENTS_V2: a message laid out with the newer components, which these rules do not cover. */
const componentsV2Flag = 1 << 15;

type Component = Record<string, unknown>;

function problem(path: (string | number)[], code: string, message: string): FieldProblem {
  return { path, error: { code, message } };
}

/**
 * Every rule a message's legacy components break, as Discord's field errors (400, 50035): at most
 * five action rows at the top, each with up to five buttons or one select; every interactive
 * component with a `custom_id` of 1-100 characters, unique in the message
 * (components/reference.mdx, "Component Object": "Multiple components on the same message must not
 * share the same custom_id"); labels of at most 80 characters; link buttons with a `url` and no
 * `custom_id`, the others with a `custom_id` and no `url`.
 */
export function findComponentProblems(body: Record<string, unknown>): FieldProblem[] {
  const { components, flags } = body;
  if (!Array.isArray(components) || (typeof flags === 'number' && (flags & componentsV2Flag) !== 0)) {
    return [];
  }
  const problems: FieldProblem[] = [];
  if (components.length > componentLimits.actionRowsPerMessage) {
    problems.push(
      problem(
        ['components'],
        'BASE_TYPE_MAX_LENGTH',
        `Must be ${componentLimits.actionRowsPerMessage} or fewer in length.`,
      ),
    );
  }
  const seenCustomIds = new Set<string>();
  for (const [rowIndex, row] of (components as Component[]).entries()) {
    const rowPath = ['components', rowIndex];
    if (row.type !== componentTypes.actionRow || !Array.isArray(row.components)) {
      problems.push(
        problem([...rowPath, 'type'], 'UNION_TYPE_CHOICES', 'Value of field "type" must be one of (1,).'),
      );
      continue;
    }
    const children = row.components as Component[];
    const hasSelect = children.some((child) => selectTypes.has(Number(child.type)));
    if (
      children.length === 0 ||
      children.length > componentLimits.buttonsPerRow ||
      (hasSelect && children.length > 1)
    ) {
      problems.push(
        problem(
          [...rowPath, 'components'],
          'BASE_TYPE_BAD_LENGTH',
          'Must be between 1 and 5 in length, or one select.',
        ),
      );
    }
    for (const [childIndex, child] of children.entries()) {
      problems.push(...childProblems(child, [...rowPath, 'components', childIndex], seenCustomIds));
    }
  }
  return problems;
}

function childProblems(
  child: Component,
  path: (string | number)[],
  seenCustomIds: Set<string>,
): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const isButton = child.type === componentTypes.button;
  const isLink = isButton && child.style === linkButtonStyle;
  const needsCustomId = !isLink && child.style !== premiumButtonStyle;
  const customId = child.custom_id;
  if (needsCustomId) {
    if (
      typeof customId !== 'string' ||
      customId.length === 0 ||
      characterCount(customId) > componentLimits.customIdCharacters
    ) {
      problems.push(
        problem([...path, 'custom_id'], 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 100 in length.'),
      );
    } else if (seenCustomIds.has(customId)) {
      problems.push(
        problem(
          [...path, 'custom_id'],
          'COMPONENT_CUSTOM_ID_DUPLICATED',
          'Component custom id cannot be duplicated',
        ),
      );
    } else {
      seenCustomIds.add(customId);
    }
  } else if (customId !== undefined) {
    problems.push(
      problem(
        [...path, 'custom_id'],
        'BUTTON_COMPONENT_CUSTOM_ID_NOT_ALLOWED',
        'A link button cannot have a custom id',
      ),
    );
  }
  if (
    isLink &&
    (typeof child.url !== 'string' || characterCount(child.url) > componentLimits.buttonUrlCharacters)
  ) {
    problems.push(
      problem(
        [...path, 'url'],
        'BUTTON_COMPONENT_URL_REQUIRED',
        'A link button needs a url of at most 512 characters',
      ),
    );
  }
  if (
    isButton &&
    typeof child.label === 'string' &&
    characterCount(child.label) > componentLimits.buttonLabelCharacters
  ) {
    problems.push(
      problem(
        [...path, 'label'],
        'BASE_TYPE_MAX_LENGTH',
        `Must be ${componentLimits.buttonLabelCharacters} or fewer in length.`,
      ),
    );
  }
  return problems;
}
