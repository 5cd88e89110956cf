/**
 * Test support: a local fake of Ofcom's Connected Nations mobile coverage API, answering like the
 * live one (`GET /mobile/coverage/{PostCode}` behind the `Ocp-Apim-Subscription-Key` gateway,
 * a single `{ PostCode, DBName, Availability }` envelope, `{ PostCode, Error }` for an unknown
 * postcode, the gateway's `{ statusCode, message }` for a missing key or an unknown path). Tests
 * script failures (429, 500, slow answers) ahead of the next calls.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type OfcomOperatorCode = 'EE' | 'H3' | 'TF' | 'VO';

/** [outdoor, indoor] data levels per operator. */
export type FakeLevels = Partial<Record<OfcomOperatorCode, [number | null, number | null]>>;

export interface FakeAddress {
  uprn: number;
  description: string;
  data: FakeLevels;
}

export interface ScriptedAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** Wait this long before answering (to trip the caller's time-out). */
  delayMs?: number;
}

export interface FakeOfcomApi {
  /** Base URL to give the adapter, like https://api-proxy.ofcom.org.uk. */
  url: string;
  apiKey: string;
  /** Every call received, in order. */
  calls: { path: string; postcode: string | null; apiKey: string | undefined }[];
  setAddresses(postcode: string, addresses: FakeAddress[]): void;
  /** Answers the next calls with these, in order, before normal service resumes. */
  script(...answers: ScriptedAnswer[]): void;
  /** Answer with the array form Ofcom's OpenAPI document describes instead of the live form. */
  answerAsArray(isArray: boolean): void;
  close(): Promise<void>;
}

const operators: OfcomOperatorCode[] = ['EE', 'H3', 'TF', 'VO'];

/**
 * One address as Ofcom sends it: all 32 fields. Voice and No4g fields get values that differ from
 * the data fields, so a test notices if the wrong ones are read.
 */
export function ofcomProvision(postcode: string, address: FakeAddress): Record<string, unknown> {
  const record: Record<string, unknown> = {
    UPRN: address.uprn,
    AddressShortDescription: address.description,
    PostCode: postcode,
  };
  for (const operator of operators) {
    const [outdoor, indoor] = address.data[operator] ?? [0, 0];
    record[`${operator}DataOutdoor`] = outdoor;
    record[`${operator}DataIndoor`] = indoor;
    record[`${operator}DataOutdoorNo4g`] = 0;
    record[`${operator}DataIndoorNo4g`] = 0;
    record[`${operator}VoiceOutdoor`] = outdoor === 4 ? 3 : 4;
    record[`${operator}VoiceIndoor`] = indoor === 4 ? 3 : 4;
    record[`${operator}VoiceOutdoorNo4g`] = 4;
    record[`${operator}VoiceIndoorNo4g`] = 4;
  }
  return record;
}

function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  response.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  response.end(body === undefined ? '' : JSON.stringify(body));
}

export async function startFakeOfcomApi(apiKey = 'fake-ofcom-key'): Promise<FakeOfcomApi> {
  const addressesByPostcode = new Map<string, FakeAddress[]>();
  const scripted: ScriptedAnswer[] = [];
  const calls: FakeOfcomApi['calls'] = [];
  let isArrayForm = false;

  async function handle(request: IncomingMessage, response: ServerResponse) {
    const path = new URL(request.url ?? '/', 'http://fake').pathname;
    const match = /^\/mobile\/coverage\/([^/]+)$/.exec(path);
    const keyHeader = request.headers['ocp-apim-subscription-key'];
    const sentKey = Array.isArray(keyHeader) ? keyHeader[0] : keyHeader;
    calls.push({ path, postcode: match ? decodeURIComponent(match[1]!) : null, apiKey: sentKey });

    if (sentKey !== apiKey) {
      sendJson(response, 401, {
        statusCode: 401,
        message:
          'Access denied due to missing subscription key. Make sure to include subscription key when making requests to an API.',
      });
      return;
    }
    const answer = scripted.shift();
    if (answer) {
      if (answer.delayMs) await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
      if (!response.destroyed) sendJson(response, answer.status, answer.body, answer.headers);
      return;
    }
    if (request.method !== 'GET' || !match) {
      sendJson(response, 404, { statusCode: 404, message: 'Resource not found' });
      return;
    }
    const postcode = decodeURIComponent(match[1]!);
    const addresses = addressesByPostcode.get(postcode);
    if (!addresses) {
      sendJson(response, 404, { PostCode: postcode, Error: 'Post Code not found' });
      return;
    }
    const envelope = {
      PostCode: postcode,
      DBName: 'ConnectedNations_Mobile_Fake',
      Availability: addresses.map((address) => ofcomProvision(postcode, address)),
    };
    sendJson(response, 200, isArrayForm ? [envelope] : envelope);
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      sendJson(response, 500, { Error: String(error) });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    apiKey,
    calls,
    setAddresses: (postcode, addresses) => addressesByPostcode.set(postcode, addresses),
    script: (...answers) => scripted.push(...answers),
    answerAsArray: (isArray) => {
      isArrayForm = isArray;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
