/**
 * What each audit action means on the Activity screen (docs/decisions/092): its category and the
 * sentence the owner reads. The one place: every action code the server writes is listed here
 * (activity-summaries.test.ts checks the code base against it), and a code it does not know
 * still gets a plain sentence rather than an error, so an old or future entry never breaks the
 * screen.
 *
 * Sentences are written from the entry alone (its details as they were then), never from what
 * the account looks like now: a renamed camera's entry keeps the names it had.
 */
import type { ActivityCategory } from '@farmcam/contract';
import { formatDay, formatMoney } from '@farmcam/contract/rules';

type Details = Record<string, unknown>;

interface ActionMeaning {
  category: ActivityCategory;
  summary(details: Details): string;
  /**
   * Kept in the audit log but not shown on the customer's Activity screen (staff's own records,
   * or a look at prices that changed nothing).
   */
  isHidden?: boolean;
}

const text = (value: unknown): string | null =>
  typeof value === 'string' && value.trim() !== '' ? value : null;
const count = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null;
const quoted = (value: unknown): string | null => {
  const name = text(value);
  return name === null ? null : `"${name}"`;
};
const day = (value: unknown): string | null => {
  const value_ = text(value);
  if (value_ === null || Number.isNaN(Date.parse(value_))) return null;
  return formatDay(value_);
};
const money = (amount: unknown, currency: unknown): string | null => {
  const minor = count(amount);
  const code = text(currency);
  if (minor === null || code === null || !/^[a-z]{3}$/i.test(code)) return null;
  return formatMoney(minor, code);
};
/** "4 min 10 s", "45 s", "1 h 5 min": how long someone watched live. */
const watchTime = (seconds: number): string => {
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = seconds % 60;
  if (hours > 0) return `${hours} h ${minutes} min`;
  if (minutes > 0) return rest > 0 ? `${minutes} min ${rest} s` : `${minutes} min`;
  return `${rest} s`;
};
/** Data as the dashboard says it: MB below a gigabyte (1,000,000 bytes), one decimal. */
const megabytes = (bytes: number): string =>
  bytes >= 1e9 ? `${(bytes / 1e9).toFixed(2)} GB` : `${(bytes / 1e6).toFixed(1)} MB`;
const roleName = (value: unknown): string | null =>
  value === 'manager' ? 'Manager' : value === 'viewer' ? 'Viewer' : null;
/** A member's reach as modules/team records it: "for 2 cameras until 30 June 2026". */
const reach = (details: Details): string | null => {
  const cameras = Array.isArray(details.iccids) ? details.iccids.length : null;
  const last = day(details.lastDay);
  return (
    sentence(
      details.allCameras === false && cameras !== null
        ? `for ${cameras} camera${cameras === 1 ? '' : 's'}`
        : null,
      last ? `until ${last}` : null,
    ) || null
  );
};
const card = (details: Details): string => {
  const brand = text(details.brand);
  const last4 = text(details.last4);
  const name = brand ? `${brand.charAt(0).toUpperCase()}${brand.slice(1)} card` : 'A card';
  return last4 ? `${name} ending ${last4}` : name;
};
const sentence = (...parts: (string | null | false | undefined)[]) =>
  parts.filter((part): part is string => typeof part === 'string' && part !== '').join(' ');

