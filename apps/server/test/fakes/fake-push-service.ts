/**
 * A push service for tests (decision 123), written from the RFCs with Node's crypto and nothing
 * of `web-push`: it checks each request's VAPID authorisation (RFC 8292: an ES256 JWT whose `aud`
 * is this origin, `exp` within 24 hours, a `sub`, signed by the key in `k`) and decrypts its
 * aes128gcm body (RFC 8188 records, RFC 8291 keys) with the subscription's private key and auth
 * secret, as a browser would. Endpoints can be made to answer 404, 410 or 500.
 */
import {
  createECDH,
  createDecipheriv,
  createPublicKey,
  hkdfSync,
  randomBytes,
  verify,
} from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface FakeSubscription {
  endpoint: string;
  /** What a browser's PushSubscription.toJSON() gives (base64url). */
  keys: { p256dh: string; auth: string };
}

export interface ReceivedPush {
  endpoint: string;
  ttl: number;
  urgency: string | undefined;
  /** The JWT's claims, once its signature was checked. */
  claims: { aud: string; exp: number; sub: string };
  vapidPublicKey: string;
  payload: string;
}

const fromBase64Url = (text: string) => Buffer.from(text, 'base64url');

/** The uncompressed P-256 point (65 bytes) as a KeyObject, to check an ES256 signature. */
function publicKeyFromPoint(point: Buffer) {
  return createPublicKey({
    key: {
      kty: 'EC',
      crv: 'P-256',
      x: point.subarray(1, 33).toString('base64url'),
      y: point.subarray(33, 65).toString('base64url'),
    },
    format: 'jwk',
  });
}

/** RFC 8292 §2: `vapid t=<JWT>, k=<public key>`; throws a sentence when it is not right. */
function checkVapid(header: string | undefined, origin: string, now: number) {
  const match = header?.match(/^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/);
  if (!match) throw new Error('no vapid authorization');
  const [, token, key] = match as unknown as [string, string, string];
  const [headerPart, claimsPart, signaturePart] = token.split('.');
  if (!headerPart || !claimsPart || !signaturePart) throw new Error('not a JWT');
  const jwtHeader = JSON.parse(fromBase64Url(headerPart).toString()) as { alg?: string };
  if (jwtHeader.alg !== 'ES256') throw new Error('not ES256');
  const isSigned = verify(
    'sha256',
    Buffer.from(`${headerPart}.${claimsPart}`),
    { key: publicKeyFromPoint(fromBase64Url(key)), dsaEncoding: 'ieee-p1363' },
    fromBase64Url(signaturePart),
  );
  if (!isSigned) throw new Error('bad signature');
  const claims = JSON.parse(fromBase64Url(claimsPart).toString()) as ReceivedPush['claims'];
  if (claims.aud !== origin) throw new Error(`aud ${claims.aud} is not ${origin}`);
  if (!(claims.exp > now / 1000 && claims.exp <= now / 1000 + 24 * 3600)) {
    throw new Error('exp out of range');
  }
  if (!claims.sub || !/^(mailto:|https:)/.test(claims.sub)) throw new Error('no sub');
  return { claims, vapidPublicKey: key };
}

/** RFC 8291 §3.4 and RFC 8188 §2: one aes128gcm record, decrypted with the receiver's keys. */
function decrypt(body: Buffer, receiver: { privateKey: Buffer; publicKey: Buffer; auth: Buffer }) {
  const salt = body.subarray(0, 16);
  const idLength = body.readUInt8(20);
  const senderPublicKey = body.subarray(21, 21 + idLength);
  const record = body.subarray(21 + idLength);
  const ecdh = createECDH('prime256v1');
  ecdh.setPrivateKey(receiver.privateKey);
  const sharedSecret = ecdh.computeSecret(senderPublicKey);
  const keyInfo = Buffer.concat([
    Buffer.from('WebPush: info\0'),
    receiver.publicKey,
    senderPublicKey,
  ]);
  const inputKey = Buffer.from(hkdfSync('sha256', sharedSecret, receiver.auth, keyInfo, 32));
  const contentKey = Buffer.from(
    hkdfSync('sha256', inputKey, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16),
  );
  const nonce = Buffer.from(
    hkdfSync('sha256', inputKey, salt, Buffer.from('Content-Encoding: nonce\0'), 12),
  );
  const decipher = createDecipheriv('aes-128-gcm', contentKey, nonce);
  decipher.setAuthTag(record.subarray(record.length - 16));
  const padded = Buffer.concat([
    decipher.update(record.subarray(0, record.length - 16)),
    decipher.final(),
  ]);
  // The last record ends with the delimiter 0x02, then zero padding.
  const end = padded.lastIndexOf(2);
  if (end < 0 || padded.subarray(end + 1).some((byte) => byte !== 0)) {
    throw new Error('no last-record delimiter');
  }
  return padded.subarray(0, end).toString('utf8');
}

