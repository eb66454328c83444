import { z } from 'zod';
import type { DocumentAttachment, ImageAttachment } from '../../src/conversation/turn.ts';
import type { Card } from '../../src/delivery/card.ts';
import type { ContentPart } from '../../src/gateway/chat-types.ts';
import { fileOption, imageOption, textOption } from '../command-options.ts';
import { toCsv } from '../csv.ts';
import { type CommandResponder, type CommandServices, defineCommand } from '../define-command.ts';
import { readCommandDocument, visionCapable } from '../document-input.ts';
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
  description: 'Pull structured data out of a screenshot, a photo, a document or pasted text',
  options: {
    what: textOption({
      description: 'What to extract, or the text to extract from',
      isFreeText: true,
      maxLength: 6_000,
    }),
    image: imageOption({ description: 'A screenshot or photo (receipt, table, form…)', aliases: ['i'] }),
    file: fileOption({ description: 'A document: PDF, Word, Excel, CSV or text' }),
  },
  runsInConversationOrder: true,
  async run({ input, conversationKey, user, responder, services, signal }) {
    if (!input.image && !input.file && !input.what) {
      await responder.send({
        text: 'Give me an image, a file or some text to extract data from.',
        isPrivate: true,
      });
      return;
    }
    const source = await sourceOf({ input, services, responder });
    if (!source) return;
    const model = source.hasImages ? visionCapable(services) : services.models.structured;
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
      messages: [{ role: 'user', content: [...source.parts, { type: 'text', text: copyExactly }] }],
    });
    if (extraction) await sendExtraction({ extraction, model, responder, source: source.label });
  },
});

/** What to extract from, as content parts: a document, an image, or the text itself. */
async function sourceOf({
  input,
  services,
  responder,
}: {
  input: {
    what: string | undefined;
    image: ImageAttachment | undefined;
    file: DocumentAttachment | undefined;
  };
  services: CommandServices;
  responder: CommandResponder;
}): Promise<{ parts: ContentPart[]; hasImages: boolean; label?: string } | undefined> {
  const asked = input.what ? ` The person asks for: ${input.what}` : '';
  if (input.file) {
    await responder.progress('📄 reading the file…');
    const document = await readCommandDocument({
      file: input.file,
      services,
      responder,
      maxCharacters: documentCharacterBudget,
    });
    if (!document) return undefined;
    const intro: ContentPart = {
      type: 'text',
      text: `Extract the structured data from this document.${asked}`,
    };
    return { parts: [intro, ...document.parts], hasImages: document.hasImages, label: document.label };
  }
  if (!input.image) {
    return {
      parts: [{ type: 'text', text: `Extract the structured data from this text:\n\n${input.what}` }],
      hasImages: false,
    };
  }
  const image = await imageDataUriOf({ attachment: input.image, maxBytes: services.maxImageBytes, services });
  if ('problem' in image) {
    await responder.send({ text: `⚠ ${image.problem}`, isPrivate: true });
    return undefined;
  }
  return {
    parts: [
      { type: 'text', text: `Extract the structured data from this image.${asked}` },
      { type: 'image_url', image_url: { url: image.dataUri } },
    ],
    hasImages: true,
  };
}

const copyExactly = 'Copy values exactly as they appear; do not guess values that are not there.';
/** Characters of a document one extraction reads at most: a long table, well within most contexts. */
const documentCharacterBudget = 60_000;

async function sendExtraction({
  extraction,
  model,
  responder,
  source,
}: {
  extraction: Extraction;
  model: string;
  responder: CommandResponder;
  source?: string;
}): Promise<void> {
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
  const card = extractionCard(extraction, model);
  await responder.send({
    card: source ? { ...card, footer: `${source} · ${card.footer}` } : card,
    files,
  });
}

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
