/**
 * A small S3-compatible server for tests and benchmarks: path-style PutObject, GetObject (with
 * ranges), HeadObject and DeleteObject on one bucket, kept in memory. It checks AWS Signature
 * Version 4 the way S3 does, for signed requests and for presigned URLs (including their
 * expiry), so an adapter that signs wrongly, or a URL used after it expired, is refused.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeS3Object {
  body: Buffer;
  contentType: string;
  cacheControl: string | undefined;
}

export interface FakeS3Server {
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  objects: Map<string, FakeS3Object>;
  /** Requests seen, e.g. "PUT /clips/key", newest last. */
  requests: string[];
  close(): Promise<void>;
}

const sha256Hex = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) =>
  createHmac('sha256', key).update(data).digest();

/** RFC 3986 encoding, as SigV4 wants it. */
const encodeRfc3986 = (value: string) =>
  encodeURIComponent(value).replace(
    /[!'()*]/g,
    (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`,
  );

function errorXml(code: string, message: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`;
}

/** Parses `20260310T120000Z`. */
function parseAmzDate(text: string): Date | null {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(text);
  if (!match) return null;
  const [, year, month, day, hour, minute, second] = match.map(Number) as number[];
  return new Date(Date.UTC(year!, month! - 1, day!, hour!, minute!, second!));
}

interface SignatureInput {
  method: string;
  rawPath: string;
  query: [string, string][];
  headers: http.IncomingHttpHeaders;
  signedHeaders: string[];
  payloadHash: string;
  amzDate: string;
  scope: string;
}

function expectedSignature(secretAccessKey: string, input: SignatureInput): string {
  const canonicalQuery = input.query
    .map(([key, value]) => [encodeRfc3986(key), encodeRfc3986(value)] as const)
    .sort(([keyA, valueA], [keyB, valueB]) =>
      keyA === keyB ? (valueA < valueB ? -1 : 1) : keyA < keyB ? -1 : 1,
    )
    .map(([key, value]) => `${key}=${value}`)
    .join('&');
  const canonicalHeaders = input.signedHeaders
    .map((name) => {
      const value = input.headers[name];
      const text = Array.isArray(value) ? value.join(',') : (value ?? '');
      return `${name}:${text.trim().replace(/\s+/g, ' ')}\n`;
    })
    .join('');
  const canonicalRequest = [
    input.method,
    input.rawPath,
    canonicalQuery,
    canonicalHeaders,
    input.signedHeaders.join(';'),
    input.payloadHash,
  ].join('\n');
  const stringToSign = [
    'AWS4-HMAC-SHA256',
    input.amzDate,
    input.scope,
    sha256Hex(canonicalRequest),
  ].join('\n');
  const [date, region, service] = input.scope.split('/');
  const signingKey = hmac(
    hmac(hmac(hmac(`AWS4${secretAccessKey}`, date!), region!), service!),
    'aws4_request',
  );
  return createHmac('sha256', signingKey).update(stringToSign).digest('hex');
}

function signaturesMatch(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

export async function startFakeS3Server(
  options: {
    bucket?: string;
    accessKeyId?: string;
    secretAccessKey?: string;
    region?: string;
    /**
     * The server's idea of now for presigned URLs (their expiry), so tests set it with the app's
     * clock; the wall clock by default. Header-signed calls are signed by the SDK with the
     * machine's clock, so their skew is checked against that clock, as S3 does.
     */
    now?: () => Date;
  } = {},
): Promise<FakeS3Server> {
  const bucket = options.bucket ?? 'clips';
  const accessKeyId = options.accessKeyId ?? 'FAKEACCESSKEY';
  const secretAccessKey = options.secretAccessKey ?? 'fake-secret-access-key';
  const region = options.region ?? 'eu-west-2';
  const now = options.now ?? (() => new Date());
  const objects = new Map<string, FakeS3Object>();
  const requests: string[] = [];

  /** Null when the request is properly signed, else the S3 error it gets. */
  function authenticate(
    request: http.IncomingMessage,
    rawPath: string,
    query: [string, string][],
    body: Buffer,
  ): { status: number; code: string; message: string } | null {
    const queryMap = new Map(query);
    const denied = (code: string, message: string) => ({ status: 403, code, message });
    let credential: string;
    let signedHeaders: string[];
    let signature: string;
    let amzDate: string;
    let payloadHash: string;
    let signedQuery = query;

    if (queryMap.has('X-Amz-Signature')) {
      if (queryMap.get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256') {
        return denied('AuthorizationQueryParametersError', 'Unsupported algorithm');
      }
      credential = queryMap.get('X-Amz-Credential') ?? '';
      signedHeaders = (queryMap.get('X-Amz-SignedHeaders') ?? '').split(';');
      signature = queryMap.get('X-Amz-Signature') ?? '';
      amzDate = queryMap.get('X-Amz-Date') ?? '';
      payloadHash = 'UNSIGNED-PAYLOAD';
      signedQuery = query.filter(([key]) => key !== 'X-Amz-Signature');
      const signedAt = parseAmzDate(amzDate);
      const expiresIn = Number(queryMap.get('X-Amz-Expires'));
      if (!signedAt || !Number.isInteger(expiresIn) || expiresIn > 604_800) {
        return denied('AuthorizationQueryParametersError', 'Bad X-Amz-Date or X-Amz-Expires');
      }
      if (signedAt.getTime() + expiresIn * 1000 < now().getTime()) {
        return denied('AccessDenied', 'Request has expired');
      }
    } else {
      const header = request.headers.authorization ?? '';
      const match =
        /^AWS4-HMAC-SHA256 Credential=([^,]+), ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]+)$/.exec(
          header,
        );
      if (!match) return denied('AccessDenied', 'Anonymous access is not allowed');
      credential = match[1]!;
      signedHeaders = match[2]!.split(';');
      signature = match[3]!;
      amzDate = String(request.headers['x-amz-date'] ?? '');
      payloadHash = String(request.headers['x-amz-content-sha256'] ?? '');
      if (payloadHash.startsWith('STREAMING-')) {
        return {
          status: 501,
          code: 'NotImplemented',
          message: 'Chunked uploads are not supported',
        };
      }
      if (payloadHash !== 'UNSIGNED-PAYLOAD' && payloadHash !== sha256Hex(body)) {
        return { status: 400, code: 'XAmzContentSHA256Mismatch', message: 'Payload hash' };
      }
      const signedAt = parseAmzDate(amzDate);
      if (!signedAt || Math.abs(signedAt.getTime() - Date.now()) > 15 * 60_000) {
        return denied('RequestTimeTooSkewed', 'The request time is too far from ours');
      }
    }

    const [key, ...scopeParts] = credential.split('/');
    const scope = scopeParts.join('/');
    if (key !== accessKeyId) return denied('InvalidAccessKeyId', 'Unknown access key');
    if (scopeParts[1] !== region || scopeParts[2] !== 's3' || scopeParts[3] !== 'aws4_request') {
      return denied('AuthorizationHeaderMalformed', `Wrong scope ${scope}`);
    }
    if (!signedHeaders.includes('host')) return denied('AccessDenied', 'host must be signed');
    const expected = expectedSignature(secretAccessKey, {
      method: request.method ?? 'GET',
      rawPath,
      query: signedQuery,
      headers: request.headers,
      signedHeaders,
      payloadHash,
      amzDate,
      scope,
    });
    if (!signaturesMatch(expected, signature)) {
      return denied('SignatureDoesNotMatch', 'The signature does not match');
    }
    return null;
  }

  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const [rawPath = '/', rawQuery = ''] = (request.url ?? '/').split('?');
      const query = rawQuery
        .split('&')
        .filter((pair) => pair !== '')
        .map((pair) => {
          const [key = '', value = ''] = pair.split('=');
          return [decodeURIComponent(key), decodeURIComponent(value.replace(/\+/g, ' '))] as [
            string,
            string,
          ];
        });
      requests.push(`${request.method} ${rawPath}`);
      const send = (status: number, headers: Record<string, string>, payload?: Buffer | string) => {
        response.writeHead(status, headers);
        response.end(request.method === 'HEAD' ? undefined : payload);
      };
      const fail = (status: number, code: string, message: string) =>
        send(status, { 'content-type': 'application/xml' }, errorXml(code, message));

      const refusal = authenticate(request, rawPath, query, body);
      if (refusal) return fail(refusal.status, refusal.code, refusal.message);

      const segments = rawPath.split('/').slice(1);
      if (segments[0] !== bucket) return fail(404, 'NoSuchBucket', 'No such bucket');
      const key = decodeURIComponent(segments.slice(1).join('/'));
      if (key === '') return fail(400, 'InvalidRequest', 'Bucket operations are not supported');

      switch (request.method) {
        case 'PUT': {
          const length = Number(request.headers['content-length']);
          if (Number.isInteger(length) && length !== body.length) {
            return fail(400, 'IncompleteBody', 'Body shorter than Content-Length');
          }
          objects.set(key, {
            body,
            contentType: String(request.headers['content-type'] ?? 'binary/octet-stream'),
            cacheControl: request.headers['cache-control'],
          });
          return send(200, { etag: `"${createHash('md5').update(body).digest('hex')}"` });
        }
        case 'GET':
        case 'HEAD': {
          const object = objects.get(key);
          if (!object) return fail(404, 'NoSuchKey', 'The specified key does not exist.');
          const headers: Record<string, string> = {
            'content-type': object.contentType,
            'accept-ranges': 'bytes',
            ...(object.cacheControl ? { 'cache-control': object.cacheControl } : {}),
          };
          const range = /^bytes=(\d+)-(\d*)$/.exec(String(request.headers.range ?? ''));
          if (range) {
            const start = Number(range[1]);
            const end = range[2]
              ? Math.min(Number(range[2]), object.body.length - 1)
              : object.body.length - 1;
            const part = object.body.subarray(start, end + 1);
            return send(
              206,
              {
                ...headers,
                'content-range': `bytes ${start}-${end}/${object.body.length}`,
                'content-length': String(part.length),
              },
              part,
            );
          }
          return send(
            200,
            { ...headers, 'content-length': String(object.body.length) },
            object.body,
          );
        }
        case 'DELETE':
          objects.delete(key);
          return send(204, {});
        default:
          return fail(405, 'MethodNotAllowed', 'Method not allowed');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    accessKeyId,
    secretAccessKey,
    objects,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