/**
 * A self-signed certificate for 127.0.0.1: push services are HTTPS (web-push speaks nothing
 * else), so the test's sender trusts this one through its agent (or a server process through
 * NODE_EXTRA_CA_CERTS, as the journeys' server does).
 */
export function selfSignedCertificate(): { key: string; cert: string } {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'fake-push-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        path.join(folder, 'key.pem'),
        '-out',
        path.join(folder, 'cert.pem'),
      ],
      { stdio: 'pipe' },
    );
    return {
      key: fs.readFileSync(path.join(folder, 'key.pem'), 'utf8'),
      cert: fs.readFileSync(path.join(folder, 'cert.pem'), 'utf8'),
    };
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

export async function startFakePushService(options: { tls?: { key: string; cert: string } } = {}) {
  const tls = options.tls ?? selfSignedCertificate();
  const receivers = new Map<string, { privateKey: Buffer; publicKey: Buffer; auth: Buffer }>();
  const answers = new Map<string, number>();
  const received: ReceivedPush[] = [];
  const refused: { endpoint: string; reason: string }[] = [];
  let origin = '';

  const server = https.createServer(tls, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const endpoint = `${origin}${request.url}`;
      const answer = answers.get(endpoint);
      if (answer) {
        response.writeHead(answer).end();
        return;
      }
      const receiver = receivers.get(endpoint);
      try {
        if (request.method !== 'POST' || !receiver) throw new Error('unknown subscription');
        if (request.headers['content-encoding'] !== 'aes128gcm') throw new Error('not aes128gcm');
        const ttl = Number(request.headers.ttl);
        if (!Number.isInteger(ttl) || ttl < 0) throw new Error('no TTL');
        const { claims, vapidPublicKey } = checkVapid(
          request.headers.authorization,
          origin,
          Date.now(),
        );
        const payload = decrypt(Buffer.concat(chunks), receiver);
        const urgency = request.headers.urgency;
        received.push({
          endpoint,
          ttl,
          urgency: typeof urgency === 'string' ? urgency : undefined,
          claims,
          vapidPublicKey,
          payload,
        });
        response.writeHead(201, { location: `${endpoint}/messages/${received.length}` }).end();
      } catch (error) {
        refused.push({ endpoint, reason: (error as Error).message });
        response.writeHead(400).end((error as Error).message);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    origin,
    /** An agent that trusts this service's certificate, for the sender under test. */
    agent: new https.Agent({ ca: tls.cert }),
    received,
    refused,
    /** A browser's subscription: its own P-256 key pair and auth secret, kept here to decrypt. */
    subscribe(): FakeSubscription {
      const ecdh = createECDH('prime256v1');
      const publicKey = ecdh.generateKeys();
      const auth = randomBytes(16);
      const endpoint = `${origin}/push/${randomBytes(12).toString('hex')}`;
      receivers.set(endpoint, { privateKey: ecdh.getPrivateKey(), publicKey, auth });
      return {
        endpoint,
        keys: { p256dh: publicKey.toString('base64url'), auth: auth.toString('base64url') },
      };
    },
    /** The endpoint answers this status from now on (404/410: gone; 503: failing; 0: works). */
    answerWith(endpoint: string, status: number) {
      if (status === 0) answers.delete(endpoint);
      else answers.set(endpoint, status);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type FakePushService = Awaited<ReturnType<typeof startFakePushService>>;
