/**
 * A local S3-compatible server for tests: s3rver (github.com/jamhall/s3rver), a maintained S3
 * implementation we did not write, on a random port with one bucket, its objects in a temporary
 * folder that goes when it closes (docs/decisions/080).
 *
 * What s3rver checks and what it does not: it refuses unknown access key ids, header-signed
 * requests more than 15 minutes from its clock and presigned URLs after their expiry (both by
 * `Date`, so a test moves its clock with `vi.setSystemTime`); it does not recompute SigV4
 * signatures, so a wrong secret or a tampered URL is accepted. It stores PutObject bodies as sent,
 * so an `aws-chunked` body would be stored with its chunk framing (see s3-storage.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import S3rver from 's3rver';

export interface TestS3Server {
  endpoint: string;
  bucket: string;
  region: string;
  /** s3rver's one built-in account. */
  accessKeyId: string;
  secretAccessKey: string;
  /**
   * While true every request is cut off (its connection reset), as when the bucket's endpoint
   * cannot be reached: a storage outage. Objects stored before are kept.
   */
  setUnreachable(isUnreachable: boolean): void;
  close(): Promise<void>;
}

export async function startTestS3Server(bucket = 'clips'): Promise<TestS3Server> {
  const directory = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'farmcam-s3rver-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    // Path-style only, as the adapter addresses custom endpoints.
    vhostBuckets: false,
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  const { port } = (await server.run()) as AddressInfo;
  // Node stamps its own Date header, from a clock a test's vi.setSystemTime does not move; the SDK
  // corrects its signing clock by that header, so it would sign at a time s3rver (judging by the
  // moved `Date`) calls skewed. The header follows the same clock as s3rver's checks instead.
  const handlers = server.httpServer.listeners('request') as ((...args: unknown[]) => void)[];
  server.httpServer.removeAllListeners('request');
  let isUnreachable = false;
  server.httpServer.on('request', (request, response) => {
    if (isUnreachable) {
      request.socket.destroy();
      return;
    }
    response.setHeader('date', new Date().toUTCString());
    for (const handler of handlers) handler.call(server.httpServer, request, response);
  });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    region: 'eu-west-2',
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    setUnreachable(value) {
      isUnreachable = value;
    },
    async close() {
      await server.close();
      await fs.promises.rm(directory, { recursive: true, force: true });
    },
  };
}
