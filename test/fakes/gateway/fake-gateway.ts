import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createBehaviourQueue, type FakeBehaviour } from './behaviour.ts';
import { createImageFileStore } from './image-files.ts';
import { createModelCatalog, type ModelCapabilities } from './model-catalog.ts';
import { createRequestHandler, type RecordedRequest } from './request-handler.ts';
import type { StreamTimings } from './stream-timings.ts';

/** How to start the fake. Everything is optional. */
export interface FakeGatewayOptions {
  /** The only key accepted as `Authorization: Bearer <apiKey>`. Default `'test-key'`. */
  apiKey?: string;
  /** Port on 127.0.0.1. Default 0: a free port chosen by the system. */
  port?: number;
  /** Capabilities of particular models; an unlisted model supports everything. */
  models?: Record<string, ModelCapabilities>;
  /** When given, only these models (and those in `models`) exist; others get 404 `model_not_found`. */
  knownModels?: readonly string[];
  /** The default behaviour at start and after `reset()`. */
  defaultBehaviour?: FakeBehaviour;
  /** Called with each request as it is recorded, e.g. to log it. */
  onRequest?: (request: RecordedRequest) => void;
  /**
   * Computes the reply text of a chat request (say, one that names the conversation it answers),
   * when the behaviour gives no `text`; `undefined` falls back to the default reply.
   */
  replyTextFor?: (request: RecordedRequest) => string | undefined;
  /** Called when a streamed reply has been written completely, with when its chunks left. */
  onStreamTimings?: (timings: StreamTimings) => void;
}

/** A running fake Model Gateway. */
export interface FakeGateway {
  /** The base URL to give a client, e.g. `http://127.0.0.1:43121/api/v1`. */
  readonly baseUrl: string;
  readonly port: number;
  /** Every request received, oldest first, including refused ones. Cleared in place by `reset()`. */
  readonly requests: RecordedRequest[];
  /** Queues a one-shot behaviour for the next request to its endpoint (either, if none is named). */
  enqueue(behaviour: FakeBehaviour): void;
  /** Replaces the default behaviour for its endpoint (both, if none is named). */
  setDefault(behaviour: FakeBehaviour): void;
  /** Forgets requests, queued behaviours, stored image files and returns to the starting default. */
  reset(): void;
  /** Stops the server and destroys open connections, ending any stream in progress. */
  close(): Promise<void>;
}

/** Starts a fake Model Gateway on 127.0.0.1 that speaks the reference's wire format. */
export async function startFakeGateway(options: FakeGatewayOptions = {}): Promise<FakeGateway> {
  const behaviours = createBehaviourQueue(options.defaultBehaviour);
  const files = createImageFileStore();
  const requests: RecordedRequest[] = [];
  const closing = new AbortController();
  let completionCount = 0;
  const context = {
    apiKey: options.apiKey ?? 'test-key',
    origin: '',
    catalog: createModelCatalog(options),
    behaviours,
    files,
    requests,
    closingSignal: closing.signal,
    onRequest: options.onRequest,
    replyTextFor: options.replyTextFor,
    onStreamTimings: options.onStreamTimings,
    nextCompletionId() {
      completionCount += 1;
      return `chatcmpl-fake-${completionCount}`;
    },
  };

  const server = createServer(createRequestHandler(context));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  context.origin = `http://127.0.0.1:${port}`;

  return {
    baseUrl: `${context.origin}/api/v1`,
    port,
    requests,
    enqueue: behaviours.enqueue,
    setDefault: behaviours.setDefault,
    reset() {
      requests.length = 0;
      behaviours.reset();
      files.clear();
      completionCount = 0;
    },
    async close() {
      closing.abort(new Error('fake gateway closed'));
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
