/**
 * Hostile input never reaches a 5xx (docs/decisions/064). For every route the app serves, a
 * few hundred requests (FUZZ_RUNS, 300 by default) built from the route's OpenAPI schemas and broken on purpose, sent
 * as a stranger and as a signed-in customer. Each answer must be below 500, an error must be
 * `{ code, message }` (with a `field` name beside a validation message), and the security headers
 * must be there.
 *
 * Reproduce a failure: the message prints the seed; run
 *   FUZZ_SEED=<seed> FUZZ_ROUTE='<route path>' npx vitest run apps/server/test/fuzz/openapi-fuzz.test.ts
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import fc from 'fast-check';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { billingCustomers, customers, invoices, sims } from '../../src/db/schema.ts';
import { startJobs, type JobRunner } from '../../src/jobs/job-runner.ts';
import { seedDemoData } from '../../src/seed/demo.ts';
import {
  bearer,
  createTestContext,
  signInCustomer,
  type TestContext,
} from '../helpers/test-app.ts';
import {
  brokenJson,
  contentTypes,
  encodeComponent,
  hostileString,
  hostileValue,
  mutatedObject,
  queryString,
  validLooking,
  type JsonSchema,
} from './arbitraries.ts';
import { listRoutes, type FuzzRoute } from './routes.ts';

const baseSeed = Number(process.env.FUZZ_SEED ?? 11_064);
const runsPerRoute = Number(process.env.FUZZ_RUNS ?? 300);
const onlyRoute = process.env.FUZZ_ROUTE;

/** Routes whose answers may be framed by other sites: they carry the reduced header set. */
const isEmbeddable = (url: string) =>
  url.startsWith('/embed/') || url.startsWith('/api/livestreaming/livestream-url');
const managesOwnHeaders = (url: string) => url.startsWith('/api/docs');
/** Documented as plain text for the embed page's video source, its 404 included. */
const answersPlainText = (url: string) => url.startsWith('/api/livestreaming/livestream-url');

interface FuzzRequest {
  /** `forged`: an Authorization header of any shape, and a made-up X-Forwarded-For. */
  identity: 'anonymous' | 'customer' | 'forged';
  forgedAuthorization: string;
  forwardedFor: string;
  method: string;
  params: Record<string, string>;
  query: unknown;
  headers: Record<string, string>;
  body: unknown;
  rawBody: string | undefined;
  contentType: string | undefined;
  pathSuffix: string;
}

/** Field names the hidden routes read without a schema (forms, signed media, embed). */
const formFields = ['number', 'expiry', 'cvc', 'makeDefault', 'days', 'months'];
const hiddenQueryFields = ['token', 'site', 'id', 'error', 'notice', 'expires', 'signature', 'key'];
const validFormValues = ['4242424242424242', '4000 0000 0000 0002', '12/30', '123', 'yes', '1'];

function objectSchema(
  fields: { name: string; schema: JsonSchema; required?: boolean }[],
): JsonSchema {
  return {
    type: 'object',
    properties: Object.fromEntries(fields.map((field) => [field.name, field.schema])),
    required: fields.filter((field) => field.required).map((field) => field.name),
  };
}

/** Printable ASCII: what an HTTP parser lets through in a header value. */
const headerText = fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 40 });

