import { plansResponse, type PlansResponse } from '@farmcam/contract';
import { isResponseSerializationError, serializerCompiler } from 'fastify-type-provider-zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoData } from '../../seed/demo.ts';
import {
  bearer,
  createTestContext,
  signInCustomer,
  type TestContext,
} from '../../../test/helpers/test-app.ts';
import { checkedJsonSerializerCompiler } from '../../lib/checked-json.ts';

const route = { schema: plansResponse, method: 'GET', url: '/api/cameras/plansV2' };

describe('the plansV2 serializer (decision 089)', () => {
  let context: TestContext;
  let answer: PlansResponse;
  beforeAll(async () => {
    context = await createTestContext();
    await seedDemoData(context.database.db, context.clock);
    const token = await signInCustomer(context, 'demo@example.com');
    const response = await context.app.inject({
      method: 'GET',
      url: '/api/cameras/plansV2',
      headers: bearer(token),
    });
    expect(response.statusCode).toBe(200);
    answer = response.json<PlansResponse>();
  });
  afterAll(() => context.close());

  it('answers within the contract', () => {
    expect(plansResponse.safeParse(answer).success).toBe(true);
    expect(answer.cameras.length).toBeGreaterThan(0);
  });

  it("writes the same bytes as the app's zod serializer", () => {
    expect(checkedJsonSerializerCompiler(route)(answer)).toBe(serializerCompiler(route)(answer));
  });

  it('refuses an answer outside the contract, as the zod serializer does', () => {
    const broken = { ...answer, cameras: [{ ...answer.cameras[0], cardState: 'unknown' }] };
    let thrown: unknown;
    try {
      checkedJsonSerializerCompiler(route)(broken);
    } catch (error) {
      thrown = error;
    }
    expect(isResponseSerializationError(thrown)).toBe(true);
  });
});