/** Every action code the server writes, with its meaning. */
export const activityActions = {
  // Sign-ins (auth.login is the code before issue 16; auth.sign-in the owner's and members').
  'auth.login': { category: 'sign-in', summary: () => 'Signed in' },
  'auth.sign-in': { category: 'sign-in', summary: () => 'Signed in' },
  'auth.logout': { category: 'sign-in', summary: () => 'Signed out' },

  // Cameras.
  'camera.rename': {
    category: 'cameras',
    summary: (details) => {
      const to = quoted(details.to);
      const from = quoted(details.from);
      if (!to) return 'Renamed a camera';
      return from ? `Renamed ${from} to ${to}` : `Named the camera ${to}`;
    },
  },

  // Silence alerts (decision 094): the system's watch on each camera, and its settings.
  'camera.silent': {
    category: 'cameras',
    summary: (details) => {
      const name = quoted(details.name);
      const hours = count(details.hours);
      return sentence(
        name ? `${name} went silent` : 'A camera went silent',
        hours !== null ? `(no data for ${hours} hour${hours === 1 ? '' : 's'})` : null,
      );
    },
  },
  'camera.heard-again': {
    category: 'cameras',
    summary: (details) => {
      const name = quoted(details.name);
      const outage = text(details.outage);
      return sentence(
        name ? `${name} came back` : 'A camera came back',
        outage ? `after ${outage}` : null,
      );
    },
  },
  'camera.alert-settings': {
    category: 'cameras',
    summary: (details) => {
      const name = quoted(details.name);
      return name ? `Changed the alerts of ${name}` : "Changed a camera's alerts";
    },
  },
  // Budget protection (decision 095): data paused at the plan's allowance, and back on.
  'camera.data-paused': {
    category: 'cameras',
    summary: (details) => {
      const name = quoted(details.name);
      return `Paused the data of ${name ?? 'a camera'}: it used its plan's allowance this month`;
    },
  },
  'camera.data-resumed': {
    category: 'cameras',
    summary: (details) => {
      const name = quoted(details.name);
      return `Resumed the data of ${name ?? 'a camera'} until the end of the month`;
    },
  },
  'camera.data-restored': {
    category: 'cameras',
    summary: (details) => {
      const name = quoted(details.name);
      return `Data of ${name ?? 'a camera'} back on: ${text(details.reason) ?? 'a new month began'}`;
    },
  },
  'account.spend-alert': {
    category: 'billing',
    summary: (details) =>
      typeof details.after === 'number'
        ? `Set the monthly spend alert to ${formatMoney(details.after, text(details.currency) ?? 'GBP')}`
        : 'Removed the monthly spend alert',
  },
  'member.camera-alerts': {
    category: 'team',
    summary: (details) =>
      details.cameraAlerts === true
        ? 'Turned camera alert e-mails on for themselves'
        : 'Turned camera alert e-mails off for themselves',
  },

  // Plans: changes, pauses, renewals.
  'billing.plan_changed': {
    category: 'plans',
    summary: (details) => {
      const to = text(details.toPlan);
      const from = text(details.fromPlan);
      const charged = count(details.charged);
      const amount = charged && charged > 0 ? money(charged, details.currency) : null;
      return sentence(
        to
          ? from
            ? `Changed the plan from ${from} to ${to}`
            : `Changed the plan to ${to}`
          : 'Changed the plan',
        amount ? `(${amount} charged for the rest of the month)` : null,
      );
    },
  },
  'billing.pause_scheduled': {
    category: 'plans',
    summary: (details) => {
      const from = day(details.startsOn);
      const until = day(details.resumesOn);
      if (from && until) return `Paused the plan from ${from}, restarting on ${until}`;
      return 'Paused the plan';
    },
  },
  'billing.pause_shortened': {
    category: 'plans',
    summary: (details) => {
      const until = day(details.resumesOn);
      return until
        ? `Moved the paused plan's restart to ${until}`
        : "Moved the paused plan's restart";
    },
  },
  'billing.pause_canceled': {
    category: 'plans',
    summary: (details) => {
      const from = day(details.startsOn);
      return from ? `Cancelled the pause planned from ${from}` : 'Cancelled a planned pause';
    },
  },
  'billing.renewal_started': {
    category: 'plans',
    summary: (details) => {
      const plan = text(details.plan);
      return plan
        ? `Started renewing the camera on ${plan} (checkout opened)`
        : 'Started renewing the camera (checkout opened)';
    },
  },

  // Billing: cards and payments (the billing provider records them as the system).
  'billing.portal_opened': {
    category: 'billing',
    summary: () => 'Opened the billing page (cards and invoices)',
  },
  'billing.pay_all': {
    category: 'billing',
    summary: (details) => {
      const amount = money(details.amount, details.currency);
      const failed = count(details.failed) ?? 0;
      return `${amount ? `Paid ${amount} with Pay all` : 'Used Pay all'}${failed > 0 ? ` (${failed} ${failed === 1 ? 'bill' : 'bills'} not paid)` : ''}`;
    },
  },
  'billing.details_changed': {
    category: 'billing',
    summary: () => 'Changed the billing address and VAT number for future invoices',
  },
  'billing.card_added': {
    category: 'billing',
    summary: (details) => `${card(details)} was added`,
  },
  'billing.card_removed': {
    category: 'billing',
    summary: (details) => `${card(details)} was removed`,
  },
  'billing.card_default': {
    category: 'billing',
    summary: (details) => `${card(details)} is now the card payments are taken from`,
  },
  'billing.payment_succeeded': {
    category: 'billing',
    summary: (details) => {
      const amount = money(details.amount, details.currency);
      const invoice = text(details.invoiceNumber);
      return sentence(
        amount ? `Payment of ${amount} received` : 'Payment received',
        invoice ? `for invoice ${invoice}` : null,
      );
    },
  },
  'billing.payment_failed': {
    category: 'billing',
    summary: (details) => {
      const amount = money(details.amount, details.currency);
      const invoice = text(details.invoiceNumber);
      const reason = text(details.reason);
      return `${sentence(
        amount ? `Payment of ${amount} failed` : 'A payment failed',
        invoice ? `for invoice ${invoice}` : null,
      )}${reason ? `: ${reason}` : ''}`;
    },
  },

  // Livestream.
  'livestream.setup-camera': {
    category: 'livestream',
    summary: (details) =>
      details.isNew === false
        ? "Refreshed the camera's livestream connection"
        : 'Set up the camera for livestreaming',
  },
  'livestream.configure': {
    category: 'livestream',
    summary: (details) => {
      const schedule = text(details.schedule);
      return sentence(
        'Saved the livestream settings',
        schedule ? `(${schedule})` : null,
        details.isActive === false ? 'with recording off' : null,
      );
    },
  },
  'live-view.watched': {
    category: 'cameras',
    summary: (details) =>
      sentence(
        `Watched ${quoted(details.camera) ?? 'a camera'} live`,
        count(details.seconds) === null ? null : `for ${watchTime(count(details.seconds)!)}`,
        count(details.bytes) === null ? null : `(${megabytes(count(details.bytes)!)} of data)`,
      ),
  },
  'live-view.turned-on': {
    category: 'cameras',
    summary: (details) => `Turned live view on for ${quoted(details.camera) ?? 'a camera'}`,
  },
  'live-view.turned-off': {
    category: 'cameras',
    summary: (details) => `Turned live view off for ${quoted(details.camera) ?? 'a camera'}`,
  },
  'livestream.switch-on': { category: 'livestream', summary: () => 'Switched the livestream on' },
  'livestream.switch-off': {
    category: 'livestream',
    summary: () => 'Switched the livestream off',
  },
  'livestream.switched-off-unused': {
    category: 'livestream',
    summary: (details) =>
      `Recording stopped: the livestream code had not been seen on a website for ${count(details.days) ?? 10} days`,
  },
  'livestream.share-code': {
    category: 'livestream',
    summary: (details) => {
      const recipient = text(details.recipient);
      return recipient
        ? `Sent the livestream code to ${recipient}`
        : 'Sent the livestream code by e-mail';
    },
  },
  'livestream.link-create': {
    category: 'livestream',
    summary: (details) => {
      const label = text(details.label);
      const what = details.kind === 'embed' ? 'an embed code' : 'a public link';
      return label
        ? `Made ${what} for the livestream: ${label}`
        : `Made ${what} for the livestream`;
    },
  },
  'livestream.link-revoke': {
    category: 'livestream',
    summary: (details) => {
      const label = text(details.label);
      const what = details.kind === 'embed' ? 'an embed code' : 'a public link';
      return label
        ? `Switched off ${what} of the livestream: ${label}`
        : `Switched off ${what} of the livestream`;
    },
  },
  'livestream.link-reissue': {
    category: 'livestream',
    summary: (details) => {
      const label = text(details.label);
      const what = details.kind === 'embed' ? 'an embed code' : 'a public link';
      return label
        ? `Re-issued ${what} of the livestream with a new address: ${label}`
        : `Re-issued ${what} of the livestream with a new address`;
    },
  },

  // Team (members, written by modules/team).
  'member.invited': {
    category: 'team',
    summary: (details) => {
      const email = text(details.email);
      const role = roleName(details.role);
      return sentence(
        email ? `Invited ${email}` : 'Invited someone',
        role ? `as ${role}` : null,
        reach(details),
      );
    },
  },
  'member.updated': {
    category: 'team',
    summary: (details) => {
      const email = text(details.email);
      const role = roleName(details.role);
      return sentence(
        email ? `Changed the access of ${email}` : "Changed a member's access",
        role ? `to ${role}` : null,
        reach(details),
      );
    },
  },
  'member.removed': {
    category: 'team',
    summary: (details) => {
      const email = text(details.email);
      return email ? `Removed ${email} from the team` : 'Removed a member from the team';
    },
  },
  'member.accepted': {
    category: 'team',
    summary: (details) => {
      const email = text(details.email);
      return email
        ? `${email} accepted the invitation and joined the team`
        : 'An invitation was accepted';
    },
  },
  'member.invitation-resent': {
    category: 'team',
    summary: (details) => {
      const email = text(details.email);
      return email ? `Sent the invitation to ${email} again` : 'Sent an invitation again';
    },
  },

  // Activation of new SIMs.
  'activation.pricing_table_shown': {
    category: 'cameras',
    summary: () => 'Looked at the plans for a new SIM',
    isHidden: true,
  },
  'activation.checkout_started': {
    category: 'cameras',
    summary: () => 'Started the checkout to activate a new camera',
  },
  'activation.sim_attached': {
    category: 'cameras',
    summary: () => 'A new camera was added to the account after its payment',
  },
  'activation.sim_activated': {
    category: 'cameras',
    summary: () => "The new camera's SIM was switched on",
  },
  'activation.refused': {
    category: 'cameras',
    summary: () => 'An activation was refunded: the SIM had just been activated by someone else',
  },

  // Staff.
  'staff.impersonation.start': {
    category: 'staff',
    summary: () => 'Farmcam staff opened your portal to help',
  },
  'staff.impersonation.end': {
    category: 'staff',
    summary: () => 'Farmcam staff closed your portal',
  },
  'auth.staff-login': {
    category: 'staff',
    summary: () => 'Staff signed in to the staff area',
    isHidden: true,
  },
  'staff.account.add': {
    category: 'staff',
    summary: () => 'A staff account was added',
    isHidden: true,
  },
  'staff.account.password-link': {
    category: 'staff',
    summary: () => 'A set-password link was made for a staff account',
    isHidden: true,
  },
  'staff.account.password-set': {
    category: 'staff',
    summary: () => 'A staff account set its password',
    isHidden: true,
  },
  'staff.account.remove': {
    category: 'staff',
    summary: () => 'A staff account was removed',
    isHidden: true,
  },
} satisfies Record<string, ActionMeaning>;