function requestArbitrary(route: FuzzRoute, known: readonly string[]): fc.Arbitrary<FuzzRequest> {
  const paramValue = (schema: JsonSchema) =>
    fc.oneof(
      { weight: 5, arbitrary: validLooking(schema, known).map(String) },
      { weight: 4, arbitrary: hostileString },
    );
  const looseValue = fc.oneof(
    fc.constantFrom(...validFormValues, ...known),
    hostileValue,
    fc.string({ maxLength: 30 }),
  );
  const query =
    route.query.length > 0
      ? mutatedObject(validLooking(objectSchema(route.query), known))
      : fc.dictionary(
          fc.constantFrom(...hiddenQueryFields, '__proto__', 'constructor'),
          looseValue,
          {
            maxKeys: 3,
          },
        );
  const body = route.body
    ? mutatedObject(validLooking(route.body, known))
    : fc.oneof(
        fc.dictionary(fc.constantFrom(...formFields, '__proto__', 'constructor'), looseValue, {
          maxKeys: 4,
        }),
        hostileValue,
      );
  const headerValue = fc.oneof(headerText, fc.constantFrom('x', 'a'.repeat(300), 'fuzz-key-0001'));
  return fc.record({
    identity: fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom('anonymous', 'customer') },
      { weight: 1, arbitrary: fc.constant('forged') },
    ),
    forgedAuthorization: fc.oneof(
      headerText.map((text) => `Bearer ${text}`),
      headerText,
      fc.constantFrom('Bearer', 'Bearer ', 'Basic YTpi', `Bearer ${'a'.repeat(5000)}`),
    ),
    forwardedFor: fc.oneof(fc.ipV4(), fc.ipV6(), headerText),
    method: fc.oneof(
      { weight: 30, arbitrary: fc.constantFrom(...route.methods) },
      { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS') },
    ),
    params: fc.record(
      Object.fromEntries(route.params.map((param) => [param.name, paramValue(param.schema)])),
    ) as fc.Arbitrary<Record<string, string>>,
    query,
    headers: fc.record(
      Object.fromEntries(route.headers.map((header) => [header.name, headerValue])),
      { requiredKeys: [] },
    ) as fc.Arbitrary<Record<string, string>>,
    body,
    rawBody: fc.option(brokenJson, { freq: 8 }).map((value) => value ?? undefined),
    contentType: fc.option(contentTypes, { freq: 12 }).map((value) => value ?? undefined),
    pathSuffix: fc.oneof(
      { weight: 30, arbitrary: fc.constant('') },
      {
        weight: 1,
        arbitrary: fc.constantFrom('/', '//', '/..', '%', '%zz', '%E0%A4%A', '%00', '#x'),
      },
    ),
  });
}

let addressCounter = 0;
/** A new client address per request, so per-IP limits do not turn every later request into 429. */
const nextAddress = () => {
  addressCounter += 1;
  return `10.${(addressCounter >> 16) & 255}.${(addressCounter >> 8) & 255}.${addressCounter & 255}`;
};

function toInject(route: FuzzRoute, request: FuzzRequest, token: string): InjectOptions {
  const pathname = route.path.replace(/:([A-Za-z0-9_]+)|\*/g, (whole, name: string | undefined) => {
    const value = request.params[name ?? '*'] ?? '';
    return whole === '*' ? value.split('/').map(encodeComponent).join('/') : encodeComponent(value);
  });
  const query =
    typeof request.query === 'object' && request.query !== null && !Array.isArray(request.query)
      ? queryString(request.query as Record<string, unknown>)
      : `?q=${encodeComponent(JSON.stringify(request.query) ?? '')}`;
  const headers: Record<string, string> = { ...request.headers };
  if (request.identity === 'customer') Object.assign(headers, bearer(token));
  if (request.identity === 'forged') {
    headers.authorization = request.forgedAuthorization;
    headers['x-forwarded-for'] = request.forwardedFor;
  }
  const hasBody = !['GET', 'HEAD', 'OPTIONS'].includes(request.method);
  let payload: string | undefined;
  if (hasBody) {
    const contentType = request.contentType ?? 'application/json';
    headers['content-type'] = contentType;
    if (request.rawBody !== undefined) payload = request.rawBody;
    else if (contentType.includes('urlencoded') && typeof request.body === 'object')
      payload = queryString((request.body ?? {}) as Record<string, unknown>).slice(1);
    else payload = JSON.stringify(request.body) ?? 'null';
  }
  return {
    method: request.method as InjectOptions['method'],
    url: `${pathname.startsWith('/') ? '' : '/'}${pathname}${request.pathSuffix}${query}`,
    headers,
    payload,
    remoteAddress: nextAddress(),
  };
}

