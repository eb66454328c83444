import type { PlaceSettings } from '../administration/place-settings.ts';
import type { BudgetCheck } from '../conversation/usage-ledger.ts';
import type { ModelCatalog } from '../gateway/model-catalog.ts';
import { budgetRules, budgetSettingNames, roleBudgetRules, roleBudgetSettingNames } from './budget-rules.ts';
import { imageCostNanos, priceOf, tokenCostNanos, unitsToNanos } from './prices.ts';
import type { SpendAmount } from './spend-store.ts';

/** What a request will ask of the gateway, at worst. */
export type SpendWork =
  | {
      readonly kind: 'tokens';
      /** The prompt, estimated without a tokenizer (context-budget.ts). */
      readonly promptTokens: number;
      /** `max_tokens`: the most the reply can cost. */
      readonly maxCompletionTokens: number;
      /** Requests it may take (a structured answer may need a repair request). */
      readonly attempts?: number;
    }
  | {
      readonly kind: 'images';
      readonly count: number;
      readonly aspectRatio?: string | undefined;
      readonly outputFormat?: string | undefined;
    }
  /** One call of a tool with a price of its own (the owner's tools file), counted like tokens. */
  | { readonly kind: 'tool-call'; readonly priceNanos: number };

export /** Every budget in force at the place for this person, in measure units (cost in nanos). */
function budgetsFor({
  settings,
  roleIds,
}: {
  settings: PlaceSettings;
  roleIds: readonly string[];
}): BudgetCheck[] {
  const budgets: BudgetCheck[] = [];
  for (const name of budgetSettingNames) {
    const limit = settings.budgetLimits[name];
    if (limit === undefined) continue;
    const rule = budgetRules[name];
    budgets.push({ rule, limit: rule.measure === 'cost' ? unitsToNanos(limit) : limit });
  }
  for (const name of roleBudgetSettingNames) {
    const limits = settings.roleBudgetLimits[name] ?? {};
    for (const roleId of roleIds) {
      const limit = limits[roleId];
      if (limit !== undefined)
        budgets.push({ rule: roleBudgetRules[name], limit: unitsToNanos(limit), roleId });
    }
  }
  return budgets;
}

/** A request's worst case in every measure, at the model's price. */
export function amountFor({
  catalog,
  model,
  work,
}: {
  catalog: ModelCatalog;
  model: string;
  work: SpendWork;
}): SpendAmount {
  if (work.kind === 'tool-call') return { costNanos: work.priceNanos, tokens: 0, images: 0 };
  const price = priceOf(catalog, model);
  if (work.kind === 'images') {
    return {
      costNanos: imageCostNanos({
        price,
        count: work.count,
        aspectRatio: work.aspectRatio,
        outputFormat: work.outputFormat,
      }),
      tokens: 0,
      images: work.count,
    };
  }
  const attempts = work.attempts ?? 1;
  return {
    costNanos:
      attempts *
      tokenCostNanos({ price, promptTokens: work.promptTokens, completionTokens: work.maxCompletionTokens }),
    tokens: attempts * (work.promptTokens + work.maxCompletionTokens),
    images: 0,
  };
}
