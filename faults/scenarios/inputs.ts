import type { FakeFile } from '../../test/fakes/discord/index.ts';
import { slashCommand } from '../../test/fakes/slack/index.ts';
import { eventually } from '../discord-observations.ts';
import { askOnDiscord } from '../discord-turns.ts';
import {
  animatedGif,
  corruptJpeg,
  decompressionBombPng,
  htmlPage,
  largeNoisePng,
  truncatedPng,
} from '../sample-inputs.ts';
import type { Scenario } from '../scenario.ts';
import { askOnSlack } from '../slack-turns.ts';
import { describeHistory } from '../store-observations.ts';
import { quote } from '../turn-judgement.ts';
import { newTurnMarker } from '../turn-markers.ts';
import {
  attachmentScenario,
  discordWorld,
  internalLinks,
  modelGotImage,
  png,
  singleTurn,
  slackWorld,
  withReplyText,
} from './inputs-kinds.ts';

/**
 * Bad inputs: images too large, not images, bombs, damaged or animated; links to private addresses;
 * a very long message; malformed options; mentions in what the model writes.
 */
export const inputScenarios: Scenario[] = [
  attachmentScenario({
    id: 'inputs-image-50mb',
    fault: 'a 50 MB PNG attached',
    note: /over the 10 MB limit/,
    noteAs: '… is over the 10 MB limit, so I left it out',
    file: async () => png('huge.png', largeNoisePng(50 * 1024 * 1024)),
    isInShortRun: false,
  }),
  attachmentScenario({
    id: 'inputs-html-as-png',
    fault: 'a web page attached as image/png',
    note: /not a PNG, JPEG, GIF or WebP image/,
    noteAs: '… is not a PNG, JPEG, GIF or WebP image',
    file: async () => png('photo.png', htmlPage),
  }),
  attachmentScenario({
    id: 'inputs-decompression-bomb',
    fault: 'a decompression bomb: 12,000 × 12,000 PNG in 140 KB',
    note: /more than the 50 million/,
    noteAs: '… pixels, more than the 50 million I can read',
    file: async () => png('bomb.png', decompressionBombPng()),
    isInShortRun: true,
  }),
  attachmentScenario({
    id: 'inputs-truncated-png',
    fault: 'a PNG cut off at 60 %',
    note: /damaged or cut short/,
    noteAs: '… is damaged or cut short',
    file: async () => png('cut.png', truncatedPng()),
  }),
  attachmentScenario({
    id: 'inputs-corrupt-jpeg',
    fault: 'a JPEG damaged in its middle',
    note: /damaged or cut short/,
    noteAs: '… is damaged or cut short',
    file: async () => ({ filename: 'broken.jpg', contentType: 'image/jpeg', bytes: await corruptJpeg() }),
  }),
  {
    id: 'inputs-animated-gif',
    area: 'inputs',
    fault: 'an animated GIF attached',
    expected: 'answered; the model sees the image (its first frame)',
    expectedOutcome: 'survived',
    isInShortRun: false,
    async run(context) {
      const world = await discordWorld(context);
      const channelId = world.newChannel();
      const file: FakeFile = { filename: 'dance.gif', contentType: 'image/gif', bytes: await animatedGif() };
      const turn = await askOnDiscord({ world, channelId, text: 'what moves here?', attachments: [file] });
      const gotImage = modelGotImage(world, turn.marker);
      return {
        checks: [
          { name: 'the question is answered and kept', isMet: turn.outcome.fate === 'answered' },
          { name: 'the model got the image', isMet: gotImage },
          { name: 'no warning', isMet: !turn.shown.text.includes('⚠') },
        ],
        observed: `${turn.outcome.fate} · model got an image: ${gotImage ? 'yes' : 'no'} · ${describeHistory(turn.history)}`,
        ...singleTurn(turn),
      };
    },
  },
  {
    id: 'inputs-private-links',
    area: 'inputs',
    fault: 'attachments linking to loopback (4 spellings) and a CDN link redirecting there',
    expected: 'none fetched; a note for each; the question answered',
    expectedOutcome: 'clear error',
    isInShortRun: true,
    async run(context) {
      const world = await discordWorld(context);
      const channelId = world.newChannel();
      const image = png('x.png', Buffer.from(decompressionBombPng().subarray(0, 64)));
      const attachments: FakeFile[] = [
        ...internalLinks(context.internal.port).map((link, index) => ({
          ...image,
          filename: `secret-${index + 1}.png`,
          linkTo: link,
        })),
        { ...image, filename: 'bounce.png', redirectTo: `${context.internal.origin}/redirected` },
      ];
      const turn = await askOnDiscord({ world, channelId, text: 'look at these', attachments });
      const refusals = (turn.shown.text.match(/I did not download/g) ?? []).length;
      return {
        checks: [
          { name: 'the question is answered and kept', isMet: turn.outcome.fate === 'answered' },
          { name: 'each of the 5 is refused with a note', isMet: refusals === 5 },
          { name: 'the model got no image', isMet: !modelGotImage(world, turn.marker) },
        ],
        observed: `${refusals} notes "I did not download …" · ${describeHistory(turn.history)}`,
        ...singleTurn(turn),
      };
    },
  },
  {
    id: 'inputs-private-links-in-text',
    area: 'inputs',
    fault: 'a message whose text links to loopback (3 spellings) and to 169.254.169.254',
    expected: 'no link read (robots.txt included); a note for each read; the question answered',
    expectedOutcome: 'clear error',
    isInShortRun: true,
    async run(context) {
      const world = await discordWorld(context);
      const channelId = world.newChannel();
      const links = [
        ...internalLinks(context.internal.port).slice(0, 2),
        'http://169.254.169.254/latest/meta-data/',
      ];
      const turn = await askOnDiscord({ world, channelId, text: `summarise these: ${links.join(' ')}` });
      const notes = (turn.shown.text.match(/I did not read/g) ?? []).length;
      return {
        checks: [
          { name: 'the question is answered and kept', isMet: turn.outcome.fate === 'answered' },
          { name: 'each of the 3 links is refused with a note', isMet: notes === 3 },
        ],
        observed: `${notes} notes "I did not read …" · ${describeHistory(turn.history)}`,
        ...singleTurn(turn),
      };
    },
  },
  attachmentScenario({
    id: 'inputs-metadata-link',
    fault: 'an attachment linking to 169.254.169.254 (cloud metadata)',
    note: /private network address|not a host I download from/,
    noteAs: 'I did not download …: its link points to a private network address',
    file: async () => ({
      ...png('creds.png', htmlPage),
      linkTo: 'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
    }),
  }),
  {
    id: 'inputs-generated-image-private-link',
    area: 'inputs',
    fault: 'the gateway answers /imagine with an image link to loopback',
    expected: 'not fetched; the person is told the link was refused',
    expectedOutcome: 'clear error',
    isInShortRun: false,
    async run(context) {
      const world = await discordWorld(context);
      const channelId = world.newChannel();
      world.gateway.enqueue({ endpoint: 'images', imageLinks: [`${context.internal.origin}/render.png`] });
      world.discord.sendSlashCommand({ name: 'imagine', channelId, options: { prompt: 'a fox' } });
      const isAnswered = await eventually({
        isDone: () =>
          world.discord
            .messages(channelId)
            .some((message) => message.author.id === world.discord.bot.id && message.content.includes('⚠')),
        timeoutMs: 20_000,
      });
      const answer = world.discord.messages(channelId).find((message) => message.content.includes('⚠'));
      const isTold = /link I do not download from/.test(answer?.content ?? '');
      return {
        checks: [
          { name: 'the person is told the link was refused', isMet: isTold },
          { name: 'no image was posted', isMet: (answer?.attachments.length ?? 0) === 0 },
        ],
        observed: `"${quote({ text: answer?.content ?? '(nothing)', maxLength: 110 })}"`,
        turns: [
          isAnswered && isTold
            ? { fate: 'told', detail: 'refused link' }
            : { fate: 'lost', detail: 'no clear answer' },
        ],
        duplicateReplies: 0,
      };
    },
  },
  {
    id: 'inputs-slack-file-off-slack',
    area: 'inputs',
    fault: 'Slack files whose url_private points off Slack, or redirects off it',
    expected: 'neither fetched with the token (nor at all); notes; the question answered',
    expectedOutcome: 'clear error',
    isInShortRun: true,
    async run(context) {
      const world = await slackWorld(context);
      const channel = world.newChannel();
      const bytes = Buffer.from(htmlPage);
      const files = [
        world.slack.addFile({
          name: 'elsewhere.png',
          bytes,
          mimetype: 'image/png',
          linkTo: `${context.internal.origin}/file.png`,
        }),
        world.slack.addFile({
          name: 'bounce.png',
          bytes,
          mimetype: 'image/png',
          redirect: { to: `${context.internal.origin}/stolen` },
        }),
      ];
      const turn = await askOnSlack({ world, channel, text: 'what are these?', files });
      const notes = (turn.shown.text.match(/I did not download/g) ?? []).length;
      return {
        checks: [
          { name: 'the question is answered and kept', isMet: turn.outcome.fate === 'answered' },
          { name: 'both files are refused with a note', isMet: notes === 2 },
        ],
        observed: `${notes} notes "I did not download …" · ${describeHistory(turn.history)}`,
        ...singleTurn(turn),
      };
    },
  },
  {
    id: 'inputs-40k-message',
    area: 'inputs',
    fault: 'a 40,000-character Slack message',
    expected: 'answered, or told it is too long: never silence',
    expectedOutcome: 'survived',
    isInShortRun: false,
    async run(context) {
      const world = await slackWorld(context);
      const channel = world.newChannel();
      const text = `please read all of this: ${'lorem ipsum dolor sit amet '.repeat(1_480)}`.slice(0, 39_900);
      const turn = await askOnSlack({ world, channel, text, timeoutMs: 30_000 });
      return {
        checks: [{ name: 'answered, or told why not', isMet: turn.outcome.fate !== 'lost' }],
        observed: `${turn.outcome.fate}: "${quote({ text: turn.shown.text, maxLength: 80 })}" · ${describeHistory(turn.history)}`,
        ...singleTurn(turn),
      };
    },
  },
  {
    id: 'inputs-malformed-options',
    area: 'inputs',
    fault: 'Slack /imagine with --count 9, an unknown flag, and no prompt',
    expected: 'a private message naming the problem each time; nothing drawn',
    expectedOutcome: 'clear error',
    isInShortRun: true,
    async run(context) {
      const world = await slackWorld(context);
      const channel = world.newChannel();
      const attempts = ['a cat --count 9', 'a cat --bogus yes', '--count 2'];
      const answers: string[] = [];
      for (const text of attempts) {
        const before = world.slack.responseUrlPosts.length + world.slack.ephemeralMessages.length;
        const delivery = await world.slack.deliverSlashCommand({
          command: slashCommand({ command: '/imagine', text, channel }),
        });
        await eventually({
          isDone: () =>
            world.slack.responseUrlPosts.length + world.slack.ephemeralMessages.length > before ||
            delivery.body.includes('⚠'),
          timeoutMs: 10_000,
        });
        const posted = [
          ...world.slack.responseUrlPosts.map((post) => JSON.stringify(post)),
          ...world.slack.ephemeralMessages.map((message) => message.text),
        ];
        answers.push(delivery.body.includes('⚠') ? delivery.body : (posted.at(-1) ?? ''));
      }
      const imageRequests = world.gatewayRequests.filter((request) =>
        request.path.endsWith('/images/generations'),
      ).length;
      const isEachTold = answers.every((answer) => /⚠|count|bogus|prompt/i.test(answer));
      return {
        checks: [
          { name: 'each attempt gets a message naming the problem', isMet: isEachTold },
          { name: 'nothing is drawn', isMet: imageRequests === 0 },
        ],
        observed: answers
          .map((answer) => `"${quote({ text: answer.replace(/\\n/g, ' '), maxLength: 60 })}"`)
          .join(' · '),
        turns: answers.map((answer) =>
          /\S/.test(answer)
            ? { fate: 'told' as const, detail: answer }
            : { fate: 'lost' as const, detail: 'no answer' },
        ),
        duplicateReplies: 0,
      };
    },
  },
  {
    id: 'inputs-mentions-discord',
    area: 'inputs',
    fault: 'the model writes @everyone, @here, a user and a role mention (Discord)',
    expected: 'shown as written; nobody is pinged',
    expectedOutcome: 'survived',
    isInShortRun: false,
    async run(context) {
      const world = await discordWorld(context);
      const channelId = world.newChannel();
      const roleId = world.discord.createRole({
        name: 'oncall',
        isMentionable: true,
        memberIds: [world.discord.user.id],
      });
      const marker = withReplyText(
        newTurnMarker(),
        (text) => `${text} @everyone @here <@${world.discord.user.id}> <@&${roleId}>`,
      );
      world.gateway.enqueue({ text: marker.replyText });
      const turn = await askOnDiscord({ world, channelId, marker });
      const botMessages = world.discord
        .messages(channelId)
        .filter((message) => message.author.id === world.discord.bot.id);
      const pings = botMessages.reduce(
        (count, message) =>
          count +
          message.mentionIds.length +
          message.mentionRoleIds.length +
          (message.mentionsEveryone ? 1 : 0),
        0,
      );
      return {
        checks: [
          { name: 'the reply is shown and kept', isMet: turn.outcome.fate === 'answered' },
          { name: 'nobody is pinged', isMet: pings === 0 },
        ],
        observed: `${pings} pings · ${turn.outcome.fate}`,
        ...singleTurn(turn),
      };
    },
  },
  {
    id: 'inputs-mentions-slack',
    area: 'inputs',
    fault: 'the model writes <!channel>, <!here>, <!everyone>, <!subteam^…>, <@U…> (Slack)',
    expected: 'shown readably; nobody is notified',
    expectedOutcome: 'survived',
    isInShortRun: true,
    async run(context) {
      const world = await slackWorld(context);
      const channel = world.newChannel();
      const before = world.slack.mentions.length;
      const marker = withReplyText(
        newTurnMarker(),
        (text) => `${text} <!channel> <!here> <!everyone> <!subteam^S0ONCALL1> <@U0PERSON01>`,
      );
      world.gateway.enqueue({ text: marker.replyText });
      const turn = await askOnSlack({ world, channel, marker });
      const notified = world.slack.mentions.length - before;
      return {
        checks: [
          { name: 'the reply is shown and kept', isMet: turn.outcome.fate === 'answered' },
          { name: 'nobody is notified', isMet: notified === 0 },
        ],
        observed: `${notified} notifications · ${turn.outcome.fate}`,
        ...singleTurn(turn),
      };
    },
  },
];
