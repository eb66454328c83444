import type { ReferenceImage } from '../action-store.ts';
import { choiceOption, imageOption, integerOption, textOption } from '../command-options.ts';
import { defineCommand } from '../define-command.ts';
import { drawImages } from '../draw-images.ts';
import { referenceImageFor } from '../reference-images.ts';

export const aspectRatios = ['1:1', '16:9', '9:16', '4:3', '3:4', '3:2', '2:3', '21:9'] as const;

export const imagineCommand = defineCommand({
  name: 'imagine',
  description: 'Draw images from a description',
  options: {
    prompt: textOption({ description: 'What to draw', isRequired: true, isFreeText: true, maxLength: 2_000 }),
    count: integerOption({
      description: 'How many images (1–4)',
      minValue: 1,
      maxValue: 4,
      defaultValue: 1,
      aliases: ['n'],
    }),
    aspect_ratio: choiceOption({ description: 'Shape of the image', choices: aspectRatios, aliases: ['ar'] }),
    format: choiceOption({
      description: 'File format',
      choices: ['png', 'jpg'],
      defaultValue: 'png',
    }),
    reference: imageOption({ description: 'An image to start from', aliases: ['ref'] }),
  },
  isUsableAnywhere: true,
  runsInConversationOrder: true,
  async run({ input, conversationKey, user, responder, services, signal }) {
    const references: ReferenceImage[] = [];
    if (input.reference) {
      const reference = await referenceImageFor({
        attachment: input.reference,
        maxBytes: services.maxImageBytes,
        services,
      });
      if ('problem' in reference) {
        await responder.send({ text: `⚠ ${reference.problem}`, isPrivate: true });
        return;
      }
      references.push(reference.reference);
    }
    await drawImages({
      services,
      user,
      responder,
      signal,
      request: {
        conversationKey,
        prompt: input.prompt,
        count: input.count,
        aspectRatio: input.aspect_ratio,
        outputFormat: input.format,
        references,
      },
    });
  },
});