export type ActivityAction = keyof typeof activityActions;

const meanings: Readonly<Record<string, ActionMeaning>> = activityActions;

export function isKnownAction(action: string): action is ActivityAction {
  return Object.hasOwn(meanings, action);
}

/** Where a code this module does not know is filed: by its prefix, else under cameras. */
const categoryByPrefix: Readonly<Record<string, ActivityCategory>> = {
  auth: 'sign-in',
  camera: 'cameras',
  activation: 'cameras',
  billing: 'billing',
  livestream: 'livestream',
  member: 'team',
  staff: 'staff',
};
const fallbackCategory: ActivityCategory = 'cameras';

/** The category of an action; unknown ones are filed by their prefix. */
export function categoryOf(action: string): ActivityCategory {
  if (isKnownAction(action)) return meanings[action]!.category;
  const prefix = action.split('.')[0] ?? '';
  return Object.hasOwn(categoryByPrefix, prefix) ? categoryByPrefix[prefix]! : fallbackCategory;
}

/** The sentence for an entry; a code it does not know (or details it cannot read) say so plainly. */
export function summaryOf(action: string, details: unknown): string {
  const safeDetails =
    details !== null && typeof details === 'object' && !Array.isArray(details)
      ? (details as Details)
      : {};
  if (isKnownAction(action)) {
    try {
      return meanings[action]!.summary(safeDetails);
    } catch {
      // A detail in a shape the sentence did not expect: fall through to the plain one.
    }
  }
  return `Made a change (${action})`;
}

/**
 * What the screen's category filter selects, as categoryOf files entries: the known codes of the
 * category, and unknown codes by their prefix (`otherPrefixes`: any prefix not listed at all).
 */
export function categorySelection(category: ActivityCategory): {
  actions: string[];
  prefixes: string[];
  knownActions: string[];
  otherPrefixes: { isIncluded: boolean; listed: string[] };
} {
  return {
    actions: Object.entries(meanings)
      .filter(([, meaning]) => meaning.category === category)
      .map(([action]) => action),
    prefixes: Object.entries(categoryByPrefix)
      .filter(([, filed]) => filed === category)
      .map(([prefix]) => prefix),
    knownActions: Object.keys(meanings),
    otherPrefixes: {
      isIncluded: category === fallbackCategory,
      listed: Object.keys(categoryByPrefix),
    },
  };
}

/** Codes kept in the audit log but never shown on an account's Activity screen. */
export const hiddenActions: readonly string[] = Object.entries(meanings)
  .filter(([, meaning]) => meaning.isHidden)
  .map(([action]) => action);
