/**
 * `Idempotency-Key` on the routes that opt in (`config: { idempotent: true }`), one rule for all
 * of them (lib/idempotency.ts, docs/decisions/108): after the input is validated and before the
 * handler, the key is claimed for its sender, endpoint and input; a completed request is replayed
 * (its status and body, with `Idempotent-Replayed: true`, as Stripe answers), a running one
 * answers 409, a key used for another endpoint or other input 422. The handler's answer is kept
 * when it succeeded (2xx); an error releases the key so the request can be tried again.
 *
 * Whose key it is comes from the app (`ownerOf`: the person signed in); a request without one
 * runs as if it had no key, and the route's own check refuses it.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Database } from '../db/client.ts';
import type { Clock } from '../lib/clock.ts';
import { claimIdempotencyKey, type IdempotencyClaim } from '../lib/idempotency.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route applies a request with an `Idempotency-Key` once (plugins/idempotency.ts). */
    idempotent?: boolean;
  }
}

export interface IdempotencyPluginOptions {
  db: Database;
  clock: Clock;
  /** Whose keys the request's belong to (the person signed in), or undefined: not keyed. */
  ownerOf(request: FastifyRequest): string | undefined;
}

const claims = new WeakMap<FastifyRequest, Extract<IdempotencyClaim, { kind: 'run' }>>();

export const idempotencyPlugin = fp(
  async (app: FastifyInstance, options: IdempotencyPluginOptions) => {
    app.addHook('preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
      if (!request.routeOptions.config.idempotent) return;
      const header = request.headers['idempotency-key'];
      const key = typeof header === 'string' && header !== '' ? header : undefined;
      const owner = key === undefined ? undefined : options.ownerOf(request);
      if (key === undefined || owner === undefined) return;
      const claim = await claimIdempotencyKey(options, {
        owner,
        key,
        endpoint: `${request.method} ${request.routeOptions.url}`,
        request: { params: request.params, query: request.query, body: request.body ?? null },
      });
      if (claim.kind === 'run') {
        claims.set(request, claim);
        return;
      }
      return reply
        .code(claim.statusCode)
        .header('idempotent-replayed', 'true')
        .send(claim.response);
    });

    app.addHook('onSend', async (request, reply, payload) => {
      const claim = claims.get(request);
      if (!claim) return payload;
      claims.delete(request);
      if (reply.statusCode >= 200 && reply.statusCode < 300) {
        const body = typeof payload === 'string' && payload !== '' ? JSON.parse(payload) : null;
        await claim.complete(reply.statusCode, body);
      } else {
        await claim.release();
      }
      return payload;
    });
  },
  { name: 'idempotency', dependencies: ['auth'] },
);
