import { rules as recommendedRules } from '@secretlint/secretlint-rule-preset-recommend';
import type {
  SecretLintRuleContext,
  SecretLintRuleLocalizeMessages,
  SecretLintRuleReportHandler,
  SecretLintSourceCode,
  SecretLintSourceNodeLocation,
  SecretLintSourceNodePosition,
} from '@secretlint/types';

/** One credential a secretlint rule found: what kind, and where its value sits in the text. */
export interface RuleFinding {
  /** The rule's message id, e.g. `GITHUB_TOKEN`, `AWSAccessKeyID`. */
  readonly kind: string;
  readonly start: number;
  readonly end: number;
}

/*
 * secretlint's recommended preset, run on a string. secretlint's own entry point (@secretlint/core
 * lintSource) is async and built for files: config, profiler, formatting, one promise a file. The
 * log scrubber runs on every line synchronously, so parley calls the preset's rules through their
 * published interface instead (a rule is `create(context, options)` returning a `file(source)`
 * handler; @secretlint/types): each rule is created once, and each text is handed to every handler.
 * The rules for text are synchronous regular-expression scans; the only asynchronous one (GCP's
 * .p12 files) runs for binary files, never for text without a file name, which is all parley
 * gives. The rule set is the library's: when secretlint learns a new token shape, parley does too.
 */

/** `secretlint-disable` comments let a file opt out; a person's text must not be able to. */
const skippedRuleIds = new Set(['@secretlint/secretlint-rule-filter-comments']);

/** The options parley turns on: the AWS rule finds access key ids (AKIA…) only when asked. */
const ruleOptions = { enableIDScanRule: true };

interface ScanState {
  text: string;
  findings: RuleFinding[];
}

const state: ScanState = { text: '', findings: [] };

const context: SecretLintRuleContext = {
  sharedOptions: {},
  // The translator keeps the message's data: every rule passes the credential it found there
  // (TOKEN, KEY, ID, URI…), which locates the value more exactly than some rules' ranges do. The
  // sentence itself ("found GitHub Token: ghp_…") would hold the secret and is never made.
  createTranslator:
    <T extends SecretLintRuleLocalizeMessages>(_messages: T) =>
    (messageId: keyof T, props?: Record<string, unknown>) => ({
      message: String(messageId),
      messageId: String(messageId),
      data: props,
    }),
  report({ message, range }) {
    const found = foundValueOf(message.data);
    // The AWS secret key rule reports the start of `aws_secret_access_key = …` with the key's
    // length, so the range misses the key's end: the value itself is searched from the range on.
    const at = found === undefined ? -1 : state.text.indexOf(found, range[0]);
    state.findings.push(
      at >= 0 && found !== undefined
        ? { kind: message.messageId, start: at, end: at + found.length }
        : { kind: message.messageId, start: range[0], end: range[1] },
    );
  },
  ignore() {},
};

const handlers: readonly SecretLintRuleReportHandler[] = recommendedRules
  .filter((rule) => !skippedRuleIds.has(rule.meta.id))
  .map((rule) => rule.create(context, ruleOptions));

/** Every credential secretlint's recommended rules find in `text`, synchronously. */
export function findWithSecretlintRules({ text }: { text: string }): RuleFinding[] {
  state.text = text;
  state.findings = [];
  const source = createSource(text);
  for (const handler of handlers) {
    const pending = handler.file?.(source);
    // Not reached for text (see above); a rule that turned asynchronous must not crash the process.
    if (pending instanceof Promise) pending.catch(() => {});
  }
  const findings = state.findings;
  state.findings = [];
  state.text = '';
  return findings;
}

function foundValueOf(data: unknown): string | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const value = Object.values(data).find((candidate) => typeof candidate === 'string' && candidate !== '');
  return typeof value === 'string' ? value : undefined;
}

/** A source as secretlint's core makes one for text with no file behind it. */
function createSource(content: string): SecretLintSourceCode {
  let lineStarts: number[] | undefined;
  const starts = () => {
    lineStarts ??= [0, ...[...content.matchAll(/\r\n|\r|\n/g)].map((match) => match.index + match[0].length)];
    return lineStarts;
  };
  const positionToIndex = ({ line, column }: SecretLintSourceNodePosition) =>
    (starts()[line - 1] ?? content.length) + column;
  const indexToPosition = (index: number): SecretLintSourceNodePosition => {
    const lines = starts();
    let line = lines.length;
    while (line > 1 && (lines[line - 1] ?? 0) > index) line -= 1;
    return { line, column: index - (lines[line - 1] ?? 0) };
  };
  return {
    hasBOM: false,
    content,
    filePath: undefined,
    physicalFilePath: undefined,
    contentType: 'text',
    ext: '',
    getFilePath: () => undefined,
    getPhysicalFilePath: () => undefined,
    locationToRange: ({ start, end }: SecretLintSourceNodeLocation) =>
      [positionToIndex(start), positionToIndex(end)] as const,
    rangeToLocation: ([start, end]) => ({ start: indexToPosition(start), end: indexToPosition(end) }),
    positionToIndex,
    indexToPosition,
  };
}
