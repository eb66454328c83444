import type { z } from 'zod';
import type { ModelCatalog, modelPriceSchema } from '../gateway/model-catalog.ts';
import type { TokenUsage } from '../gateway/token-usage.ts';

/** What a model costs, in the gateway's currency units: per million tokens, and per image drawn. */
export type ModelPrice = z.infer<typeof modelPriceSchema>;

/**
 * Costs are counted in billionths of a unit, as whole numbers: sums of many small requests stay
 * exact (floating point would drift), and a Redis counter can add them with HINCRBY.
 */
export const nanosPerUnit = 1_000_000_000;

/**
 * The price when neither the model nor the file's defaults name one: on the high side, so that a
 * catalog without prices makes budgets bite early rather than never.
 */
const cautiousPrice: ModelPrice = {
  inputPerMillionTokens: 10,
  outputPerMillionTokens: 30,
  perImage: 0.2,
  perImageVariants: [],
};

/** A model's price: its own entry over the catalog's defaults over a cautious price. */
export function priceOf(catalog: ModelCatalog, model: string): ModelPrice {
  return { ...cautiousPrice, ...catalog.defaults.price, ...catalog.models[model]?.price };
}

/** The cost of tokens, in nanos: prompt tokens at the input price, reply tokens at the output price. */
export function tokenCostNanos({
  price,
  promptTokens,
  completionTokens,
}: {
  price: ModelPrice;
  promptTokens: number;
  completionTokens: number;
}): number {
  return Math.round(
    (promptTokens * price.inputPerMillionTokens + completionTokens * price.outputPerMillionTokens) * 1_000,
  );
}

/** The cost of a reply as the gateway reported it in `usage`. */
export function usageCostNanos({ price, usage }: { price: ModelPrice; usage: TokenUsage }): number {
  return tokenCostNanos({
    price,
    promptTokens: usage.promptTokens,
    completionTokens: usage.completionTokens,
  });
}

/** The cost of `count` images of one shape and format. */
export function imageCostNanos({
  price,
  count,
  aspectRatio,
  outputFormat,
}: {
  price: ModelPrice;
  count: number;
  aspectRatio?: string | undefined;
  outputFormat?: string | undefined;
}): number {
  const variant = price.perImageVariants.find(
    (candidate) =>
      (candidate.aspectRatio === undefined || candidate.aspectRatio === aspectRatio) &&
      (candidate.outputFormat === undefined || candidate.outputFormat === outputFormat),
  );
  return Math.round(count * (variant?.perImage ?? price.perImage) * nanosPerUnit);
}

/** Units to nanos, for budgets written in units. */
export function unitsToNanos(units: number): number {
  return Math.round(units * nanosPerUnit);
}

/** Nanos as units for a person: `0.0123`, with no more digits than mean something. */
export function formatCost(nanos: number): string {
  const units = nanos / nanosPerUnit;
  if (units === 0) return '0';
  const digits = units >= 1 ? 2 : units >= 0.01 ? 4 : 6;
  return units
    .toFixed(digits)
    .replace(/(\.\d*?[1-9])0+$/, '$1')
    .replace(/\.0+$/, '');
}
