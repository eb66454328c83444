import { placeOfConversation } from '../../src/conversation/turn.ts';
import { defineCommand } from '../define-command.ts';

/**
 * /console: a one-time link to the owner's console, privately, for the person who asked and the
 * server (or workspace, or terminal) they asked in. The link proves who they are, once and for ten
 * minutes; what they may do there is asked of the platform at every page, so a member gets only
 * their own page and an admin who is demoted loses the rest at once.
 */
export const consoleCommand = defineCommand({
  name: 'console',
  description:
    'A private one-time link to the web console: settings, audit and spend (admins), your own page',
  options: {},
  runsInConversationOrder: false,
  isAnswerPrivate: () => true,
  async run({ conversationKey, user, responder, services }) {
    if (user.context !== 'server' && user.context !== 'terminal') {
      await responder.send({
        text: 'Use /console in a channel of the server you want to see; the link is for that server.',
        isPrivate: true,
      });
      return;
    }
    const place = placeOfConversation(conversationKey);
    const link = await services.consoleLinks?.linkFor({
      platform: place.platform,
      userId: user.id,
      name: user.name,
      signedInWith: 'link',
      places: [{ platform: place.platform, workspace: place.workspace }],
    });
    await responder.send({
      text:
        link === undefined
          ? 'The web console is not running here (its owner turns it on with CONSOLE_PORT).'
          : `Your sign-in link, for you alone (it works once, for ten minutes): ${link}`,
      isPrivate: true,
    });
  },
});
