import { characterCount } from './message-limits.ts';

// interactions/receiving-and-responding.mdx, "Modal": custom_id 1-100 characters, title at most 45,
// between 1 and 5 components. components/reference.mdx, "Label": a top-level component (type 18)
// with a label of at most 45 characters around one child; "Text Input" (type 4): custom_id 1-100,
// style 1 (short) or 2 (paragraph), min_length 0-4000, max_length 1-4000, value at most 4000,
// placeholder at most 100. "Text Inputs ... must be placed inside a Label" (an Action Row around a
// text input is no longer recommended but still accepted).

type Fields = Record<string, unknown>;

const componentTypes = { actionRow: 1, textInput: 4, label: 18 } as const;

/** Every rule a modal response breaks; empty when Discord shows it. */
export function findModalProblems(modal: Fields | undefined): string[] {
  if (modal === undefined) return ['a modal needs data'];
  const problems: string[] = [];
  const within = (value: unknown, min: number, max: number) =>
    typeof value === 'string' && characterCount(value) >= min && characterCount(value) <= max;
  if (!within(modal.custom_id, 1, 100)) problems.push('custom_id must be 1-100 characters');
  if (!within(modal.title, 1, 45)) problems.push('title must be 1-45 characters');
  const components = Array.isArray(modal.components) ? (modal.components as Fields[]) : [];
  if (components.length < 1 || components.length > 5) problems.push('a modal has 1-5 components');
  for (const component of components) {
    if (component.type === componentTypes.label && !within(component.label, 1, 45)) {
      problems.push('a label is at most 45 characters');
    }
    const inputs =
      component.type === componentTypes.label
        ? [component.component as Fields]
        : component.type === componentTypes.actionRow
          ? ((component.components ?? []) as Fields[])
          : [];
    for (const input of inputs) {
      if (input?.type !== componentTypes.textInput) continue;
      if (!within(input.custom_id, 1, 100)) problems.push('a text input custom_id is 1-100 characters');
      if (input.style !== 1 && input.style !== 2) problems.push('a text input style is 1 or 2');
      if (
        input.max_length !== undefined &&
        !(Number(input.max_length) >= 1 && Number(input.max_length) <= 4000)
      )
        problems.push('max_length is 1-4000');
      if (input.value !== undefined && !within(input.value, 0, 4000))
        problems.push('value is at most 4000 characters');
      if (input.placeholder !== undefined && !within(input.placeholder, 0, 100))
        problems.push('placeholder is at most 100 characters');
    }
  }
  return problems;
}

/** The text inputs of a modal by custom_id, wherever they sit (in a label or an action row). */
export function textInputsOf(modal: Fields): Map<string, Fields> {
  const inputs = new Map<string, Fields>();
  for (const component of (modal.components ?? []) as Fields[]) {
    const children =
      component.type === componentTypes.label
        ? [component.component as Fields]
        : ((component.components ?? []) as Fields[]);
    for (const child of children) {
      if (child?.type === componentTypes.textInput) inputs.set(String(child.custom_id), child);
    }
  }
  return inputs;
}

/**
 * The `components` of a MODAL_SUBMIT as Discord sends them back: each label with its text input's
 * `value` (receiving-and-responding.mdx, "Component Interaction Response Structures").
 */
export function submittedComponents(modal: Fields, values: Readonly<Record<string, string>>): Fields[] {
  let nextId = 1;
  return ((modal.components ?? []) as Fields[]).map((component) => {
    const wrap = (child: Fields) => ({
      type: componentTypes.textInput,
      id: nextId++,
      custom_id: child.custom_id,
      value: values[String(child.custom_id)] ?? String(child.value ?? ''),
    });
    if (component.type === componentTypes.label) {
      return { type: componentTypes.label, id: nextId++, component: wrap(component.component as Fields) };
    }
    return {
      type: componentTypes.actionRow,
      id: nextId++,
      components: ((component.components ?? []) as Fields[]).map(wrap),
    };
  });
}
