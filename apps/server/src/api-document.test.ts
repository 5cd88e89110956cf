/**
 * The OpenAPI document others build on (docs/decisions/085): /api/docs/json passes Redocly's
 * recommended rules (apps/server/redocly.yaml says which are changed, and why) with no error and
 * no warning, and holds what a generated typed client needs.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig, lintFromString, type NormalizedProblem } from '@redocly/openapi-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, testPublicUrl, type TestContext } from '../test/helpers/test-app.ts';

const redoclyConfigPath = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../redocly.yaml',
);

interface Operation {
  operationId?: string;
  summary?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: unknown[];
  requestBody?: unknown;
  responses: Record<string, unknown>;
}
interface ApiDocument {
  servers?: { url: string }[];
  tags?: { name: string; description?: string }[];
  paths: Record<string, Record<string, Operation>>;
}

const methods = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

function operationsOf(document: ApiDocument) {
  return Object.entries(document.paths).flatMap(([route, item]) =>
    Object.entries(item)
      .filter(([method]) => methods.includes(method))
      .map(([method, operation]) => ({ name: `${method.toUpperCase()} ${route}`, operation })),
  );
}

/** What Redocly found, one line each, so a failure names the rule and the place. */
async function lintDocument(document: unknown): Promise<string[]> {
  const config = await loadConfig({ configPath: redoclyConfigPath });
  const problems: NormalizedProblem[] = await lintFromString({
    source: JSON.stringify(document),
    absoluteRef: path.join(path.dirname(redoclyConfigPath), 'openapi.json'),
    config,
  });
  return problems.map(
    (problem) =>
      `${problem.severity} ${problem.ruleId} at ${problem.location[0]?.pointer ?? '?'}: ${problem.message}`,
  );
}

let context: TestContext;
let document: ApiDocument;

beforeAll(async () => {
  context = await createTestContext();
  const response = await context.app.inject({ method: 'GET', url: '/api/docs/json' });
  expect(response.statusCode).toBe(200);
  document = response.json();
});
afterAll(() => context.close());

describe('the API document', () => {
  it("passes Redocly's recommended rules with no error and no warning", async () => {
    expect(await lintDocument(document)).toEqual([]);
  });

  it('the linter fails a document that breaks the rules', async () => {
    // Without the summary, security and operationId of one operation, and with no servers.
    const broken = structuredClone(document);
    delete broken.servers;
    const plans = broken.paths['/api/cameras/plansV2']!.get!;
    delete plans.summary;
    delete plans.security;
    delete plans.operationId;
    const problems = await lintDocument(broken);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^error no-empty-servers/),
        expect.stringMatching(/^error operation-summary at #\/paths\/~1api~1cameras~1plansV2/),
        expect.stringMatching(/^error security-defined at #\/paths\/~1api~1cameras~1plansV2/),
        expect.stringMatching(/^error operation-operationId at #\/paths\/~1api~1cameras~1plansV2/),
      ]),
    );
  });

  it('is served from the portal address and holds the API only', () => {
    expect(document.servers).toEqual([{ url: testPublicUrl, description: 'This portal' }]);
    expect(Object.keys(document.paths).filter((route) => !route.startsWith('/api/'))).toEqual([]);
    expect(operationsOf(document).length).toBeGreaterThan(40);
  });

  it('gives every operation a camelCase operation id a client generator can use as a method name', () => {
    const ids = operationsOf(document).map(({ operation }) => operation.operationId);
    expect(ids.filter((id) => !/^[a-z][a-zA-Z0-9]*$/.test(id ?? ''))).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('declares security on every operation: the bearer token, or none for a public one', () => {
    const undeclared = operationsOf(document)
      .filter(({ operation }) => {
        const security = operation.security;
        if (!security) return true;
        return !(
          security.length === 0 ||
          (security.length === 1 && JSON.stringify(security[0]) === '{"bearer":[]}')
        );
      })
      .map(({ name }) => name);
    expect(undeclared).toEqual([]);
  });

  it('declares a 4xx answer on every operation that takes input or a token', () => {
    // Redocly's operation-4xx-response asks this of every operation; the probes and the public
    // configuration reads take nothing a client could get wrong (redocly.yaml).
    const missing = operationsOf(document)
      .filter(({ operation }) => {
        const takesInput =
          (operation.parameters?.length ?? 0) > 0 ||
          operation.requestBody !== undefined ||
          (operation.security?.length ?? 0) > 0;
        return takesInput && !Object.keys(operation.responses).some((code) => code.startsWith('4'));
      })
      .map(({ name }) => name);
    expect(missing).toEqual([]);
  });

  it('describes every tag an operation carries', () => {
    const described = new Map(document.tags?.map((tag) => [tag.name, tag.description]));
    const used = new Set(operationsOf(document).flatMap(({ operation }) => operation.tags ?? []));
    expect([...used].filter((tag) => !described.get(tag))).toEqual([]);
  });
});
