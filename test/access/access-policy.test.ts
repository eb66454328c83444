import { describe, expect, it } from 'vitest';
import { type AccessRules, decideAccess, type Requester } from '../../src/access/access-policy.ts';

const open: AccessRules = {
  allowUserIds: [],
  blockUserIds: [],
  allowRoleIds: [],
  blockRoleIds: [],
  allowChannelIds: [],
  blockChannelIds: [],
  directMessages: 'on',
  commandRoleIds: {},
};
const person: Requester = { userId: 'U1', roleIds: ['R1'], isAdmin: false, isDirectMessage: false };
const admin: Requester = { ...person, userId: 'A1', roleIds: [], isAdmin: true };
const decide = (
  rules: Partial<AccessRules>,
  requester: Requester = person,
  command = 'chat',
  channelId = 'C1',
) => decideAccess({ rules: { ...open, ...rules }, requester, channelId, command });

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
    const inDm = { ...person, isDirectMessage: true };
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
});
