/**
 * The login e-mail, sent by a job rather than in the request (docs/decisions/062): the request
 * only counts its rate limits and queues the address, so its answer and its timing are the same
 * for customers and strangers, with the mail server up or down. The look-up, the token and the
 * delivery happen here.
 */
import type { Database } from '../../db/client.ts';
import type { Clock } from '../../lib/clock.ts';
import { countLoginLinkSent } from '../../lib/metrics.ts';
import { createOpaqueToken, hashToken } from '../../lib/tokens.ts';
import { renderEmail, type Mailer } from '../../providers/mail/mail.ts';
import { membersRepository } from '../members/members.repository.ts';
import { authRepository as repository } from './auth.repository.ts';
import { authPolicy } from './auth.service.ts';

export { loginMailJobName } from './auth.service.ts';

export interface LoginMailRequest {
  /** As the customer typed it, already trimmed and lower-cased by the contract. */
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

export function createLoginMailService(deps: {
  db: Database;
  clock: Clock;
  mailer: Mailer;
  publicUrl: string;
}) {
  const { db, clock, mailer, publicUrl } = deps;
  return {
    /**
     * E-mails fresh one-time links when the address may enter any account: its own (as owner)
     * and every account it is an active member of, one link per account in one e-mail
     * (docs/decisions/091). Does nothing otherwise. Rejects when the mail server refused it, so
     * the job is retried.
     */
    async sendLoginMail(request: LoginMailRequest): Promise<void> {
      const now = clock.now();
      const customer = await repository.findCustomerByEmail(db, request.email);
      const memberships = await membersRepository.findActiveMembershipsByEmail(
        db,
        request.email,
        now,
      );
      const targets: SignInTarget[] = [
        ...(customer ? [{ customerId: customer.id, memberId: null, label: ownLabel }] : []),
        ...memberships.map(({ member, ownerEmail }) => ({
          customerId: member.customerId,
          memberId: member.id,
          label: memberLinkLabel(ownerEmail, member.role),
        })),
      ];
      if (targets.length === 0) return;

      const expiresAt = new Date(now.getTime() + authPolicy.loginTokenSeconds * 1000);
      const links: (SignInTarget & { tokenId: string; url: string })[] = [];
      for (const target of targets) {
        const token = createOpaqueToken();
        const tokenId = await repository.insertLoginToken(db, {
          customerId: target.customerId,
          memberId: target.memberId,
          tokenHash: hashToken(token),
          expiresAt,
          requestedIp: request.requestedIp,
          createdAt: now,
        });
        links.push({ ...target, tokenId, url: `${publicUrl}/login/${token}` });
      }
      const several = links.length > 1;
      try {
        await mailer.send(
          renderEmail({
            to: request.email,
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
        );
      } catch (error) {
        // Nobody holds these links; older ones stay valid until a mail actually goes out.
        for (const link of links) await repository.voidLoginToken(db, link.tokenId, clock.now());
        throw error;
      }
      // Only a delivered link voids the older ones of the same account (a newer link wins,
      // decision 003).
      for (const link of links) {
        await repository.voidOpenLoginTokens(db, link.customerId, now, {
          except: link.tokenId,
          memberId: link.memberId,
        });
      }
      countLoginLinkSent();
    },
  };
}

export type LoginMailService = ReturnType<typeof createLoginMailService>;
