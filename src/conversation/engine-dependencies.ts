import type { PlaceSettingsReader } from '../administration/place-settings.ts';
import type { TurnReading } from '../documents/turn-documents.ts';
import type { Gateway } from '../gateway/gateway-client.ts';
import type { Logger } from '../log.ts';
import type { MemoryBook } from '../memory/memory-book.ts';
import type { SpendGuard } from '../spending/spend-guard.ts';
import type { KeyedLock } from '../state/keyed-lock.ts';
import type { ToolReplies } from '../tools/tool-replies.ts';
import type { HistoryStore } from './history-store.ts';
import type { ReplyJournal } from './reply-journal.ts';
import type { SettingsStore } from './settings-store.ts';
import type { SummaryFolding } from './summary-folding.ts';
import type { WaitingIndicators } from './waiting-indicator.ts';

/** The models, prompt and limits a reply uses where neither the conversation nor the place sets its own. */
export interface EngineDefaults {
  readonly chatModel: string;
  readonly visionModel: string;
  readonly systemPrompt: string;
  readonly replyMaxTokens: number;
  readonly maxImageBytes: number;
}

/** What the conversation engine works with: the gateway, the stores, and the optional features. */
export interface EngineDependencies {
  readonly gateway: Gateway;
  readonly history: HistoryStore;
  readonly settings: SettingsStore;
  readonly lock: KeyedLock;
  readonly defaults: EngineDefaults;
  readonly logger: Logger;
  /**
   * Budgets and the request rate: every reply is admitted first, and its hold is what lets the
   * gateway client send each of the reply's requests (tool rounds and search decisions included).
   */
  readonly spending: SpendGuard;
  /** Channel and server defaults set with /config (model, system prompt); optional in tests. */
  readonly places?: PlaceSettingsReader;
  readonly now?: () => Date;
  readonly waiting?: WaitingIndicators;
  /** Where replies in flight are noted, so a restart can finish the ones a dead process left. */
  readonly journal?: ReplyJournal;
  /** How long a failing final platform call is retried; see `StreamingWriterOptions`. */
  readonly finalWriteRetryWindowMs?: number;
  /** Documents and links: read when given, otherwise only text and images are. */
  readonly reading?: TurnReading;
  /**
   * Tools (web search when `SEARCH_URL` is set, MCP servers from `TOOLS_FILE`): replies may call
   * them before answering, with sources.
   */
  readonly tools?: ToolReplies;
  /** Rolling summaries: older turns are folded into one instead of falling out of the context. */
  readonly folding?: SummaryFolding;
  /** What parley remembers across conversations (MEMORY): a block of the system prompt. */
  readonly memory?: MemoryBook;
  /**
   * The small model that keeps memory for models without tools (which cannot call `remember`): after
   * such a reply it reads the person's message for lasting facts. Unset: no extraction.
   */
  readonly memoryExtractionModel?: string;
}

/** The engine's clock: `now` where a test gives one, the system's otherwise. */
export function clockOf(dependencies: EngineDependencies): () => Date {
  return dependencies.now ?? (() => new Date());
}
