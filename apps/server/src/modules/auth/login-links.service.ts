/**
 * One-time sign-in links made for a customer rather than asked for on the login page: the
 * welcome e-mail's (modules/activation). Made like the login page's links: hashed at rest,
 * 15 minutes, single use, voiding the customer's older ones (decision 003).
 */
import type { Database } from '../../db/client.ts';
import type { Clock } from '../../lib/clock.ts';
import { createOpaqueToken, hashToken } from '../../lib/tokens.ts';
import { authRepository as repository } from './auth.repository.ts';
import { authPolicy } from './auth-policy.ts';

export interface LoginLinks {
  /** A fresh one-time sign-in link for the customer. */
  create(customerId: string): Promise<string>;
}

export function createLoginLinks(deps: {
  db: Database;
  clock: Clock;
  publicUrl: string;
}): LoginLinks {
  return {
    async create(customerId) {
      const token = createOpaqueToken();
      const now = deps.clock.now();
      await deps.db.transaction(async (transaction) => {
        await repository.voidOpenLoginTokens(transaction, customerId, now);
        await repository.insertLoginToken(transaction, {
          customerId,
          tokenHash: hashToken(token),
          expiresAt: new Date(now.getTime() + authPolicy.loginTokenSeconds * 1000),
          requestedIp: null,
          createdAt: now,
        });
      });
      return `${deps.publicUrl}/login/${token}`;
    },
  };
}
