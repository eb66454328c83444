import type { ChatMessage } from './request-schemas.ts';

/** The text of a message: the string content, or its text parts joined by newlines. */
export function textOf(message: ChatMessage): string {
  if (typeof message.content === 'string') {
    return message.content;
  }
  if (!message.content) {
    return '';
  }
  return message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
}

/** How many `image_url` parts a message carries. */
export function imageCountOf(message: ChatMessage): number {
  if (typeof message.content === 'string' || !message.content) {
    return 0;
  }
  return message.content.filter((part) => part.type === 'image_url').length;
}
