import type { App } from '@slack/bolt';
import type { AuditLog } from '../../src/audit/audit-log.ts';
import type { Logger } from '../../src/log.ts';
import type { WorkspaceData } from '../../src/retention/workspace-data.ts';
import type { Scheduler } from '../../src/scheduling/scheduler.ts';
import type { SealedInstallationStore } from './sealed-installation-store.ts';

/**
 * `app_uninstalled` (docs.slack.dev/reference/events/app_uninstalled: "sent … whenever a Slack app is
 * completely uninstalled") and `tokens_revoked` with bot tokens (docs.slack.dev/reference/events/tokens_revoked:
 * "Each key contains an array of user IDs, not the actual token strings") remove the workspace's
 * installation at once, in either order (Slack does not promise one). Bolt skips authorization for
 * both (`eventTypesToSkipAuthorize` in @slack/bolt), so they reach here though the tokens are gone.
 * The workspace's conversations, settings and memory stay for HISTORY_RETENTION_DAYS, for a reinstall
 * (docs/data.md), or, with SLACK_UNINSTALL_DELETES=on (`workspaceData`), are removed at once: of the
 * workspace, or of every workspace of an org installed org-wide that parley has heard from. An event
 * for a team with no installation is acked and logged, nothing more.
 */
export function registerUninstallEvents({
  app,
  installations,
  audit,
  logger,
  workspaceData,
  scheduler,
}: {
  app: App;
  installations: SealedInstallationStore;
  audit: AuditLog;
  logger: Logger;
  /** With SLACK_UNINSTALL_DELETES=on: removes a workspace's data at once. */
  workspaceData?: WorkspaceData;
  /** The scheduler the commands make schedules on: its schedules in the workspace go with the rest. */
  scheduler?: Scheduler | undefined;
}): void {
  const remove = async ({
    teamId,
    enterpriseId,
    isEnterpriseInstall,
    reason,
  }: {
    teamId: string | undefined;
    enterpriseId: string | undefined;
    isEnterpriseInstall: boolean;
    reason: string;
  }) => {
    const query = isEnterpriseInstall
      ? { teamId: undefined, enterpriseId, isEnterpriseInstall: true as const }
      : { teamId: teamId as string, enterpriseId, isEnterpriseInstall: false as const };
    const isKnown = (teamId !== undefined || enterpriseId !== undefined) && (await installations.has(query));
    if (!isKnown) {
      logger.info(
        { teamId, enterpriseId, event: reason },
        'slack: an uninstall came for a workspace with no installation; nothing to remove',
      );
      return;
    }
    // The org's workspaces are read before its installation (and what it noted of them) goes.
    const workspaces =
      isEnterpriseInstall && enterpriseId ? await installations.teamsOfOrg(enterpriseId) : [teamId];
    await installations.deleteInstallation(query);
    const address = installations.addressOf(query);
    const removed: Record<string, number> = {};
    if (workspaceData !== undefined) {
      for (const workspace of workspaces) {
        if (workspace === undefined) continue;
        const report = await workspaceData.forget({ platform: 'slack', workspace, scheduler });
        for (const [name, count] of Object.entries(report)) removed[name] = (removed[name] ?? 0) + count;
      }
    }
    logger.info(
      { teamId, enterpriseId, isEnterpriseInstall, event: reason, removed },
      workspaceData === undefined
        ? `slack: removed the installation of ${address.key} (${reason}); its data is kept for HISTORY_RETENTION_DAYS`
        : `slack: removed the installation of ${address.key} (${reason}) and everything kept of its workspaces (SLACK_UNINSTALL_DELETES=on)`,
    );
    await audit.record({
      platform: 'slack',
      workspace: teamId ?? enterpriseId ?? 'unknown',
      actor: { id: 'slack', name: 'Slack' },
      kind: 'installation',
      what:
        workspaceData === undefined
          ? `removed the installation (${reason})`
          : `removed the installation and the workspace's data (${reason})`,
      result: 'done',
      details: { ...(enterpriseId ? { enterpriseId } : {}), isEnterpriseInstall, ...removed },
    });
  };

  app.event('app_uninstalled', async ({ context }) => {
    await remove({
      teamId: context.teamId,
      enterpriseId: context.enterpriseId,
      isEnterpriseInstall: context.isEnterpriseInstall === true,
      reason: 'app_uninstalled',
    });
  });

  app.event('tokens_revoked', async ({ event, context }) => {
    // A revoked user token (`oauth`) leaves the bot working; parley keeps no user tokens.
    if ((event.tokens.bot ?? []).length === 0) return;
    await remove({
      teamId: context.teamId,
      enterpriseId: context.enterpriseId,
      isEnterpriseInstall: context.isEnterpriseInstall === true,
      reason: 'tokens_revoked',
    });
  });
}
