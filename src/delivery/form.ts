/**
 * A form a platform can open for a person to fill in (a Slack modal), declared without knowing the
 * platform. What they submit comes back to the command that opened it, by `commandName`.
 */
export interface Form {
  /** The command that opened it and handles its submission. */
  readonly commandName: string;
  /** A short title (Slack: at most 24 characters). */
  readonly title: string;
  readonly submitLabel: string;
  /** Handed back unchanged with the submission: where the form was opened, say. */
  readonly context: string;
  readonly sections: readonly FormSection[];
}

export interface FormSection {
  readonly heading: string;
  readonly fields: readonly FormField[];
}

export interface FormField {
  /** Unique in the form; the submission's values are keyed by it. */
  readonly name: string;
  readonly label: string;
  /** Shown under the field: how to write a value, what an empty one means. */
  readonly hint?: string;
  readonly initialValue?: string;
  readonly isMultiline?: boolean;
  /**
   * Offers these items to choose from instead of a text box (Slack: a multi-select), the items of
   * `initialValue` (separated by commas) chosen at first; what is chosen is submitted as the items
   * separated by `, `. A platform that cannot offer them all shows the text box.
   */
  readonly listChoices?: readonly string[];
}

/** What a person submitted: every field's text (empty when left empty), and the form's context. */
export interface FormSubmission {
  readonly values: Readonly<Record<string, string>>;
  readonly context: string;
}

/** The command's answer: problems by field (the form stays open), or a message for the person. */
export type FormOutcome =
  | { readonly problems: Readonly<Record<string, string>> }
  | { readonly message: string };
