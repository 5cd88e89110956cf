/**
 * The Team screen's API (docs/decisions/091). Every route but accepting an invitation is the
 * owner's (manageTeam; staff inside the owner's portal act as the owner). Writes accept an
 * `Idempotency-Key` header: a retry with the same key is applied once.
 */
import {
  errorBody,
  invitationTokenBody,
  inviteMemberBody,
  memberParams,
  memberResponse,
  teamResponse,
  tokenResponse,
  updateMemberBody,
} from '@farmcam/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requestContext, requireAbility } from '../auth/auth.plugin.ts';
import type { TeamService, TeamActor } from './team.service.ts';

const errors = { 400: errorBody, 401: errorBody, 403: errorBody, 404: errorBody };
const writeErrors = { ...errors, 409: errorBody, 422: errorBody, 429: errorBody, 503: errorBody };
const idempotencyHeaders = z.object({
  'idempotency-key': z
    .string()
    .optional()
    .describe('Repeating a write with the same key applies it once'),
});

/** The owner's account and who acts on it, after checking they may manage the team (403). */
function teamOwner(request: FastifyRequest): { customerId: string; actor: TeamActor } {
  const { customerId, principal } = requireAbility(request, 'manageTeam');
  return { customerId, actor: { principal, ...requestContext(request) } };
}

export const teamRoutes: FastifyPluginAsyncZod<{ team: TeamService }> = async (app, { team }) => {
  const security = [{ bearer: [] }];

  app.get(
    '/team',
    {
      schema: {
        tags: ['team'],
        operationId: 'getTeam',
        summary: "The account's members and the cameras they can be given",
        security,
        response: { 200: teamResponse, ...errors },
      },
    },
    async (request) => team.getTeam(teamOwner(request).customerId),
  );

  app.post(
    '/team/invite',
    {
      config: { idempotent: true },
      schema: {
        tags: ['team'],
        operationId: 'inviteMember',
        summary: 'Add a member and e-mail them an invitation link (valid 7 days)',
        security,
        headers: idempotencyHeaders,
        body: inviteMemberBody,
        response: { 201: memberResponse, ...writeErrors },
      },
    },
    async (request, reply) => {
      const { customerId, actor } = teamOwner(request);
      const result = await team.invite(actor, customerId, request.body);
      return reply.code(201).send(result);
    },
  );

  app.post(
    '/team/members/:memberId',
    {
      config: { idempotent: true },
      schema: {
        tags: ['team'],
        operationId: 'updateMember',
        summary: "Change a member's role, cameras or last day",
        description:
          'Takes effect at once: the member’s open sessions reach only what the new access allows.',
        security,
        headers: idempotencyHeaders,
        params: memberParams,
        body: updateMemberBody,
        response: { 200: memberResponse, ...writeErrors },
      },
    },
    async (request) => {
      const { customerId, actor } = teamOwner(request);
      return team.update(actor, customerId, request.params.memberId, request.body);
    },
  );

  app.post(
    '/team/members/:memberId/remove',
    {
      schema: {
        tags: ['team'],
        operationId: 'removeMember',
        summary: 'Remove a member: their sessions end at once and their links stop working',
        description: 'Removing a member already removed changes nothing (safe to retry).',
        security,
        params: memberParams,
        response: { 204: z.null(), ...errors },
      },
    },
    async (request, reply) => {
      const { customerId, actor } = teamOwner(request);
      await team.remove(actor, customerId, request.params.memberId);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/team/members/:memberId/resend-invitation',
    {
      config: { idempotent: true },
      schema: {
        tags: ['team'],
        operationId: 'resendInvitation',
        summary: 'E-mail a new invitation link; the previous one stops working',
        security,
        headers: idempotencyHeaders,
        params: memberParams,
        response: { 200: memberResponse, ...writeErrors },
      },
    },
    async (request) => {
      const { customerId, actor } = teamOwner(request);
      return team.resendInvitation(actor, customerId, request.params.memberId);
    },
  );

  app.post(
    '/team/accept-invitation',
    {
      schema: {
        tags: ['team'],
        operationId: 'acceptInvitation',
        summary: "Accept an e-mailed invitation: the invitation's token for a session token",
        description:
          'The link works once, within 7 days, while the member is on the team. The token travels in the body, not the address, so it stays out of logs (docs/decisions/014).',
        security: [],
        body: invitationTokenBody,
        response: { 200: tokenResponse, 400: errorBody, 429: errorBody },
      },
    },
    async (request) => team.acceptInvitation(request.body.token, requestContext(request)),
  );
};
