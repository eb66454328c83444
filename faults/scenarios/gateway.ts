import type { FakeBehaviour } from '../../test/fakes/gateway/index.ts';
import { askOnDiscord } from '../discord-turns.ts';
import type { Scenario } from '../scenario.ts';
import {
  askAgain,
  breakJsonOfEvent,
  brokenStreamScenario,
  gatewayWorld,
  hasNoAssistantTurn,
  observationOf,
  passingFaultScenario,
  refusedScenario,
  stallAfterEvents,
} from './gateway-kinds.ts';

/** Gateway faults: errors on every try, errors that pass, streams that break, silence, blank replies. */
const threeTimes = (behaviour: FakeBehaviour): FakeBehaviour[] => [behaviour, behaviour, behaviour];
const htmlPage =
  '<html><head><title>503 Service Temporarily Unavailable</title></head><body>nginx</body></html>';

export const gatewayScenarios: Scenario[] = [
  refusedScenario({
    id: 'gateway-401',
    fault: 'gateway answers 401 (wrong API key)',
    told: /rejected our API key.*GATEWAY_API_KEY/,
    toldAs: '…rejected our API key… check GATEWAY_API_KEY',
    behaviours: [{ error: { status: 401 } }],
    isInShortRun: true,
  }),
  refusedScenario({
    id: 'gateway-402',
    fault: 'gateway answers 402 (balance used up)',
    told: /balance is used up/,
    toldAs: 'The model service balance is used up…',
    behaviours: [{ error: { status: 402 } }],
  }),
  refusedScenario({
    id: 'gateway-404-model',
    fault: 'gateway answers 404 model_not_found',
    told: /model is not available/,
    toldAs: 'That model is not available…',
    behaviours: [
      {
        error: {
          status: 404,
          body: {
            error: {
              message: 'The model does not exist',
              type: 'invalid_request_error',
              code: 'model_not_found',
            },
          },
        },
      },
    ],
  }),
  refusedScenario({
    id: 'gateway-404-page',
    fault: 'gateway answers 404 with a web page (wrong base URL)',
    told: /address is wrong.*GATEWAY_BASE_URL/,
    toldAs: 'The model service address is wrong… GATEWAY_BASE_URL',
    behaviours: [{ error: { status: 404, body: '<html><body><h1>Not Found</h1></body></html>' } }],
  }),
  passingFaultScenario({
    id: 'gateway-429-once',
    fault: 'gateway answers 429 once (Retry-After: 1)',
    behaviour: { error: { status: 429, headers: { 'retry-after': '1' } } },
    isInShortRun: true,
  }),
  refusedScenario({
    id: 'gateway-429-always',
    fault: 'gateway answers 429 to every try',
    told: /busy/,
    toldAs: 'The model service is busy…',
    behaviours: threeTimes({ error: { status: 429, headers: { 'retry-after': '1' } } }),
  }),
  passingFaultScenario({
    id: 'gateway-502-once',
    fault: 'gateway answers 502 once',
    behaviour: { error: { status: 502 } },
  }),
  refusedScenario({
    id: 'gateway-503-page',
    fault: 'gateway answers 503 with an HTML page to every try',
    told: /had an error/,
    toldAs: 'The model service had an error…',
    behaviours: threeTimes({ error: { status: 503, body: htmlPage } }),
    isInShortRun: false,
  }),
  {
    id: 'gateway-silent',
    area: 'gateway',
    fault: 'gateway accepts the request and never answers',
    expected:
      '"still waiting: the model service has not answered yet" within seconds, then "took too long"; nothing stored',
    expectedOutcome: 'clear error',
    isInShortRun: false,
    async run(context) {
      const world = await gatewayWorld(context);
      const channelId = world.newChannel();
      world.gateway.setDefault({ endpoint: 'chat', latencyMs: 120_000 });
      const startedAtMs = Date.now();
      const turn = await askOnDiscord({ world, channelId, timeoutMs: 40_000 });
      const seconds = Math.round((Date.now() - startedAtMs) / 1000);
      const waitingAtMs = turn.shown.firstTextAtMs;
      const waitingAfter =
        waitingAtMs === undefined ? 'never' : `${Math.round((waitingAtMs - startedAtMs) / 1000)} s`;
      const next = await askAgain(world, channelId);
      return observationOf({
        turn,
        next,
        extra: ` after ${seconds} s ("still waiting" shown after ${waitingAfter})`,
        checks: [
          {
            name: '"still waiting: the model service has not answered yet" is shown meanwhile',
            isMet: turn.shown.revisions.some((text) => text.includes('has not answered yet')),
          },
          { name: 'the person is told it took too long', isMet: /took too long/.test(turn.shown.text) },
          { name: 'it ends within 30 s', isMet: seconds <= 30 },
          { name: 'no assistant turn is stored', isMet: hasNoAssistantTurn(turn) },
        ],
      });
    },
  },
  brokenStreamScenario({
    id: 'gateway-stream-cut',
    fault: 'gateway stream cut (socket destroyed) after 4 chunks',
    inject: (world) => world.gateway.enqueue({ cutAfterChunks: 4, chunkSize: 40 }),
    told: /⚠/,
    isInShortRun: false,
  }),
  brokenStreamScenario({
    id: 'gateway-stream-ends-early',
    fault: 'gateway stream ends cleanly after 4 chunks, no finish chunk',
    inject: (world) => world.gateway.enqueue({ cutAfterChunks: 4, chunkSize: 40, endCleanlyOnCut: true }),
    told: /⚠/,
  }),
  brokenStreamScenario({
    id: 'gateway-stream-hangs',
    fault: 'gateway stream hangs after 4 events (connection stays open)',
    inject: (world) => {
      world.gateway.enqueue({ chunkSize: 40 });
      world.gatewayProxy?.rewriteResponses(stallAfterEvents(4));
    },
    told: /⚠/,
  }),
  brokenStreamScenario({
    id: 'gateway-stream-bad-json',
    fault: 'gateway stream carries an event with invalid JSON',
    inject: (world) => {
      world.gateway.enqueue({ chunkSize: 40 });
      world.gatewayProxy?.rewriteResponses(breakJsonOfEvent(4));
    },
    told: /⚠/,
    isInShortRun: true,
  }),
  {
    id: 'gateway-connection-dropped',
    area: 'gateway',
    fault: 'gateway connection dropped before any answer, every try',
    expected: '"The model service cannot be reached…"; nothing stored; next message answered',
    expectedOutcome: 'clear error',
    isInShortRun: false,
    async run(context) {
      const world = await gatewayWorld(context);
      const channelId = world.newChannel();
      const rule = world.gatewayProxy?.inject({
        matches: (request) => request.path.endsWith('/chat/completions'),
        fault: { kind: 'drop' },
        count: 3,
      });
      const turn = await askOnDiscord({ world, channelId });
      const drops = 3 - (rule?.count ?? 3);
      if (rule !== undefined) rule.count = 0;
      const next = await askAgain(world, channelId);
      return observationOf({
        turn,
        next,
        extra: ` after ${drops} dropped connections`,
        checks: [
          {
            name: 'the person is told the service cannot be reached',
            isMet: /cannot be reached/.test(turn.shown.text),
          },
          { name: 'the request was tried again', isMet: drops === 3 },
          { name: 'no assistant turn is stored', isMet: hasNoAssistantTurn(turn) },
        ],
      });
    },
  },
  {
    id: 'gateway-blank-reply',
    area: 'gateway',
    fault: 'gateway streams a reply of only whitespace',
    expected: '"(no reply)" with Regenerate; no blank turn stored',
    expectedOutcome: 'clear error',
    isInShortRun: false,
    async run(context) {
      const world = await gatewayWorld(context);
      const channelId = world.newChannel();
      world.gateway.enqueue({ text: ' \n\t \n ' });
      const turn = await askOnDiscord({ world, channelId, toldPattern: /\(no reply\)/ });
      const next = await askAgain(world, channelId);
      const blankTurns = (turn.history ?? []).filter(
        (stored) => stored.role === 'assistant' && !/\S/.test(stored.text),
      );
      return observationOf({
        turn,
        next,
        checks: [
          {
            name: 'the person sees "(no reply)", not a blank message',
            isMet: /\(no reply\)/.test(turn.shown.text),
          },
          { name: 'Regenerate is offered', isMet: turn.shown.buttons.includes('Regenerate') },
          { name: 'no blank assistant turn is stored', isMet: blankTurns.length === 0 },
        ],
      });
    },
  },
];
