import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { errorHandlerPlugin } from './error-handler.ts';
import {
  findInputProblem,
  inputGuardPlugin,
  isUnacceptableText,
  maxInputDepth,
} from './input-guard.ts';

describe('isUnacceptableText', () => {
  it('refuses NUL and surrogates without their pair, and keeps every real character', () => {
    expect(isUnacceptableText('a\u0000b')).toBe(true);
    expect(isUnacceptableText('\uD800')).toBe(true);
    expect(isUnacceptableText('x\uDC00y')).toBe(true);
    expect(isUnacceptableText('\uDBFF\uDBFF')).toBe(true);
    expect(isUnacceptableText('Lambing shed 🐑 Ysgubor Fawr, Åsa, 羊')).toBe(false);
    expect(isUnacceptableText('')).toBe(false);
  });
});

describe('findInputProblem', () => {
  it('looks at keys and values at any depth, without recursion', () => {
    expect(findInputProblem({ a: [{ b: 'fine' }] })).toBeUndefined();
    expect(findInputProblem({ a: [{ b: 'bad\u0000' }] })).toBe('bad-text');
    expect(findInputProblem({ ['k\uD800']: 1 })).toBe('bad-text');
    let deep: unknown = 'leaf';
    for (let level = 0; level < 20_000; level += 1) deep = [deep];
    expect(findInputProblem(deep)).toBe('too-deep');
    let allowed: unknown = 'leaf';
    for (let level = 0; level < maxInputDepth - 1; level += 1) allowed = { a: allowed };
    expect(findInputProblem(allowed)).toBeUndefined();
  });
});

describe('input guard plugin', () => {
  async function appWithRoute() {
    const app = Fastify();
    await app.register(errorHandlerPlugin);
    await app.register(inputGuardPlugin);
    // No schema: the guard covers routes without one too.
    app.post('/echo/:name', async (request) => ({ ok: true, body: request.body }));
    return app;
  }

  it('answers 400 in the error model before the handler for NUL and lone surrogates', async () => {
    const app = await appWithRoute();
    const cases = [
      { url: '/echo/a%00b', payload: {} },
      { url: '/echo/a?q=%00', payload: {} },
      { url: '/echo/a', payload: { name: 'Top\u0000gate' } },
      { url: '/echo/a', payload: '{"name":"\\ud800"}' },
    ];
    for (const { url, payload } of cases) {
      const response = await app.inject({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/json' },
        payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
      });
      expect(response.statusCode, url).toBe(400);
      expect(response.json()).toEqual({
        code: 'VALIDATION_FAILED',
        message:
          'Some text in the request has characters we cannot accept. Please retype it and try again.',
      });
    }
    const fine = await app.inject({ method: 'POST', url: '/echo/a', payload: { name: 'Åsa 🐑' } });
    expect(fine.json()).toEqual({ ok: true, body: { name: 'Åsa 🐑' } });
    await app.close();
  });
});
