import type { FakeBehaviour } from './behaviour.ts';
import { imageCountOf, textOf } from './message-text.ts';
import type { ChatRequest } from './request-schemas.ts';
import { exampleForSchema } from './schema-example.ts';

/** What the fake sends for `invalidJson`: the kind of chatty preamble that breaks `JSON.parse`. */
export const invalidJsonReply = 'Sure! Here is the JSON you asked for:\n{"summary": "unterminated';

/**
 * The reply text for a chat request. A test's `text` wins; otherwise the reply is deterministic and
 * fits the request: valid JSON in the JSON modes (conforming to the schema for `json_schema`), and
 * otherwise a quote of the user's last message followed by a little markdown and a code fence, so
 * local play shows streaming and fences.
 */
export function replyTextFor(request: ChatRequest, behaviour: FakeBehaviour): string {
  if (behaviour.invalidJson === true) {
    return invalidJsonReply;
  }
  if (behaviour.text !== undefined) {
    return behaviour.text;
  }
  const format = request.response_format;
  if (format?.type === 'json_schema') {
    return JSON.stringify(exampleForSchema(format.json_schema.schema));
  }
  if (format?.type === 'json_object') {
    return JSON.stringify({ reply: `You said: ${lastUserText(request)}` });
  }
  return defaultReply(request);
}

function defaultReply(request: ChatRequest): string {
  const lastUserMessage = request.messages.findLast((message) => message.role === 'user');
  const imageCount = lastUserMessage === undefined ? 0 : imageCountOf(lastUserMessage);
  const images = imageCount === 0 ? '' : ` and sent ${imageCount} image${imageCount === 1 ? '' : 's'}`;
  return [
    `You said: "${lastUserText(request)}"${images}. This reply comes from the **fake Model Gateway**, ` +
      'written in small chunks so you can watch it stream in.',
    '',
    'Here is a short code block:',
    '',
    '```ts',
    'export function greet(name: string): string {',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the reply shows TypeScript source text.
    '  return `Hello, ${name}!`;',
    '}',
    '```',
  ].join('\n');
}

function lastUserText(request: ChatRequest): string {
  const lastUserMessage = request.messages.findLast((message) => message.role === 'user');
  return lastUserMessage === undefined ? '' : textOf(lastUserMessage);
}
