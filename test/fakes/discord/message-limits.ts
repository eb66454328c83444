import type { APIEmbed } from 'discord.js';
import { z } from 'zod';
import type { FieldProblem } from './discord-api-error.ts';

/**
 * Discord's limits on what one message may carry, written once: content "up to 2000 characters" and
 * "Up to 10 rich embeds (up to 6000 characters)" (resources/message.mdx, "Create Message"), each
 * embed within "Embed Limits" (same page). Ten attachments a message is what discord.js and the
 * Discord app hold to; the API docs give no number.
 */
export const messageLimits = {
  contentCharacters: 2000,
  embedsPerMessage: 10,
  embedTitleCharacters: 256,
  embedDescriptionCharacters: 4096,
  embedFieldsPerEmbed: 25,
  embedFieldNameCharacters: 256,
  embedFieldValueCharacters: 1024,
  embedFooterCharacters: 2048,
  embedAuthorNameCharacters: 256,
  embedTotalCharacters: 6000,
  attachmentsPerMessage: 10,
  /** The default upload limit of a file, in a guild without boosts (reference.mdx, Uploading Files). */
  attachmentSizeBytes: 10 * 1024 * 1024,
  /** The largest request that sends a message, files included (resources/message.mdx, Create Message). */
  requestSizeBytes: 25 * 1024 * 1024,
} as const;

/**
 * Discord counts characters as Unicode code points, so an emoji is one character even though it is
 * two UTF-16 units in JavaScript.
 */
export function characterCount(text: string): number {
  let count = 0;
  for (const _ of text) {
    count += 1;
  }
  return count;
}

function maxLengthMessage(limit: number): string {
  return `Must be ${limit} or fewer in length.`;
}

function text(limit: number) {
  return z.string().refine((value) => characterCount(value) <= limit, { message: maxLengthMessage(limit) });
}

const embedSchema = z.looseObject({
  title: text(messageLimits.embedTitleCharacters).optional(),
  description: text(messageLimits.embedDescriptionCharacters).optional(),
  fields: z
    .array(
      z.looseObject({
        name: text(messageLimits.embedFieldNameCharacters),
        value: text(messageLimits.embedFieldValueCharacters),
        inline: z.boolean().optional(),
      }),
    )
    .max(messageLimits.embedFieldsPerEmbed, { message: maxLengthMessage(messageLimits.embedFieldsPerEmbed) })
    .optional(),
  footer: z.looseObject({ text: text(messageLimits.embedFooterCharacters) }).optional(),
  author: z.looseObject({ name: text(messageLimits.embedAuthorNameCharacters) }).optional(),
});

/** The parts of a message body that have limits; everything else passes through unchecked. */
const limitedFieldsSchema = z.looseObject({
  content: text(messageLimits.contentCharacters).nullish(),
  embeds: z
    .array(embedSchema)
    .max(messageLimits.embedsPerMessage, { message: maxLengthMessage(messageLimits.embedsPerMessage) })
    .nullish(),
  attachments: z
    .array(z.unknown())
    .max(messageLimits.attachmentsPerMessage, {
      message: maxLengthMessage(messageLimits.attachmentsPerMessage),
    })
    .nullish(),
});

/** Every limit a message body breaks, as Discord's field errors; empty when it is within limits. */
export function findLimitProblems(body: Record<string, unknown>): FieldProblem[] {
  const parsed = limitedFieldsSchema.safeParse(body);
  const problems: FieldProblem[] = parsed.success
    ? []
    : parsed.error.issues.map((issue) => ({
        path: issue.path.map((key) => (typeof key === 'symbol' ? String(key) : key)),
        error: {
          code: issue.message.startsWith('Must be') ? 'BASE_TYPE_MAX_LENGTH' : 'BASE_TYPE_BAD_TYPE',
          message: issue.message,
        },
      }));
  const embeds = Array.isArray(body.embeds) ? (body.embeds as APIEmbed[]) : [];
  if (problems.length === 0 && totalEmbedCharacters(embeds) > messageLimits.embedTotalCharacters) {
    problems.push({
      path: ['embeds'],
      error: {
        code: 'MAX_EMBED_SIZE_EXCEEDED',
        message: `Embed size exceeds maximum size of ${messageLimits.embedTotalCharacters}`,
      },
    });
  }
  return problems;
}

/** The characters that count towards the 6,000 shared by all embeds of a message. */
export function totalEmbedCharacters(embeds: readonly APIEmbed[]): number {
  let total = 0;
  for (const embed of embeds) {
    total += characterCount(embed.title ?? '') + characterCount(embed.description ?? '');
    total += characterCount(embed.footer?.text ?? '') + characterCount(embed.author?.name ?? '');
    for (const field of embed.fields ?? []) {
      total += characterCount(field.name) + characterCount(field.value);
    }
  }
  return total;
}
