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
import { authRepository as repository } from './auth.repository.ts';
import { authPolicy } from './auth.service.ts';

export { loginMailJobName } from './auth.service.ts';

export interface LoginMailRequest {
  /** As the customer typed it, already trimmed and lower-cased by the contract. */
  email: string;
  requestedIp: string;
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
     * E-mails a fresh one-time link when the address belongs to a customer; does nothing
     * otherwise. Rejects when the mail server refused it, so the job is retried.
     */
    async sendLoginMail(request: LoginMailRequest): Promise<void> {
      const customer = await repository.findCustomerByEmail(db, request.email);
      if (!customer) return;

      const token = createOpaqueToken();
      const now = clock.now();
      const tokenId = await repository.insertLoginToken(db, {
        customerId: customer.id,
        tokenHash: hashToken(token),
        expiresAt: new Date(now.getTime() + authPolicy.loginTokenSeconds * 1000),
        requestedIp: request.requestedIp,
        createdAt: now,
      });
      try {
        await mailer.send(
          renderEmail({
            to: customer.email,
            subject: 'Your Farmcam login link',
            heading: 'Sign in to Farmcam',
            paragraphs: [
              'Use the button below to sign in to your Farmcam portal. The link works once and expires in 15 minutes.',
              'If you did not ask for this, you can ignore this e-mail: nobody can sign in without the link.',
            ],
            action: { label: 'Sign in to Farmcam', url: `${publicUrl}/login/${token}` },
          }),
        );
      } catch (error) {
        // Nobody holds this link; older ones stay valid until a mail actually goes out.
        await repository.voidLoginToken(db, tokenId, clock.now());
        throw error;
      }
      // Only a delivered link voids the older ones (a newer link wins, decision 003).
      await repository.voidOpenLoginTokens(db, customer.id, now, { except: tokenId });
      countLoginLinkSent();
    },
  };
}

export type LoginMailService = ReturnType<typeof createLoginMailService>;
