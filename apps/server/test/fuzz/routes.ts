/**
 * Every route the app serves, with the schemas the OpenAPI document gives it. Hidden routes (the
 * embed page, the outbox viewer, the docs' static files) are not in the document, so the list
 * comes from the router itself (`printRoutes`) and the document only adds schemas.
 */
import type { FastifyInstance } from 'fastify';
import type { JsonSchema } from './arbitraries.ts';

export interface FuzzRoute {
  /** The router's path, e.g. `/api/cameras/sim-info/:iccid`. */
  path: string;
  methods: string[];
  params: { name: string; schema: JsonSchema }[];
  query: { name: string; schema: JsonSchema; required: boolean }[];
  headers: { name: string; schema: JsonSchema }[];
  body: JsonSchema | undefined;
  isDocumented: boolean;
}

interface OpenApiOperation {
  parameters?: { in: string; name: string; required?: boolean; schema?: JsonSchema }[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
}

/** Parses the tree `printRoutes({ commonPrefix: false })` draws into full paths and methods. */
export function parseRouteTree(tree: string): { path: string; methods: string[] }[] {
  const routes: { path: string; methods: string[] }[] = [];
  const stack: string[] = [];
  for (const line of tree.split('\n')) {
    const match = line.match(/^((?:│ {3}| {4})*)[├└]── (.*?)(?: \(([A-Z, ]+)\))?$/);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    stack.length = depth;
    stack.push(match[2]!);
    if (match[3]) {
      routes.push({ path: stack.join(''), methods: match[3].split(', ') });
    }
  }
  return routes;
}

export function listRoutes(app: FastifyInstance): FuzzRoute[] {
  const document = app.swagger() as { paths: Record<string, Record<string, OpenApiOperation>> };
  const operations = new Map<string, OpenApiOperation>();
  for (const [path, methods] of Object.entries(document.paths)) {
    const routerPath = path.replace(/\{([^}]+)\}/g, (_whole, name: string) =>
      name === '*' ? '*' : `:${name}`,
    );
    for (const [method, operation] of Object.entries(methods)) {
      operations.set(`${method.toUpperCase()} ${routerPath}`, operation);
    }
  }

  return parseRouteTree(app.printRoutes({ commonPrefix: false })).map(({ path, methods }) => {
    const main = methods.find((method) => method !== 'HEAD') ?? methods[0]!;
    const operation = operations.get(`${main} ${path}`);
    const parameters = operation?.parameters ?? [];
    const pathNames = [...path.matchAll(/:([A-Za-z0-9_]+)/g)].map((match) => match[1]!);
    if (path.includes('*')) pathNames.push('*');
    return {
      path,
      methods,
      params: pathNames.map((name) => ({
        name,
        schema: parameters.find((parameter) => parameter.in === 'path' && parameter.name === name)
          ?.schema ?? { type: 'string' },
      })),
      query: parameters
        .filter((parameter) => parameter.in === 'query')
        .map((parameter) => ({
          name: parameter.name,
          schema: parameter.schema ?? {},
          required: parameter.required === true,
        })),
      headers: parameters
        .filter((parameter) => parameter.in === 'header')
        .map((parameter) => ({ name: parameter.name, schema: parameter.schema ?? {} })),
      body: operation?.requestBody?.content?.['application/json']?.schema,
      isDocumented: operation !== undefined,
    };
  });
}
