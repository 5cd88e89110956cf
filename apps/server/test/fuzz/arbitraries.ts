/**
 * fast-check generators for the fuzz test (docs/decisions/064): values that look valid, derived
 * from a route's JSON schema (as the OpenAPI document states it), mixed with hostile ones.
 */
import fc from 'fast-check';

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number | boolean;
  exclusiveMaximum?: number | boolean;
  minItems?: number;
  maxItems?: number;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  nullable?: boolean;
}

/** Strings an attacker tries first: control bytes, broken UTF-16, prototype keys, injections. */
const hostileConstants = [
  '\u0000',
  'a\u0000b',
  '%00',
  '\uD800',
  'x\uDC00y',
  '\uDBFF\uDBFF',
  '\uFFFF',
  '\u202E',
  '__proto__',
  'constructor',
  'prototype',
  'hasOwnProperty',
  'toString',
  'valueOf',
  '__defineGetter__',
  '../../../../etc/passwd',
  '..%2F..%2F',
  "' or 1=1 --",
  '"; drop table customers; --',
  '<script>alert(1)</script>',
  '${7*7}{{7*7}}',
  '',
  ' ',
  '\r\n',
  'NaN',
  'Infinity',
  '-0',
  '1e400',
  '99999999999999999999999999',
  'null',
  'undefined',
  'true',
  '[]',
  '{}',
];

const loneSurrogate = fc
  .integer({ min: 0xd800, max: 0xdfff })
  .map((code) => String.fromCharCode(code));

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...hostileConstants) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  {
    weight: 2,
    arbitrary: fc.string({
      unit: fc.oneof(
        loneSurrogate,
        fc.constant('\u0000'),
        fc.string({ minLength: 1, maxLength: 1 }),
      ),
      minLength: 1,
      maxLength: 20,
    }),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 256, max: 70_000 }), fc.constantFrom('a', '9', '\u00e9', '%'))
      .map(([length, unit]) => unit.repeat(length)),
  },
);

/** A JSON value of the wrong kind, or a shape that breaks code expecting something else. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileString },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      null,
      true,
      false,
      0,
      -1,
      1.5,
      -1e308,
      1e308,
      Number.MAX_SAFE_INTEGER + 2,
      [],
      {},
      [null],
      ['a', 'b'],
      { toString: 'x' },
    ),
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.integer({ min: 2, max: 60 }).map((depth) => nested(depth)) },
);

function nested(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let level = 0; level < depth; level += 1) value = level % 2 ? [value] : { a: value };
  return value;
}

const typesOf = (schema: JsonSchema): string[] =>
  schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];

function stringFor(schema: JsonSchema): fc.Arbitrary<string> {
  if (schema.pattern) {
    try {
      return fc.stringMatching(new RegExp(schema.pattern)).filter((value) => {
        if (schema.minLength !== undefined && value.length < schema.minLength) return false;
        return schema.maxLength === undefined || value.length <= schema.maxLength;
      });
    } catch {
      // A pattern fast-check cannot invert: fall through to plain strings.
    }
  }
  switch (schema.format) {
    case 'email':
      return fc.emailAddress();
    case 'uuid':
      return fc.uuid();
    case 'date':
      return fc
        .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
        .map((date) => date.toISOString().slice(0, 10));
    case 'date-time':
      return fc
        .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
        .map((date) => date.toISOString());
    case 'uri':
      return fc.webUrl();
  }
  return fc.string({
    minLength: schema.minLength ?? 0,
    maxLength: Math.min(schema.maxLength ?? 40, 200),
  });
}

function numberFor(schema: JsonSchema, isInteger: boolean): fc.Arbitrary<number> {
  const lowest =
    typeof schema.exclusiveMinimum === 'number'
      ? schema.exclusiveMinimum + 1
      : (schema.minimum ?? -1000);
  const highest =
    typeof schema.exclusiveMaximum === 'number'
      ? schema.exclusiveMaximum - 1
      : (schema.maximum ?? 100_000);
  const min = Math.max(lowest, -1e9);
  const max = Math.min(highest, 1e9);
  if (isInteger) return fc.integer({ min: Math.ceil(min), max: Math.floor(Math.max(min, max)) });
  return fc.double({ min, max: Math.max(min, max), noNaN: true, noDefaultInfinity: true });
}

/**
 * A value the schema would accept (as far as fast-check can tell); `known` are real values from
 * the database (a customer's id, its ICCIDs), offered where a string goes so requests get past
 * the "not yours" checks into the code behind them.
 */
