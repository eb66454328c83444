import type { ChatInputCommandInteraction, Client } from 'discord.js';
import type { FakeDiscord } from '../fakes/discord/index.ts';
import type { FakeMessage } from '../fakes/discord/message-store.ts';

/** The labels of the buttons under a message, in order. */
export function buttonLabelsOf(message: FakeMessage): string[] {
  return componentsOf(message).flatMap((component) =>
    component.type === 2 && typeof component.label === 'string' ? [component.label] : [],
  );
}

type AnyComponent = Record<string, unknown>;

/** Whether a message is a card: laid out with components (IS_COMPONENTS_V2, `1 << 15`) in a container. */
export function isCard(message: Pick<FakeMessage, 'flags' | 'components'>): boolean {
  return (message.flags & (1 << 15)) !== 0 && message.components[0]?.type === 17;
}

/**
 * Every component of a message, nested ones included (a Components V2 container holds sections,
 * whose accessory is a button, and action rows), in the order a person reads them.
 */
export function componentsOf(message: Pick<FakeMessage, 'components'>): AnyComponent[] {
  const walk = (component: AnyComponent): AnyComponent[] => [
    component,
    ...(Array.isArray(component.components) ? (component.components as AnyComponent[]).flatMap(walk) : []),
    ...(component.accessory ? walk(component.accessory as AnyComponent) : []),
  ];
  return (message.components as unknown as AnyComponent[]).flatMap(walk);
}

/** What a message says: its content, its embeds' words and its text displays (IS_COMPONENTS_V2). */
export function textOfMessage(message: Pick<FakeMessage, 'content' | 'embeds' | 'components'>): string {
  return [
    message.content,
    ...message.embeds.flatMap((embed) => [
      embed.title ?? '',
      embed.description ?? '',
      ...(embed.fields ?? []).map((field) => `${field.name}\n${field.value}`),
      embed.footer?.text ?? '',
    ]),
    ...componentsOf(message).flatMap((component) =>
      component.type === 10 && typeof component.content === 'string' ? [component.content] : [],
    ),
  ]
    .filter((part) => part !== '')
    .join('\n');
}

/**
 * Runs a slash command in a new channel of the fake and hands back the interaction as the real
 * discord.js client received it, not yet deferred (the test defers it as parley would).
 */
export async function receiveSlashCommand({
  fake,
  client,
  name,
  options = {},
}: {
  fake: FakeDiscord;
  client: Client<true>;
  name: string;
  options?: Parameters<FakeDiscord['sendSlashCommand']>[0]['options'];
}): Promise<{ channelId: string; interaction: ChatInputCommandInteraction; interactionId: string }> {
  const channelId = fake.createTextChannel({ name: `${name}-${Math.random().toString(36).slice(2, 8)}` });
  await fake.waitFor(() => client.channels.cache.get(channelId));
  const arrived = new Promise<ChatInputCommandInteraction>((resolve) => {
    const onInteraction = (interaction: unknown) => {
      const command = interaction as ChatInputCommandInteraction;
      if (!command.isChatInputCommand?.() || command.channelId !== channelId) return;
      client.off('interactionCreate', onInteraction);
      resolve(command);
    };
    client.on('interactionCreate', onInteraction);
  });
  const interactionId = fake.sendSlashCommand({ name, channelId, options });
  return { channelId, interaction: await arrived, interactionId };
}
