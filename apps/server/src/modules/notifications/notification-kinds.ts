/**
 * Every kind of alert a person may be told of, who may receive it and its defaults (decision
 * 122): the one table the notifier, the settings and the Notifications page read.
 */
import type { NotificationKind } from '@farmcam/contract';
import type { AccessRole } from '@farmcam/contract';
import { abilitiesOf } from '../auth/access.ts';

export interface KindDefinition {
  title: string;
  description: string;
  /**
   * `camera`: the owner and the members who reach the camera it is about; `owner`: the owner
   * only (money and the team are the owner's, decision 091).
   */
  audience: 'camera' | 'owner';
  /** Push and SMS of this kind go out during quiet hours unless the person says otherwise. */
  isUrgentByDefault: boolean;
}

export const notificationKindDefinitions: Record<NotificationKind, KindDefinition> = {
  'camera-silence': {
    title: 'Camera silent, and back again',
    description:
      'A camera has sent no data and no report for the hours set on it, and when it is heard again.',
    audience: 'camera',
    isUrgentByDefault: true,
  },
  'livestream-clips': {
    title: 'No livestream clips',
    description:
      'A livestream delivered no clip for the hours set on its camera, clips arrive again, or an unused livestream is about to be switched off.',
    audience: 'camera',
    isUrgentByDefault: false,
  },
  'data-share': {
    title: 'Data share used',
    description: 'A camera used the share of its monthly data set on it, or all of it.',
    audience: 'camera',
    isUrgentByDefault: false,
  },
  'data-paused': {
    title: 'Data paused at the allowance',
    description: "A camera's data was paused because it used its plan's allowance.",
    audience: 'camera',
    isUrgentByDefault: false,
  },
  spend: {
    title: 'Monthly spend',
    description: "This month's bill reached the amount set on your Account page.",
    audience: 'owner',
    isUrgentByDefault: false,
  },
  payment: {
    title: 'Payment failed, service at risk',
    description:
      "A camera's payment failed, its plan ended unpaid, or its SIM is about to be switched off.",
    audience: 'owner',
    isUrgentByDefault: true,
  },
  team: {
    title: 'Team changes',
    description: 'Someone you invited joined your team.',
    audience: 'owner',
    isUrgentByDefault: false,
  },
};

/** Whether a person with this access receives this kind at all. */
export function mayReceive(role: AccessRole, kind: NotificationKind): boolean {
  if (notificationKindDefinitions[kind].audience === 'camera') return true;
  // Money and the team are the owner's (decision 091).
  const abilities = abilitiesOf(role);
  return abilities.manageBilling && abilities.manageTeam;
}

/**
 * A person's channels for a kind they have not chosen for: the owner gets every e-mail, as
 * before; a member none (a member's camera-alert e-mails were carried over into rows by
 * migration, decision 122). Push and SMS are never on until the person turns them on.
 */
export function defaultChoice(isOwner: boolean, kind: NotificationKind) {
  return {
    email: isOwner,
    push: false,
    sms: false,
    overridesQuietHours: notificationKindDefinitions[kind].isUrgentByDefault,
  };
}
