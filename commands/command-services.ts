import type { Actor } from '../src/access/actor.ts';
import type { App } from '../src/app.ts';
import { createConsoleLinkDesk } from '../src/console/console-link-desk.ts';
import { createOneTimeLinks } from '../src/console/one-time-links.ts';
import { createActiveReplies } from '../src/conversation/active-replies.ts';
import { createReplyFeedbackStore } from '../src/conversation/reply-feedback.ts';
import { placeOfConversation } from '../src/conversation/turn.ts';
import { feedbackKeptData } from '../src/retention/feedback-retention.ts';
import { actionKeptData } from './action-retention.ts';
import { createActionStore } from './action-store.ts';
import { findCommand } from './all-commands.ts';
import { replyWithActions } from './chat-reply.ts';
import type { CommandServices } from './define-command.ts';
import { createScheduledPlacesRegistry } from './scheduled-places.ts';

/** Builds what commands need from the core app; called once by the process entry (and tests). */
export function createCommandServices({ app }: { app: App }): CommandServices & { close(): Promise<void> } {
  const { config } = app;
  const actionKeyv = app.store.namespace('actions');
  const feedbackKeyv = app.store.namespace('feedback');
  const consoleLinkKeyv = app.store.namespace('console-links');
  const editors = config.settingsEditors;
  const actionStore = createActionStore({ store: actionKeyv, maxImageBytes: config.images.storeMaxBytes });
  // Built here, outside the core, so registered here: the sweep, /forget and /export reach them.
  const unregister = [
    app.keptData.register(actionKeptData({ actionKeyv, actionStore })),
    app.keptData.register(feedbackKeptData({ feedbackKeyv })),
  ];
  const scheduledPlaces = createScheduledPlacesRegistry();
  // A connector's OAuth callback arrives later, from a browser: the person is judged as the
  // platform and the gate see them then, as a scheduled run's owner is.
  app.connectors?.useStandingCheck(async ({ userId, conversationKey, needsAdmin }) => {
    const platform = scheduledPlaces.of(placeOfConversation(conversationKey).platform);
    if (!platform)
      return { isAllowed: false, text: 'parley cannot check who you are right now; try again later.' };
    const now = await platform.actorNow({ userId, conversationKey, postsThere: false, atMs: Date.now() });
    if (!now.isPresent)
      return { isAllowed: false, text: 'You can no longer use parley where you asked for this link.' };
    if (needsAdmin && !now.actor.isAdmin) {
      return {
        isAllowed: false,
        text: 'Only an admin can connect this for everyone, and you no longer are one there.',
      };
    }
    const verdict = await app.access.authorize({
      actor: now.actor,
      conversationKey,
      capability: { kind: 'command', name: 'connections' },
    });
    return verdict.isAllowed ? { isAllowed: true } : { isAllowed: false, text: verdict.text };
  });
  const services: CommandServices & { close(): Promise<void> } = {
    engine: app.engine,
    gateway: app.gateway,
    history: app.history,
    settings: app.settings,
    feedback: createReplyFeedbackStore({ store: feedbackKeyv }),
    usage: app.usage,
    spending: app.spending,
    access: app.access,
    audit: app.audit,
    findCommand,
    overrides: app.overrides,
    places: app.places,
    actionStore,
    personData: app.personData,
    workspaceData: app.workspaceData,
    activeReplies: createActiveReplies(),
    toolApprovals: app.toolApprovals,
    memory: app.memory,
    toolbox: app.toolbox,
    ...(app.connectors ? { connectors: app.connectors } : {}),
    toolApprovalTimeoutMs: config.tools.approvalTimeoutMs,
    journal: app.journal,
    platformPlaces: scheduledPlaces,
    consoleLinks: createConsoleLinkDesk({ links: createOneTimeLinks({ store: consoleLinkKeyv }) }),
    ...(app.scheduler === undefined
      ? {}
      : {
          scheduling: {
            scheduler: app.scheduler,
            places: scheduledPlaces,
            timeZone: config.scheduling.timeZone,
            personalTimeZones: app.personalTimeZones,
          },
        }),
    models: {
      chat: config.models.chat,
      vision: config.models.vision,
      image: config.models.image,
      structured: config.models.structured,
      title: config.models.title,
      selectable: config.models.selectable,
    },
    systemPrompt: config.systemPrompt,
    maxImageBytes: config.images.maxInputBytes,
    imageTimeoutMs: config.gateway.imageTimeoutMs,
    budgetTimeZone: config.spending.timeZone,
    maxDocumentBytes: config.documents.maxBytes,
    documents: app.documents,
    isSearchConfigured: config.search !== undefined,
    mayChangeSettings: (user: Actor) =>
      editors.policy === 'everyone' ||
      user.isAdmin ||
      editors.userIds.includes(user.id) ||
      user.roleIds.some((roleId) => editors.roleIds.includes(roleId)),
    logger: app.logger,
    now: () => new Date(),
    close: async () => {
      for (const undo of unregister) undo();
      await Promise.all([actionKeyv.disconnect(), feedbackKeyv.disconnect(), consoleLinkKeyv.disconnect()]);
    },
  };
  // Once a person connected a connector from a reply's Connect link, that reply goes on: a turn of
  // theirs in the same conversation, judged by the platform and the gate as they are now.
  app.connectors?.useResumeAfterConnect(async ({ userId, conversationKey, server }) => {
    const platform = scheduledPlaces.of(placeOfConversation(conversationKey).platform);
    const now = await platform?.actorNow({ userId, conversationKey, postsThere: true, atMs: Date.now() });
    const responder = now?.isPresent ? await platform?.responderIn(conversationKey) : undefined;
    if (!platform || !now?.isPresent || !responder) return;
    const release = (await platform.takeTurn?.(conversationKey)) ?? (() => {});
    try {
      await replyWithActions({
        services,
        surface: responder.surface,
        isAnswerOwed: true,
        turn: {
          conversationKey,
          author: { id: now.actor.id, name: now.actor.name },
          actor: now.actor,
          text: `(I connected ${server}. Go on with what I asked, using it.)`,
          images: [],
        },
      });
    } finally {
      release();
    }
  });
  return services;
}
