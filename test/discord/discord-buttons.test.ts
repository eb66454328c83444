import { REST, Routes } from 'discord.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { encodeActionId } from '../../commands/action-store.ts';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';

let under: DiscordUnderTest;
beforeEach(async () => {
  under = await startDiscordUnderTest();
});
afterEach(() => under.close());

const general = () => under.generalChannelId;
const ephemeralFlag = 1 << 6;
const customIdsOf = (components: unknown[]): string[] =>
  [...JSON.stringify(components).matchAll(/"custom_id":"([^"]+)"/g)].map((match) => match[1] ?? '');

/**
 * What a bot process that crashed or restarted leaves behind: a reply whose Stop button no running
 * process knows. It is posted with the bot's token, as the earlier process did.
 */
async function postLeftoverReply(): Promise<{ messageId: string; stopId: string; regenerateId: string }> {
  const stopId = encodeActionId({ verb: 'chat.stop', token: 'left-by-a-restart' });
  const regenerateId = encodeActionId({ verb: 'chat.regenerate', token: 'older-reply' });
  const rest = new REST({ api: under.discord.apiUrl }).setToken(under.discord.token);
  const posted = (await rest.post(Routes.channelMessages(general()), {
    body: {
      content: 'Half of an answer that was streaming when the bot restarted',
      components: [
        {
          type: 1,
          components: [
            { type: 2, style: 2, label: 'Regenerate', custom_id: regenerateId },
            { type: 2, style: 4, label: 'Stop', custom_id: stopId },
          ],
        },
      ],
    },
  })) as { id: string };
  return { messageId: posted.id, stopId, regenerateId };
}

describe('buttons on Discord', () => {
  it('a Stop left by a restart answers privately and removes itself, keeping the reply intact', async () => {
    const { messageId, stopId, regenerateId } = await postLeftoverReply();
    const interactionId = under.discord.clickButton({ messageId, customId: stopId });

    const note = await under.discord.waitFor(
      () =>
        under.discord
          .messages(general())
          .find((message) => message.content === 'That reply has already finished.'),
      { description: 'the private "already finished" note' },
    );
    expect(note.flags & ephemeralFlag).toBe(ephemeralFlag);
    const reply = await under.discord.waitFor(
      () => {
        const message = under.discord.message(messageId);
        return message && !customIdsOf(message.components).includes(stopId) ? message : undefined;
      },
      { description: 'the reply without its Stop button' },
    );
    expect(reply.content).toBe('Half of an answer that was streaming when the bot restarted');
    expect(customIdsOf(reply.components)).toEqual([regenerateId]);
    // The press itself is acknowledged without a visible "thinking…".
    expect(under.discord.interactionResponses(interactionId).map((response) => response.type)).toEqual([6]);
  });
});