function describeRequest(options: InjectOptions): string {
  const url = String(options.url);
  const payload = String(options.payload ?? '');
  return `${options.method} ${url.length > 300 ? `${url.slice(0, 300)}… (${url.length} chars)` : url}\n  headers: ${JSON.stringify(options.headers)}\n  body: ${payload.length > 300 ? `${payload.slice(0, 300)}… (${payload.length} chars)` : payload}`;
}

/** What every answer must satisfy; returns the broken rule or undefined. */
function problemWith(options: InjectOptions, response: LightMyRequestResponse): string | undefined {
  const url = String(options.url);
  if (response.statusCode >= 500)
    return `status ${response.statusCode}: ${response.body.slice(0, 500)}`;
  if (!managesOwnHeaders(url)) {
    if (response.headers['x-content-type-options'] !== 'nosniff')
      return `no x-content-type-options header (status ${response.statusCode})`;
    if (response.headers['referrer-policy'] === undefined)
      return `no referrer-policy header (status ${response.statusCode})`;
    if (!isEmbeddable(url) && response.headers['content-security-policy'] === undefined)
      return `no content-security-policy header (status ${response.statusCode})`;
  }
  const isJson = String(response.headers['content-type'] ?? '').startsWith('application/json');
  if (response.statusCode >= 400 && options.method !== 'HEAD') {
    if (url.startsWith('/api/') && !isJson && !managesOwnHeaders(url) && !answersPlainText(url))
      return `error ${response.statusCode} is not JSON: ${response.body.slice(0, 200)}`;
    if (isJson) {
      let body: unknown;
      try {
        body = JSON.parse(response.body);
      } catch {
        return `error ${response.statusCode} is not valid JSON: ${response.body.slice(0, 200)}`;
      }
      const keys = typeof body === 'object' && body !== null ? Object.keys(body).sort() : [];
      const { code, message, field } = (body ?? {}) as {
        code?: unknown;
        message?: unknown;
        field?: unknown;
      };
      // A validation error may name its field beside the sentence (decision 014).
      const shape = keys.filter((key) => key !== 'field').join(',');
      if (
        shape !== 'code,message' ||
        typeof code !== 'string' ||
        typeof message !== 'string' ||
        message.length === 0 ||
        (field !== undefined && typeof field !== 'string')
      )
        return `error ${response.statusCode} is not {code, message[, field]}: ${response.body.slice(0, 300)}`;
    }
  }
  return undefined;
}

/** A stable seed per route, so adding a route does not change what the others are sent. */
function routeSeed(route: FuzzRoute): number {
  let hash = baseSeed;
  for (const character of route.path) hash = (Math.imul(hash, 31) + character.charCodeAt(0)) | 0;
  return hash;
}

let context: TestContext;
let customerToken: string;
let known: string[] = [];
let routes: FuzzRoute[] = [];
let webRoot: string;
let jobs: JobRunner | undefined;

