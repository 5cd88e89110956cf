/**
 * Serializers for the hottest answers. How GET /api/cameras/plansV2 writes its answer
 * (docs/decisions/089): the app's serializer
 * (fastify-type-provider-zod) checks an answer against the contract, then writes the checked
 * copy zod builds; for a 1,000-camera account (about 650 KB of JSON) writing that copy costs
 * half as much again as writing the service's own objects, whose shapes V8 knows. This one makes
 * the same check and writes the service's value: the same bytes, since the check passing means
 * the value is the contract's shape (the contract has no transforms, and the service's objects
 * carry no other keys: they are typed `PlansResponse` literals).
 */
import { ResponseSerializationError } from 'fastify-type-provider-zod';
import { z } from 'zod';

/** A route's serializerCompiler (its response schemas are the contract's zod schemas). */
export function checkedJsonSerializerCompiler(route: {
  schema: unknown;
  method: string;
  url: string;
}): (data: unknown) => string {
  const schema = route.schema as z.ZodType;
  return (data) => {
    const result = z.safeEncode(schema, data);
    if (!result.success) {
      throw new ResponseSerializationError(route.method, route.url, { cause: result.error });
    }
    return JSON.stringify(data);
  };
}

/**
 * The same, remembering what it wrote for each answer object (docs/decisions/090): a route that
 * returns the same object again (GET /auth/user-data answers from the cached session) is checked
 * and written once per object, not once per request. Only for answers nothing changes after they
 * are made: the route must build a new object whenever the answer changes.
 */
export function memoizedCheckedJsonSerializerCompiler(route: {
  schema: unknown;
  method: string;
  url: string;
}): (data: unknown) => string {
  const write = checkedJsonSerializerCompiler(route);
  const written = new WeakMap<object, string>();
  return (data) => {
    if (typeof data !== 'object' || data === null) return write(data);
    let json = written.get(data);
    if (json === undefined) {
      json = write(data);
      written.set(data, json);
    }
    return json;
  };
}
