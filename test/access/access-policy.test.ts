import { describe, expect, it } from 'vitest';
import { type AccessRules, decideAccess } from '../../src/access/access-policy.ts';
import type { Actor } from '../../src/access/actor.ts';

const open: AccessRules = {
  allowUserIds: [],
  blockUserIds: [],
  allowRoleIds: [],
  blockRoleIds: [],
  allowChannelIds: [],
  blockChannelIds: [],
  directMessages: 'on',
  groupDirectMessages: 'off',
  userInstalls: 'off',
  commandRoleIds: {},
  sharedWriterRoleIds: [],
};
const person: Actor = { id: 'U1', name: 'Ada', roleIds: ['R1'], isAdmin: false, context: 'server' };
const admin: Actor = { ...person, id: 'A1', roleIds: [], isAdmin: true };
const decide = (rules: Partial<AccessRules>, actor: Actor = person, command = 'chat', channelId = 'C1') =>
  decideAccess({
    rules: { ...open, ...rules },
    actor,
    channelId,
    capability: { kind: 'command', name: command },
  });

describe('the access policy', () => {
  it('lets everyone in when nothing is configured', () => {
    expect(decide({})).toEqual({ isAllowed: true });
  });

  it('blocks a person or a role, and a block wins over an allow', () => {
    expect(decide({ blockUserIds: ['U1'], allowUserIds: ['U1'] })).toEqual({
      isAllowed: false,
      refusal: 'blocked-user',
    });
    expect(decide({ blockRoleIds: ['R1'] })).toEqual({ isAllowed: false, refusal: 'blocked-user' });
  });

  it('with allow lists, lets in only those people and roles, and admins', () => {
    expect(decide({ allowUserIds: ['U2'] })).toEqual({ isAllowed: false, refusal: 'not-allowed-user' });
    expect(decide({ allowUserIds: ['U2'], allowRoleIds: ['R1'] })).toEqual({ isAllowed: true });
    expect(decide({ allowUserIds: ['U2'] }, admin)).toEqual({ isAllowed: true });
  });

  it('keeps to the allowed channels, and out of blocked ones, admins too', () => {
    expect(decide({ allowChannelIds: ['C2'] })).toEqual({ isAllowed: false, refusal: 'not-allowed-channel' });
    expect(decide({ blockChannelIds: ['C1'] }, admin)).toEqual({
      isAllowed: false,
      refusal: 'blocked-channel',
    });
    expect(decide({ allowChannelIds: ['C2'] }, person, 'chat', 'C2')).toEqual({ isAllowed: true });
  });

  it('governs direct messages by ACCESS_DMS, not by the channel lists', () => {
    const inDm: Actor = { ...person, context: 'direct-message' };
    expect(decide({ allowChannelIds: ['C2'] }, inDm, 'chat', 'D1')).toEqual({ isAllowed: true });
    expect(decide({ directMessages: 'off' }, inDm)).toEqual({
      isAllowed: false,
      refusal: 'direct-messages-off',
    });
    expect(decide({ directMessages: 'allowlisted' }, inDm)).toEqual({
      isAllowed: false,
      refusal: 'direct-messages-allowlisted',
    });
    expect(decide({ directMessages: 'allowlisted', allowUserIds: ['U1'] }, inDm)).toEqual({
      isAllowed: true,
    });
  });

  it('keeps a command to its roles, except for admins', () => {
    expect(decide({ commandRoleIds: { imagine: ['R9'] } }, person, 'imagine')).toEqual({
      isAllowed: false,
      refusal: 'command-role',
    });
    expect(decide({ commandRoleIds: { imagine: ['R1'] } }, person, 'imagine')).toEqual({ isAllowed: true });
    expect(decide({ commandRoleIds: { imagine: ['R9'] } }, person, 'chat')).toEqual({ isAllowed: true });
    expect(decide({ commandRoleIds: { imagine: ['R9'] } }, admin, 'imagine')).toEqual({ isAllowed: true });
  });

  it('lets an admin reach /config wherever the other rules would stop them', () => {
    expect(decide({ blockChannelIds: ['C1'], blockUserIds: ['A1'] }, admin, 'config')).toEqual({
      isAllowed: true,
    });
    expect(decide({ blockUserIds: ['U1'] }, person, 'config')).toEqual({
      isAllowed: false,
      refusal: 'blocked-user',
    });
  });

  it('serves group DMs and user installs only when the owner says so, and the allow list holds there too', () => {
    const inGroup: Actor = { ...person, context: 'group-direct-message' };
    const elsewhere: Actor = { ...person, context: 'user-install' };
    expect(decide({}, inGroup)).toEqual({ isAllowed: false, refusal: 'group-direct-messages-off' });
    expect(decide({}, elsewhere)).toEqual({ isAllowed: false, refusal: 'user-installs-off' });
    expect(decide({ groupDirectMessages: 'on' }, inGroup)).toEqual({ isAllowed: true });
    expect(decide({ userInstalls: 'on' }, elsewhere)).toEqual({ isAllowed: true });
    expect(decide({ userInstalls: 'on', allowUserIds: ['U2'] }, elsewhere)).toEqual({
      isAllowed: false,
      refusal: 'not-allowed-user',
    });
    expect(decide({ userInstalls: 'allowlisted', allowUserIds: ['U1'] }, elsewhere)).toEqual({
      isAllowed: true,
    });
  });

  it('lets only the asker and admins stop a reply, and never a blocked person', () => {
    const stop = (actor: Actor, rules: Partial<AccessRules> = {}) =>
      decideAccess({
        rules: { ...open, ...rules },
        actor,
        channelId: 'C1',
        capability: { kind: 'stop-reply', askerId: 'U1' },
      });
    expect(stop(person)).toEqual({ isAllowed: true });
    expect(stop(admin)).toEqual({ isAllowed: true });
    expect(stop({ ...person, id: 'U2' })).toEqual({ isAllowed: false, refusal: 'not-the-asker' });
    expect(stop(person, { blockUserIds: ['U1'] })).toEqual({ isAllowed: false, refusal: 'blocked-user' });
  });

  it('lets only admins administer, and a DM makes nobody an admin', () => {
    const administer = (actor: Actor) =>
      decideAccess({ rules: open, actor, channelId: 'C1', capability: { kind: 'administer' } });
    expect(administer(admin)).toEqual({ isAllowed: true });
    expect(administer(person)).toEqual({ isAllowed: false, refusal: 'not-admin' });
    expect(administer({ ...person, context: 'direct-message' })).toEqual({
      isAllowed: false,
      refusal: 'not-admin',
    });
  });

  it('lets admins and ACCESS_SHARED_ROLE_IDS change what the place shares, and nobody blocked', () => {
    const writeShared = (actor: Actor, rules: Partial<AccessRules> = {}) =>
      decideAccess({
        rules: { ...open, ...rules },
        actor,
        channelId: 'C1',
        capability: { kind: 'write-shared', thing: 'place-memory' },
      });
    expect(writeShared(admin)).toEqual({ isAllowed: true });
    expect(writeShared(person)).toEqual({ isAllowed: false, refusal: 'not-a-shared-writer' });
    expect(writeShared(person, { sharedWriterRoleIds: ['R1'] })).toEqual({ isAllowed: true });
    expect(writeShared(person, { sharedWriterRoleIds: ['R1'], blockRoleIds: ['R1'] })).toEqual({
      isAllowed: false,
      refusal: 'blocked-user',
    });
    expect(writeShared(admin, { blockChannelIds: ['C1'] })).toEqual({
      isAllowed: false,
      refusal: 'blocked-channel',
    });
  });
});
