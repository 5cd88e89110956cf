import { isResponseSerializationError } from 'fastify-type-provider-zod';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { memoizedCheckedJsonSerializerCompiler } from './checked-json.ts';

const route = { method: 'GET', url: '/api/auth/user-data' };

describe('memoizedCheckedJsonSerializerCompiler (decision 090)', () => {
  it('checks and writes each answer object once, and a new object again', () => {
    let checks = 0;
    const email = z.string().refine(() => {
      checks += 1;
      return true;
    });
    const schema = z.object({ data: z.object({ email }) });
    const write = memoizedCheckedJsonSerializerCompiler({ ...route, schema });
    const answer = { data: { email: 'herd@example.com' } };
    const first = write(answer);
    expect(checks).toBe(1);
    expect(write(answer)).toBe(first);
    expect(checks).toBe(1);
    expect(first).toBe('{"data":{"email":"herd@example.com"}}');
    expect(write({ data: { email: 'vet@example.com' } })).toBe(
      '{"data":{"email":"vet@example.com"}}',
    );
    expect(checks).toBe(2);
  });

  it('refuses an answer that breaks the contract, every time', () => {
    const schema = z.object({ data: z.object({ email: z.string() }) });
    const write = memoizedCheckedJsonSerializerCompiler({ ...route, schema });
    const broken = { data: { email: 42 } };
    for (let attempt = 0; attempt < 2; attempt += 1) {
      let thrown: unknown;
      try {
        write(broken);
      } catch (error) {
        thrown = error;
      }
      expect(isResponseSerializationError(thrown)).toBe(true);
    }
  });
});