beforeAll(async () => {
  // The app as deployed: with a web build, so page requests answer index.html.
  webRoot = mkdtempSync(path.join(tmpdir(), 'farmcam-fuzz-web-'));
  writeFileSync(path.join(webRoot, 'index.html'), '<!doctype html><title>Farmcam</title>');
  context = await createTestContext({}, undefined, () => ({ webRoot }));
  // The job queue's tables, as every deployed process has them, so /api/readyz answers ready.
  jobs = await startJobs(context.database, [], { onError: () => undefined, mode: 'send-only' });
  // Readiness answers from its background check (decision 102): run it once now.
  await context.services.readiness.refresh();
  await seedDemoData(context.database.db, context.clock);
  customerToken = await signInCustomer(context, 'demo@example.com');

  // Real identifiers, so some requests get past "not found" into the code behind it.
  const db = context.database.db;
  const [customer] = await db
    .select()
    .from(customers)
    .where(eq(customers.email, 'demo@example.com'));
  const simRows = await db.select({ iccid: sims.iccid, customerId: sims.customerId }).from(sims);
  const invoiceRows = await db
    .select({ id: invoices.id, url: invoices.hostedInvoiceUrl })
    .from(invoices);
  const billingRows = await db
    .select({ id: billingCustomers.id })
    .from(billingCustomers)
    .where(eq(billingCustomers.customerId, customer!.id));
  const portal = await context.app.inject({
    method: 'GET',
    url: `/api/billing/create-portal-session?customerId=${billingRows[0]!.id}`,
    headers: bearer(customerToken),
  });
  const portalSession = new URL(portal.json<{ url: string }>().url).pathname.split('/').pop()!;
  if (portal.statusCode !== 200) throw new Error(`No billing portal session: ${portal.body}`);
  known = [
    customer!.id,
    ...billingRows.map((row) => row.id),
    ...simRows.slice(0, 12).map((row) => row.iccid),
    ...invoiceRows
      .slice(0, 4)
      .flatMap((row) => [row.id, ...(row.url ? [row.url.split('/').pop()!] : [])]),
    portalSession,
    'default',
  ].filter((value, index, all) => all.indexOf(value) === index);

  routes = listRoutes(context.app).filter((route) => !onlyRoute || route.path === onlyRoute);
}, 120_000);

afterAll(async () => {
  await jobs?.stop();
  await context?.close();
  rmSync(webRoot, { recursive: true, force: true });
});

describe('hostile input never reaches a 5xx', () => {
  test('the route list covers the documented API and the hidden pages', () => {
    if (onlyRoute) return;
    const paths = routes.map((route) => route.path);
    expect(paths).toContain('/api/activation/pricing-tables/:pricingTableId');
    expect(paths).toContain('/billing-engine/checkout/:sessionId/pay');
    expect(paths).toContain('/embed/:publicId');
    expect(routes.filter((route) => route.isDocumented).length).toBeGreaterThan(40);
  });

  test('every route, as a stranger and as a signed-in customer', { timeout: 600_000 }, async () => {
    const failures: string[] = [];
    for (const route of routes) {
      const seed = routeSeed(route);
      const startedAt = performance.now();
      const result = await fc.check(
        fc.asyncProperty(requestArbitrary(route, known), async (request) => {
          const options = toInject(route, request, customerToken);
          const response = await context.app.inject(options);
          const problem = problemWith(options, response);
          if (problem) throw new Error(`${problem}\n  ${describeRequest(options)}`);
        }),
        { seed, numRuns: runsPerRoute, endOnFailure: true },
      );
      // A fuzzed logout (or password change) ends the customer's session: sign in again, so the
      // routes after it are still tried as a customer.
      const stillSignedIn = await context.app.inject({
        method: 'GET',
        url: '/api/auth/user-data',
        headers: bearer(customerToken),
        remoteAddress: nextAddress(),
      });
      if (stillSignedIn.statusCode === 401) {
        customerToken = await signInCustomer(context, 'demo@example.com');
      }
      if (process.env.FUZZ_TIMINGS) {
        console.warn(`${Math.round(performance.now() - startedAt)} ms  ${route.path}`);
      }
      if (result.failed) {
        const error =
          result.errorInstance instanceof Error
            ? result.errorInstance.message
            : String(result.errorInstance);
        failures.push(
          `${route.methods.join(',')} ${route.path} (FUZZ_SEED=${baseSeed} FUZZ_ROUTE='${route.path}', fast-check seed ${seed}, path ${result.counterexamplePath}):\n  ${error}`,
        );
      }
    }
    expect(failures, failures.join('\n\n')).toEqual([]);
  });
});
