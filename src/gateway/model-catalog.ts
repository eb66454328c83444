import { z } from 'zod';

/**
 * What each model can do. The gateway serves hundreds of models and does not tell which support
 * vision, `json_schema`, image links or reference images, so parley reads that from a JSON file
 * (MODEL_CAPABILITIES_FILE) and falls back to cautious defaults for models it does not list.
 */
export interface ModelCapabilities {
  /** Accepts `image_url` content parts. */
  readonly vision: boolean;
  /** Accepts `response_format: { type: 'json_schema' }`; otherwise parley uses `json_object`. */
  readonly jsonSchema: boolean;
  /** Image model answers `response_format: 'url'`; otherwise images come back as base64. */
  readonly imageUrlOutput: boolean;
  /** Image model takes `image_input` reference images (as links: the reference says so). */
  readonly imageInput: boolean;
  /**
   * Image model (or the gateway in front of it) also takes `data:` URIs in `image_input`: only then
   * can an image without a public link (a terminal file, a private Slack file) be a reference.
   */
  readonly imageInputDataUri: boolean;
  /** Image model takes `aspect_ratio`. */
  readonly aspectRatio: boolean;
  /** Tokens the model can read and write in one request. */
  readonly contextTokens: number;
  /** Takes `tools` (function calling): web search is offered as tools, else searched first. */
  readonly tools: boolean;
}

const capabilitiesSchema = z.strictObject({
  vision: z.boolean(),
  jsonSchema: z.boolean(),
  imageUrlOutput: z.boolean(),
  imageInput: z.boolean(),
  imageInputDataUri: z.boolean(),
  aspectRatio: z.boolean(),
  contextTokens: z.number().int().positive(),
  tools: z.boolean(),
});

/** The defaults are cautious: a feature is assumed absent unless the file says otherwise. */
export const cautiousDefaults: ModelCapabilities = {
  vision: false,
  jsonSchema: false,
  imageUrlOutput: false,
  imageInput: false,
  imageInputDataUri: false,
  aspectRatio: true,
  contextTokens: 8_192,
  tools: false,
};

/** An image price that differs by shape or format: the first variant whose fields all match wins. */
const imagePriceVariantSchema = z.strictObject({
  aspectRatio: z.string().min(1).optional(),
  outputFormat: z.enum(['png', 'jpg']).optional(),
  perImage: z.number().nonnegative(),
});

/** What a model costs, in the gateway's currency units. */
export const modelPriceSchema = z.strictObject({
  inputPerMillionTokens: z.number().nonnegative(),
  outputPerMillionTokens: z.number().nonnegative(),
  perImage: z.number().nonnegative(),
  perImageVariants: z.array(imagePriceVariantSchema),
});

/** One entry of the file: any capabilities, and any part of the price, over the defaults. */
const catalogEntrySchema = capabilitiesSchema
  .partial()
  .extend({ price: modelPriceSchema.partial().optional() });

export const modelCatalogSchema = z.strictObject({
  defaults: catalogEntrySchema.default({}),
  models: z.record(z.string().min(1), catalogEntrySchema).default({}),
});

export type ModelCatalog = z.infer<typeof modelCatalogSchema>;

/** The capabilities of one model: its entry in the catalog over the catalog's defaults. */
export function capabilitiesOf(catalog: ModelCatalog, model: string): ModelCapabilities {
  const { price: _defaultPrice, ...defaults } = catalog.defaults;
  const { price: _modelPrice, ...entry } = catalog.models[model] ?? {};
  return { ...cautiousDefaults, ...defaults, ...entry };
}
