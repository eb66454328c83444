import type { Actor } from '../src/access/actor.ts';
import type { App } from '../src/app.ts';
import { createConsoleLinkDesk } from '../src/console/console-link-desk.ts';
import { createOneTimeLinks } from '../src/console/one-time-links.ts';
import { createActiveReplies } from '../src/conversation/active-replies.ts';
import { createReplyFeedbackStore } from '../src/conversation/reply-feedback.ts';
import { feedbackKeptData } from '../src/retention/feedback-retention.ts';
import { actionKeptData } from './action-retention.ts';
import { createActionStore } from './action-store.ts';
import { findCommand } from './all-commands.ts';
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
  return {
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
    toolApprovalTimeoutMs: config.tools.approvalTimeoutMs,
    journal: app.journal,
    consoleLinks: createConsoleLinkDesk({ links: createOneTimeLinks({ store: consoleLinkKeyv }) }),
    ...(app.scheduler === undefined
      ? {}
      : {
          scheduling: {
            scheduler: app.scheduler,
            places: createScheduledPlacesRegistry(),
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
}
