import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AppError, notFound, unauthenticated } from '../../errors.ts';
import { isProbePath } from '../../lib/probe-paths.ts';
import {
  type Ability,
  type Access,
  hasAbility,
  mayReachCamera,
  notAllowedMessages,
} from './access.ts';
import type { SessionsService } from './sessions.service.ts';
import type { Principal, RequestContext } from './principal.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | undefined;
  }
}

/** Resolves `Authorization: Bearer …` to `request.principal` before every handler. */
export const authPlugin = fp(
  async (
    app: FastifyInstance,
    options: { sessions: Pick<SessionsService, 'cachedPrincipal' | 'authenticate'> },
  ) => {
    app.decorateRequest('principal', undefined);
    // A callback hook, not an async one: a session resolved moments ago (the common case) is
    // found without a promise or a microtask, which the throughput bench measures (decision 065).
    app.addHook('onRequest', (request, _reply, done) => {
      const header = request.headers.authorization;
      if (!header || !header.startsWith('Bearer ')) return done();
      const token = header.slice('Bearer '.length).trim();
      if (token.length < 20 || token.length > 200) return done();
      // Prometheus presents METRICS_TOKEN on /metrics: it is not a session, and a scrape or probe
      // must never wait on the database (decision 102).
      if (isProbePath(request.url)) return done();
      const cached = options.sessions.cachedPrincipal(token);
      if (cached) {
        request.principal = cached;
        return done();
      }
      options.sessions.authenticate(token).then(
        (principal) => {
          request.principal = principal;
          done();
        },
        (error: Error) => done(error),
      );
    });
    // Every answer to a signed-in call is personal: no browser or proxy may keep it (plansV2,
    // user-data, invoices…), unless a route chose its own caching (decision 014).
    app.addHook('onSend', (request, reply, payload, done) => {
      if (
        request.headers.authorization !== undefined &&
        request.url.startsWith('/api/') &&
        !reply.hasHeader('cache-control')
      ) {
        void reply.header('cache-control', 'no-store');
      }
      done(null, payload);
    });
  },
  { name: 'auth' },
);

/**
 * Whose `Idempotency-Key`s a request's are (plugins/idempotency.ts): the person signed in, so one
 * person's keys never meet another's, staff acting in a customer's portal included. Undefined
 * without a session.
 */
export function idempotencyOwner(request: FastifyRequest): string | undefined {
  const principal = request.principal;
  if (!principal) return undefined;
  if (principal.customerId) {
    const person = principal.access?.memberId
      ? `member:${principal.access.memberId}`
      : principal.impersonation
        ? `staff:${principal.impersonation.staffEmail}`
        : 'owner';
    return `customer:${principal.customerId}:${person}`;
  }
  return principal.staffId ? `staff:${principal.staffId}` : undefined;
}

export function requestContext(request: FastifyRequest): RequestContext {
  return { ip: request.ip, userAgent: request.headers['user-agent'] };
}

export function requireSession(request: FastifyRequest): Principal {
  if (!request.principal) throw unauthenticated('Session expired, please login again');
  return request.principal;
}

/**
 * The customer whose data this request may reach: the signed-in customer, or the customer a
 * staff member opened. Plain staff sessions are refused: staff see customer pages only through
 * an audited portal session.
 */
export function requireCustomerScope(request: FastifyRequest): {
  customerId: string;
  principal: Principal;
  access: Access;
} {
  const principal = requireSession(request);
  if (!principal.customerId || !principal.access) {
    throw new AppError('FORBIDDEN', "Open a customer's portal from the staff area first");
  }
  return { customerId: principal.customerId, principal, access: principal.access };
}

/** The customer scope, refused (403) when the person's role does not allow this. */
export function requireAbility(
  request: FastifyRequest,
  ability: Ability,
): ReturnType<typeof requireCustomerScope> {
  const scope = requireCustomerScope(request);
  if (!hasAbility(scope.access, ability)) {
    throw new AppError('FORBIDDEN', notAllowedMessages[ability]);
  }
  return scope;
}

/** A camera outside the person's cameras answers 404, like one that is not the customer's. */
export function requireCameraAccess(access: Access, iccid: string): void {
  if (!mayReachCamera(access, iccid)) throw notFound('Camera not found');
}

/** Staff pages: a staff session that is not inside a customer's portal. */
export function requireStaff(request: FastifyRequest): Principal & { staffId: string } {
  const principal = requireSession(request);
  if (!principal.staffId || principal.impersonation) {
    throw new AppError('FORBIDDEN', 'This page is for staff only');
  }
  return principal as Principal & { staffId: string };
}
