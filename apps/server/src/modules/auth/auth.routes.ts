import {
  type AccountAccess,
  errorBody,
  loginQuery,
  messageBody,
  requestLoginBody,
  requestLoginResponse,
  staffLoginBody,
  staffSetPasswordBody,
  tokenResponse,
  userDataResponse,
} from '@farmcam/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { memoizedCheckedJsonSerializerCompiler } from '../../lib/checked-json.ts';
import { abilitiesOf, type Access } from './access.ts';
import { requestContext, requireSession } from './auth.plugin.ts';
import type { MagicLinksService } from './magic-links.service.ts';
import type { Principal } from './principal.ts';
import type { SessionsService } from './sessions.service.ts';
import type { StaffSignInService } from './staff-sign-in.service.ts';
import type { StaffAccountsService } from './staff-accounts.service.ts';

/** Who is signed in to which account and what they may do, for the web to show (decision 091). */
function accountAccessOf(access: Access, accountEmail: string): AccountAccess {
  return {
    role: access.role,
    accountEmail,
    personEmail: access.personEmail,
    allCameras: access.allCameras,
    cameraIds: [...access.cameraIds].sort(),
    accessUntil: access.accessUntil?.toISOString() ?? null,
    can: abilitiesOf(access.role),
  };
}

const errors = { 400: errorBody, 401: errorBody, 429: errorBody };

export const authRoutes: FastifyPluginAsyncZod<{
  magicLinks: MagicLinksService;
  staffSignIn: StaffSignInService;
  sessions: Pick<SessionsService, 'logout'>;
  staffAccounts: StaffAccountsService;
}> = async (app, { magicLinks, staffSignIn, sessions, staffAccounts }) => {
  app.post(
    '/auth/request-login',
    {
      schema: {
        tags: ['auth'],
        operationId: 'requestLoginLink',
        security: [],
        summary: 'E-mail a one-time login link (same answer for unknown e-mails)',
        body: requestLoginBody,
        response: { 200: requestLoginResponse, ...errors },
      },
    },
    async (request) => magicLinks.requestLogin(request.body.email, requestContext(request)),
  );

  app.get(
    '/auth/login',
    {
      schema: {
        tags: ['auth'],
        operationId: 'exchangeLoginToken',
        security: [],
        summary: "Exchange a login link's token for a session token",
        querystring: loginQuery,
        response: { 200: tokenResponse, ...errors },
      },
    },
    async (request) => magicLinks.exchangeLoginToken(request.query.token, requestContext(request)),
  );

  for (const path of ['/auth/admin-login', '/auth/team-login']) {
    app.post(
      path,
      {
        schema: {
          tags: ['auth'],
          operationId: path === '/auth/admin-login' ? 'signInAdmin' : 'signInTeamMember',
          security: [],
          summary: 'Staff sign-in with e-mail and password (admin and team accounts)',
          body: staffLoginBody,
          response: { 200: tokenResponse, ...errors },
        },
      },
      async (request) => staffSignIn.staffLogin(request.body, requestContext(request)),
    );
  }

  app.post(
    '/auth/staff-set-password',
    {
      schema: {
        tags: ['auth'],
        operationId: 'setStaffPassword',
        security: [],
        summary: "Set a staff account's password from its one-time link (`npm run staff`)",
        body: staffSetPasswordBody,
        response: { 200: messageBody, ...errors },
      },
    },
    async (request) => {
      await staffAccounts.setPassword(request.body, requestContext(request).ip);
      return { message: 'Your password is set. You can sign in now.' };
    },
  );

  app.get(
    '/auth/user-data',
    {
      schema: {
        tags: ['auth'],
        operationId: 'getUserData',
        summary: 'Who is signed in',
        description:
          "The session comes from the Authorization header only: the spec's `token` query is not accepted, because a token in an address ends up in logs, history and Referer headers (docs/decisions/014).",
        security: [{ bearer: [] }],
        response: { 200: userDataResponse, 401: errorBody },
      },
      // The cheapest signed-in call, and the busiest: a cached session answers the same object
      // (userDataOf), checked against the contract and written once (decision 090).
      serializerCompiler: memoizedCheckedJsonSerializerCompiler,
    },
    async (request) => userDataOf(requireSession(request)),
  );

  app.post(
    '/auth/logout',
    {
      schema: {
        tags: ['auth'],
        operationId: 'logOut',
        summary: 'Revoke the current session',
        security: [{ bearer: [] }],
        response: { 204: z.null(), 401: errorBody },
      },
    },
    async (request, reply) => {
      await sessions.logout(requireSession(request), requestContext(request));
      return reply.code(204).send(null);
    },
  );
};

type UserDataBody = z.infer<typeof userDataResponse>;

/**
 * Each principal's answer is made once: the session cache hands the same principal to every
 * request of a session for a few seconds, and the serializer writes a known object once. A
 * principal is never changed after it is made (a change makes a new one), so neither is this.
 */
const userDataByPrincipal = new WeakMap<Principal, UserDataBody>();

function userDataOf(principal: Principal): UserDataBody {
  const known = userDataByPrincipal.get(principal);
  if (known) return known;
  const { impersonation } = principal;
  const body: UserDataBody = {
    data: {
      email: principal.access?.personEmail ?? principal.customerEmail ?? principal.staffEmail ?? '',
      role: principal.role,
      customerId: principal.customerId,
      impersonation: impersonation
        ? {
            staffEmail: impersonation.staffEmail,
            staffRole: impersonation.staffRole,
            customerEmail: impersonation.customerEmail,
            expiresAt: impersonation.expiresAt,
          }
        : null,
      access: principal.access
        ? accountAccessOf(principal.access, principal.customerEmail ?? '')
        : null,
    },
  };
  userDataByPrincipal.set(principal, body);
  return body;
}
