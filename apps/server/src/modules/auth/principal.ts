/**
 * The signed-in person as every module sees them: who is calling (`Principal`), from where
 * (`RequestContext`), and what a sign-in hands back. Types only, so a module that
 * needs to know who is calling depends on nothing else of auth (docs/decisions/160).
 */
import type { SessionRole } from '../../db/schema.ts';
import type { Access } from './access.ts';

/** Who is calling. `customerId` is the customer whose data the session may reach. */
export interface Principal {
  sessionId: string;
  role: SessionRole;
  customerId: string | null;
  customerEmail: string | null;
  staffId: string | null;
  staffEmail: string | null;
  /** Set when staff opened a customer's portal: the session is scoped to that customer. */
  impersonation: {
    staffEmail: string;
    staffRole: 'team' | 'admin';
    customerEmail: string;
    expiresAt: string;
    parentSessionId: string;
  } | null;
  expiresAt: Date;
  /**
   * Set for every session scoped to a customer account: the owner's full access, or a member's
   * role and cameras (docs/decisions/091).
   */
  access: Access | null;
}

export interface RequestContext {
  ip: string;
  userAgent?: string | undefined;
}

export interface IssuedSession {
  token: string;
  expiresAt: string;
}
