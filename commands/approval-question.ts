import type { OutgoingFile } from '../src/delivery/surface.ts';
import type { ToolCall } from '../src/gateway/chat-types.ts';
import type { Tool } from '../src/tools/tool.ts';
import type { ApprovalEnding } from '../src/tools/tool-approvals.ts';

/**
 * Room a question keeps below the platform's message length for its first lines, its last line and
 * the "approved by" line its edit adds.
 */
const questionRoomCharacters = 400;

/** The question's text, and the file with the whole arguments when the text shows less than all. */
export interface ApprovalQuestion {
  readonly text: string;
  readonly file: OutgoingFile | undefined;
}

/**
 * The question under which an acting tool call waits for its asker: every argument, exactly the text
 * the model wrote (the bytes that run once approved), inert on every platform.
 *
 * The arguments go in a fenced code block: inside one, Discord, Slack and CommonMark (the terminal's
 * renderer) show text literally, with no bold, links or mentions (Discord "Markdown Text 101", code
 * blocks; Slack "Formatting text for app surfaces", code blocks; CommonMark 0.31 §4.5, "the content
 * of a code fence is treated as literal text"). Discord and Slack know only the three-backtick fence
 * (a longer one is not theirs), so the only text that could close the block early is three
 * backticks: arguments holding them are not shown inline at all, only in the file. Arguments longer
 * than the message allows (`maxMessageLength` less the question's own room) are cut, said so with
 * how much is left, and sent whole as a file beside the question.
 */
export function approvalQuestionOf({
  tool,
  call,
  askerName,
  maxMessageLength,
}: {
  tool: Tool;
  call: ToolCall;
  askerName: string;
  maxMessageLength: number;
}): ApprovalQuestion {
  const argumentsText = call.arguments;
  const fileName = `${call.name}-arguments.json`;
  const shownLimit = Math.max(0, maxMessageLength - questionRoomCharacters);
  const hasFence = argumentsText.includes('```');
  const hasHidden = hiddenCharacters.test(argumentsText);
  const shown = hasFence || hasHidden ? '' : cutAt(argumentsText, shownLimit);
  const hiddenCount = argumentsText.length - shown.length;
  const lines = [
    // A tool's name is one OpenAI accepts for a function (letters, digits, `_` and `-`), so it is
    // safe in a code span; its title comes from a server and is shown only as plain words.
    `🔧 \`${call.name}\` (${plainLabel(tool.title)}, from ${plainLabel(tool.source)}) wants to ${tool.annotations.isDestructive ? 'change or delete something' : 'act'}, with these arguments, exactly as they will run:`,
  ];
  if (shown !== '') lines.push('```', shown, '```');
  if (argumentsText.trim() === '') lines.push('(no arguments)');
  else if (hasFence) lines.push(`(not shown here: they hold a code fence — see file ${fileName})`);
  else if (hasHidden)
    lines.push(
      `(not shown here: they hold characters that are invisible or turn the text's direction — see file ${fileName})`,
    );
  else if (hiddenCount > 0)
    lines.push(`(cut, ${hiddenCount.toLocaleString('en-US')} more characters — see file ${fileName})`);
  lines.push(`${plainLabel(askerName)}, allow it?`);
  return {
    text: lines.join('\n'),
    file:
      hiddenCount > 0
        ? { name: fileName, mimeType: 'application/json', bytes: new TextEncoder().encode(argumentsText) }
        : undefined,
  };
}

/** The question once answered: what it showed, then how it ended, without its buttons. */
export function answeredQuestionText(question: ApprovalQuestion, ending: ApprovalEnding): string {
  const asked = question.text.slice(0, question.text.lastIndexOf('\n'));
  return `${asked}\n${ending.decision === 'approved' ? `✅ approved by ${plainLabel(ending.approverName)}` : `🚫 not run: ${ending.detail}`}`;
}

/**
 * Characters that would make the text shown differ from the text run without a sign: controls
 * (but tab and line feed) and format characters — zero-width ones, the soft hyphen, and the
 * bidirectional overrides and isolates that reorder what follows
 * (Unicode UAX #9; the "Trojan Source" attack, CVE-2021-42574), and every other character Unicode
 * says is drawn as nothing (Default_Ignorable_Code_Point: variation selectors, tag characters, the
 * Hangul fillers), which could carry a payload no one sees. Arguments holding any are shown only in
 * the file, where every byte is what it is.
 */
const hiddenCharacters = /(?![\t\n])[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}\u3164\uFFA0]/u;

// Never ends between the two halves of a surrogate pair, which would show as a broken character.
function cutAt(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const end = /[\uD800-\uDBFF]/.test(text[limit - 1] ?? '') ? limit - 1 : limit;
  return text.slice(0, end);
}

/** Words for a label a server or person chose: no character any platform reads as formatting. */
function plainLabel(text: string): string {
  return text
    .replace(/[^\p{L}\p{N} .,'/+-]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 80);
}
