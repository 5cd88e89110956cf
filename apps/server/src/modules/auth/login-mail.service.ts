/**
 * The login e-mail, sent by a job rather than in the request (docs/decisions/062): the request
 * only counts its rate limits and queues the address, so its answer and its timing are the same
 * for customers and strangers, with the mail server up or down. The job looks the address up and
 * hands the e-mail to the mailer; its links are made when it goes out (`createLoginLinksComposer`),
 * so in SMTP mode no usable link waits in the mail queue, and an e-mail that cannot go out within
 * `loginMailSendWithinSeconds` of the request is dropped, never sent late (decision 104).
 */
import type { Database, Executor } from '../../db/client.ts';
import type { Clock } from '../../lib/clock.ts';
import { countLoginLinkSent, countMailDelivery } from '../../lib/metrics.ts';
import { createOpaqueToken, hashToken } from '../../lib/tokens.ts';
import {
  renderEmail,
  sendComposedMail,
  type MailComposer,
  type Mailer,
} from '../../providers/mail/mail.ts';
import { authRepository as repository } from './auth.repository.ts';
import { authPolicy } from './auth-policy.ts';

export { loginMailJobName } from './auth-policy.ts';

/**
 * A login e-mail goes out within this long of the request or not at all: its link then still has
 * its full 15 minutes, which the e-mail promises, and the person is still waiting for it. Later,
 * they have asked again or given up; a link arriving then is noise at best (decision 104).
 */
export const loginMailSendWithinSeconds = authPolicy.loginTokenSeconds;

export interface LoginMailRequest {
  /** As the customer typed it, already trimmed and lower-cased by the contract. */
  email: string;
  requestedIp: string;
  /** When it was asked for (ISO); jobs queued before this field existed go by their run. */
  requestedAt?: string;
}

/** What the login e-mail is made from when it goes out. */
export interface LoginLinksData {
  email: string;
  requestedIp: string;
}

interface SignInTarget {
  customerId: string;
  /** Set for a member's link into someone else's account. */
  memberId: string | null;
  label: string;
}

const ownLabel = 'Sign in to your own Farmcam account';

/** The button of a member's link names whose account it opens and as what. */
export function memberLinkLabel(ownerEmail: string, role: 'manager' | 'viewer'): string {
  return `Sign in to ${ownerEmail}'s account (${role === 'manager' ? 'Manager' : 'Viewer'})`;
}

async function signInTargets(db: Database, email: string, now: Date): Promise<SignInTarget[]> {
  const customer = await repository.findCustomerByEmail(db, email);
  const memberships = await repository.findActiveMembershipsByEmail(db, email, now);
  return [
    ...(customer ? [{ customerId: customer.id, memberId: null, label: ownLabel }] : []),
    ...memberships.map(({ member, ownerEmail }) => ({
      customerId: member.customerId,
      memberId: member.id,
      label: memberLinkLabel(ownerEmail, member.role),
    })),
  ];
}

export const loginLinksComposerName = 'login-links';

/**
 * Makes the login e-mail as it goes out: fresh one-time links (stored as hashes) for every
 * account the address may enter now, its own (as owner) and each it is an active member of, one
 * link per account in one e-mail (docs/decisions/091). Null when it may enter none any more.
 * Delivered, its links void the older ones of the same accounts (a newer link wins, decision
 * 003); not delivered, its own links are voided and older ones keep working.
 */
export function createLoginLinksComposer(deps: {
  db: Database;
  clock: Clock;
  publicUrl: string;
}): MailComposer<LoginLinksData> {
  const { db, clock, publicUrl } = deps;
  return {
    name: loginLinksComposerName,
    async compose(data) {
      const now = clock.now();
      const targets = await signInTargets(db, data.email, now);
      if (targets.length === 0) return null;
      const expiresAt = new Date(now.getTime() + authPolicy.loginTokenSeconds * 1000);
      const links: (SignInTarget & { tokenId: string; url: string })[] = [];
      for (const target of targets) {
        const token = createOpaqueToken();
        const tokenId = await repository.insertLoginToken(db, {
          customerId: target.customerId,
          memberId: target.memberId,
          tokenHash: hashToken(token),
          expiresAt,
          requestedIp: data.requestedIp,
          createdAt: now,
        });
        links.push({ ...target, tokenId, url: `${publicUrl}/login/${token}` });
      }
      const several = links.length > 1;
      return {
        message: renderEmail({
          kind: 'login',
          to: data.email,
          subject: 'Your Farmcam login link',
          heading: 'Sign in to Farmcam',
          paragraphs: [
            several
              ? 'Your e-mail address can open more than one Farmcam account. Use the button of the account you want to open. Each link works once and expires in 15 minutes.'
              : 'Use the button below to sign in to your Farmcam portal. The link works once and expires in 15 minutes.',
            'If you did not ask for this, you can ignore this e-mail: nobody can sign in without the link.',
          ],
          actions: links.map((link) => ({
            label: several || link.memberId ? link.label : 'Sign in to Farmcam',
            url: link.url,
          })),
        }),
        async sent(executor: Executor = db) {
          for (const link of links) {
            await repository.voidOpenLoginTokens(executor, link.customerId, now, {
              except: link.tokenId,
              memberId: link.memberId,
            });
          }
          countLoginLinkSent();
        },
        async notSent(executor: Executor = db) {
          // Nobody holds these links; older ones stay valid until a mail actually goes out.
          for (const link of links) {
            await repository.voidLoginToken(executor, link.tokenId, clock.now());
          }
        },
      };
    },
  };
}

export function createLoginMailService(deps: {
  db: Database;
  clock: Clock;
  mailer: Mailer;
  publicUrl: string;
  /** The composer the mail queue knows (process/compose.ts); made here when not given. */
  composer?: MailComposer<LoginLinksData>;
}) {
  const { db, clock, mailer } = deps;
  const composer = deps.composer ?? createLoginLinksComposer(deps);
  return {
    /**
     * Hands a login e-mail to the mailer when the address may enter any account; does nothing
     * for a stranger, or when the request is older than `loginMailSendWithinSeconds` (a job that
     * waited too long: counted as expired). `jobId` makes a repeated run of one job mail once.
     * Rejects when the mailer refused it (the outbox; SMTP mode only fails to queue), so the job
     * is retried.
     */
    async sendLoginMail(request: LoginMailRequest, job?: { id: string }): Promise<void> {
      const now = clock.now();
      const requestedAt = request.requestedAt ? new Date(request.requestedAt) : now;
      const sendBefore = new Date(requestedAt.getTime() + loginMailSendWithinSeconds * 1000);
      if (sendBefore <= now) {
        countMailDelivery('login', 'expired');
        return;
      }
      if ((await signInTargets(db, request.email, now)).length === 0) return;
      await sendComposedMail(
        mailer,
        composer,
        { email: request.email, requestedIp: request.requestedIp },
        {
          to: request.email,
          kind: 'login',
          sendBefore,
          ...(job ? { dedupeKey: `login:${job.id}` } : {}),
        },
      );
    },
  };
}

export type LoginMailService = ReturnType<typeof createLoginMailService>;
