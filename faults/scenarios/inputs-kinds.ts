import type { FakeFile } from '../../test/fakes/discord/index.ts';
import { askOnDiscord, type DiscordTurn } from '../discord-turns.ts';
import { type DiscordWorld, startDiscordWorld } from '../discord-world.ts';
import type { Scenario, ScenarioContext, ScenarioObservation } from '../scenario.ts';
import { type SlackWorld, startSlackWorld } from '../slack-world.ts';
import { describeHistory } from '../store-observations.ts';
import { quote } from '../turn-judgement.ts';
import { requestsFor, type TurnMarker } from '../turn-markers.ts';

/** Bad inputs, on one bot on the fake Discord and one on the fake Slack. */
export const discordWorld = (context: ScenarioContext): Promise<DiscordWorld> =>
  context.shared('inputs-discord', () => startDiscordWorld());
export const slackWorld = (context: ScenarioContext): Promise<SlackWorld> =>
  context.shared('inputs-slack', () => startSlackWorld());

/** Whether the model got an image with the turn. */
export function modelGotImage(world: DiscordWorld | SlackWorld, marker: TurnMarker): boolean {
  return requestsFor({ requests: world.gatewayRequests, marker }).some((request) =>
    JSON.stringify(request.body).includes('image_url'),
  );
}

export function singleTurn(turn: { outcome: ScenarioObservation['turns'][number]; duplicates: number }) {
  return { turns: [turn.outcome], duplicateReplies: turn.duplicates };
}

/** A person attaches something wrong: it is left out with a note, and the question is still answered. */
export function attachmentScenario({
  id,
  fault,
  note,
  noteAs,
  file,
  isInShortRun = false,
}: {
  id: string;
  fault: string;
  note: RegExp;
  noteAs: string;
  file: () => Promise<FakeFile>;
  isInShortRun?: boolean;
}): Scenario {
  return {
    id,
    area: 'inputs',
    fault,
    expected: `answered without it, with "${noteAs}"`,
    expectedOutcome: 'clear error',
    isInShortRun,
    async run(context) {
      const world = await discordWorld(context);
      const channelId = world.newChannel();
      const turn = await askOnDiscord({
        world,
        channelId,
        text: 'what is in this picture?',
        attachments: [await file()],
      });
      const gotImage = modelGotImage(world, turn.marker);
      return {
        checks: [
          { name: 'the question is answered and kept', isMet: turn.outcome.fate === 'answered' },
          { name: `a note says "${noteAs}"`, isMet: note.test(turn.shown.text) },
          { name: 'the model got no image', isMet: !gotImage },
        ],
        observed: `note "${quote({ text: noteOf(turn), maxLength: 90 })}" · model got an image: ${gotImage ? 'yes' : 'no'} · ${describeHistory(turn.history)}`,
        ...singleTurn(turn),
      };
    },
  };
}

/** The notes under a reply: everything after the model's text. */
export function noteOf(turn: DiscordTurn): string {
  const text = turn.shown.text;
  const end = text.indexOf(turn.marker.replyText);
  return end === -1 ? text : text.slice(end + turn.marker.replyText.length).trim();
}

export const png = (name: string, bytes: Buffer): FakeFile => ({
  filename: name,
  contentType: 'image/png',
  bytes,
});

/** Links to the internal server a message can carry, each spelt differently. */
export function internalLinks(port: number): string[] {
  return [
    `http://127.0.0.1:${port}/latest/meta-data/iam`,
    `http://localhost:${port}/admin`,
    `http://[::ffff:127.0.0.1]:${port}/mapped`,
    `http://2130706433:${port}/decimal`,
  ];
}

/** The same marker with another reply text (the fake gateway is told to stream exactly that). */
export function withReplyText(marker: TurnMarker, replyTextOf: (text: string) => string): TurnMarker {
  return { ...marker, replyText: replyTextOf(marker.replyText) };
}
