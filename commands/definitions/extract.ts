import { z } from 'zod';
import type { Card } from '../../src/delivery/card.ts';
import type { ContentPart } from '../../src/gateway/chat-types.ts';
import { imageOption, textOption } from '../command-options.ts';
import { toCsv } from '../csv.ts';
import { defineCommand } from '../define-command.ts';
import { imageDataUriOf } from '../reference-images.ts';
import { askForStructuredAnswer } from '../structured-answer.ts';

export const extractionSchema = z.object({
  title: z.string().describe('What this is, e.g. "Receipt from Café Luna"'),
  summary: z.string().describe('One sentence about the content'),
  fields: z
    .array(z.object({ name: z.string(), value: z.string() }))
    .describe('Single values found: totals, dates, names, ids, addresses…'),
  table: z
    .object({
      columns: z.array(z.string()),
      rows: z.array(z.array(z.string()).describe('One cell per column, in column order')),
    })
    .nullable()
    .describe('Repeated rows such as line items or a table in the image; null if there are none'),
});

export type Extraction = z.infer<typeof extractionSchema>;

export const extractCommand = defineCommand({
  name: 'extract',
  description: 'Pull structured data out of a screenshot, a photo or pasted text',
  options: {
    what: textOption({
      description: 'What to extract, or the text to extract from',
      isFreeText: true,
      maxLength: 6_000,
    }),
    image: imageOption({ description: 'A screenshot or photo (receipt, table, form…)', aliases: ['i'] }),
  },
  runsInConversationOrder: true,
  async run({ input, conversationKey, user, responder, services, signal }) {
    if (!input.image && !input.what) {
      await responder.send({ text: 'Give me an image or some text to extract data from.', isPrivate: true });
      return;
    }
    const content: ContentPart[] = [
      {
        type: 'text',
        text: input.image
          ? `Extract the structured data from this image.${input.what ? ` The person asks for: ${input.what}` : ''}`
          : `Extract the structured data from this text:\n\n${input.what}`,
      },
    ];
    let model = services.models.structured;
    if (input.image) {
      const image = await imageDataUriOf({
        attachment: input.image,
        maxBytes: services.maxImageBytes,
        services,
      });
      if ('problem' in image) {
        await responder.send({ text: `⚠ ${image.problem}`, isPrivate: true });
        return;
      }
      content.push({ type: 'image_url', image_url: { url: image.dataUri } });
      if (!services.gateway.capabilitiesOf(model).vision) model = services.models.vision;
    }
    await responder.progress('🔎 extracting…');
    const extraction = await askForStructuredAnswer({
      services,
      user,
      conversationKey,
      responder,
      signal,
      model,
      schema: extractionSchema,
      schemaName: 'extraction',
      messages: [
        {
          role: 'user',
          content: [
            ...content,
            {
              type: 'text',
              text: 'Copy values exactly as they appear; do not guess values that are not there.',
            },
          ],
        },
      ],
    });
    if (!extraction) return;
    const files = [
      {
        name: 'extraction.json',
        mimeType: 'application/json',
        bytes: new TextEncoder().encode(`${JSON.stringify(extraction, null, 2)}\n`),
      },
    ];
    if (extraction.table && extraction.table.rows.length > 0) {
      files.push({
        name: 'table.csv',
        mimeType: 'text/csv',
        bytes: new TextEncoder().encode(toCsv([extraction.table.columns, ...extraction.table.rows])),
      });
    }
    await responder.send({ card: extractionCard(extraction, model), files });
  },
});

export function extractionCard(extraction: Extraction, model: string): Card {
  return {
    title: extraction.title,
    description: extraction.summary,
    fields: extraction.fields.map((field) => ({
      name: field.name,
      value: field.value || '—',
      isInline: field.value.length < 40,
    })),
    ...(extraction.table && extraction.table.rows.length > 0 ? { table: extraction.table } : {}),
    footer: `extracted by ${model} · full data attached as JSON${extraction.table?.rows.length ? ' and CSV' : ''}`,
    tone: 'success',
  };
}