export function validLooking(
  schema: JsonSchema,
  known: readonly string[] = [],
): fc.Arbitrary<unknown> {
  const choices = schema.anyOf ?? schema.oneOf;
  if (choices && choices.length > 0) {
    return fc.oneof(...choices.map((choice) => validLooking(choice, known)));
  }
  if (schema.allOf && schema.allOf.length > 0) {
    return validLooking(Object.assign({}, ...schema.allOf) as JsonSchema, known);
  }
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum && schema.enum.length > 0) return fc.constantFrom(...schema.enum);
  const types = typesOf(schema);
  const base = ((): fc.Arbitrary<unknown> => {
    const type = types.find((candidate) => candidate !== 'null') ?? inferType(schema);
    switch (type) {
      case 'string': {
        const strings = stringFor(schema);
        return known.length > 0
          ? fc.oneof(
              { weight: 3, arbitrary: strings },
              { weight: 2, arbitrary: fc.constantFrom(...known) },
            )
          : strings;
      }
      case 'integer':
        return numberFor(schema, true);
      case 'number':
        return numberFor(schema, false);
      case 'boolean':
        return fc.boolean();
      case 'array':
        return fc.array(validLooking(schema.items ?? {}, known), {
          minLength: schema.minItems ?? 0,
          maxLength: Math.min(schema.maxItems ?? 4, 8),
        });
      case 'object': {
        const properties = schema.properties ?? {};
        const required = schema.required ?? [];
        const model = Object.fromEntries(
          Object.entries(properties).map(([name, property]) => [
            name,
            validLooking(property, known),
          ]),
        );
        return fc.record(model, { requiredKeys: required.filter((name) => name in properties) });
      }
      default:
        return fc.jsonValue({ maxDepth: 2 });
    }
  })();
  return schema.nullable || types.includes('null')
    ? fc.oneof({ weight: 5, arbitrary: base }, { weight: 1, arbitrary: fc.constant(null) })
    : base;
}

function inferType(schema: JsonSchema): string | undefined {
  if (schema.properties) return 'object';
  if (schema.items) return 'array';
  if (schema.pattern || schema.format || schema.minLength !== undefined) return 'string';
  return undefined;
}

/**
 * Takes a valid-looking object and breaks it the way an attacker would: one field swapped for a
 * hostile value, a prototype key added, a field dropped, or the whole thing replaced.
 */
export function mutatedObject(valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 5, arbitrary: valid },
    {
      weight: 6,
      arbitrary: fc
        .tuple(valid, fc.nat(), hostileValue)
        .map(([value, index, hostile]) => replaceOneField(value, index, hostile)),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(valid, fc.constantFrom('__proto__', 'constructor', 'prototype'), hostileValue)
        .map(([value, key, hostile]) => withOwnKey(value, key, hostile)),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(valid, fc.nat()).map(([value, index]) => dropOneField(value, index)),
    },
    { weight: 2, arbitrary: hostileValue },
  );
}

function replaceOneField(value: unknown, index: number, hostile: unknown): unknown {
  if (!isPlainObject(value)) return hostile;
  const keys = Object.keys(value);
  if (keys.length === 0) return { ...value, x: hostile };
  const key = keys[index % keys.length]!;
  return withOwnKey(value, key, hostile);
}

function dropOneField(value: unknown, index: number): unknown {
  if (!isPlainObject(value)) return value;
  const keys = Object.keys(value);
  if (keys.length === 0) return value;
  const copy = { ...value };
  delete copy[keys[index % keys.length]!];
  return copy;
}

/** Sets an own property even for `__proto__` (which plain assignment would not). */
function withOwnKey(value: unknown, key: string, hostile: unknown): unknown {
  const target = isPlainObject(value) ? { ...value } : {};
  Object.defineProperty(target, key, {
    value: hostile,
    enumerable: true,
    writable: true,
    configurable: true,
  });
  return target;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Percent-encodes like a browser, except that a lone surrogate (which encodeURIComponent refuses)
 * goes out as its WTF-8 bytes, as a hand-made request would send it.
 */
export function encodeComponent(value: string): string {
  let encoded = '';
  for (const character of value) {
    const code = character.codePointAt(0)!;
    if (code >= 0xd800 && code <= 0xdfff) {
      encoded += [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
        .map((byte) => `%${byte.toString(16).toUpperCase()}`)
        .join('');
    } else {
      encoded += encodeURIComponent(character);
    }
  }
  return encoded;
}

/** A query string from values of any shape: arrays repeat the key, objects become JSON text. */
export function queryString(query: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const key of Object.keys(query)) {
    const value = query[key];
    const values = Array.isArray(value) ? value : [value];
    for (const item of values) {
      if (item === undefined) continue;
      const text = typeof item === 'string' ? item : JSON.stringify(item);
      parts.push(`${encodeComponent(key)}=${encodeComponent(text ?? '')}`);
    }
  }
  return parts.length === 0 ? '' : `?${parts.join('&')}`;
}

/** Raw bodies no JSON serializer would produce. */
export const brokenJson: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '{',
    '{"a":',
    '{"a":1,}',
    "{'a':1}",
    'nul',
    '\u0000',
    '{"a":"\\ud800"}',
    '{"a":"\\u0000"}',
    '{"__proto__":{"isAdmin":true}}',
    '{"constructor":{"prototype":{"isAdmin":true}}}',
    '{"a":1}{"b":2}',
    '\uFEFF{"a":1}',
    '',
  ),
  fc.integer({ min: 100, max: 20_000 }).map((depth) => '['.repeat(depth) + ']'.repeat(depth)),
  fc
    .integer({ min: 100, max: 5_000 })
    .map((depth) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)),
  fc.integer({ min: 65 * 1024, max: 200 * 1024 }).map((size) => `{"a":"${'x'.repeat(size)}"}`),
  fc.string({ unit: 'binary', maxLength: 60 }),
);

export const contentTypes = fc.oneof(
  { weight: 12, arbitrary: fc.constant('application/json') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'application/json; charset=utf-8',
      'application/json; charset=utf-16',
      'APPLICATION/JSON',
      'text/plain',
      'text/html',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/xml',
      'application/octet-stream',
      ';;;',
      'x',
      '',
    ),
  },
);
