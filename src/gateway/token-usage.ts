/** What the gateway says a request used, from `usage` in its answer (the last chunk of a stream). */
export interface TokenUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly totalTokens: number;
}
