import { GatewayError } from './gateway-error.ts';

/**
 * What one model supports. The reference says support varies per model; every capability defaults
 * to `true`, so a test only lists the model it wants to be limited.
 */
export interface ModelCapabilities {
  /** Accepts `response_format: { type: 'json_schema' }`. */
  jsonSchema?: boolean;
  /** Accepts `image_url` content parts (vision input). */
  vision?: boolean;
  /** Image models: accepts `response_format: 'url'`. */
  imageUrlOutput?: boolean;
  /** Image models: accepts `image_input` reference images. */
  imageInput?: boolean;
  /**
   * Image models: accepts `data:` URIs in `image_input` too. The reference says `image_input` takes
   * links, so this one defaults to false; a test opts a model in.
   */
  imageInputDataUri?: boolean;
  /** Chat models: accepts `tools` (function calling, which the reference names as a feature). */
  tools?: boolean;
}

/** The models the fake knows and what each supports. */
export interface ModelCatalog {
  isKnown(model: string): boolean;
  capabilitiesOf(model: string): Required<ModelCapabilities>;
}

const allCapabilities: Required<ModelCapabilities> = {
  jsonSchema: true,
  vision: true,
  imageUrlOutput: true,
  imageInput: true,
  imageInputDataUri: false,
  tools: true,
};

/**
 * Builds the catalog. Without `knownModels` every model id is accepted, which keeps most tests free
 * of setup; with it, only those ids and the ones in `models` exist.
 */
export function createModelCatalog(options: {
  models?: Record<string, ModelCapabilities>;
  knownModels?: readonly string[];
}): ModelCatalog {
  const models = options.models ?? {};
  const knownModels =
    options.knownModels === undefined ? undefined : new Set([...options.knownModels, ...Object.keys(models)]);
  return {
    isKnown: (model) => knownModels === undefined || knownModels.has(model),
    capabilitiesOf: (model) => ({ ...allCapabilities, ...models[model] }),
  };
}

/** An unknown model is a 404 `model_not_found`, on both endpoints. */
export function assertModelExists(catalog: ModelCatalog, model: string): void {
  if (!catalog.isKnown(model)) {
    throw new GatewayError({
      status: 404,
      message: `The model \`${model}\` does not exist or you do not have access to it.`,
      type: 'invalid_request_error',
      code: 'model_not_found',
      param: 'model',
    });
  }
}
