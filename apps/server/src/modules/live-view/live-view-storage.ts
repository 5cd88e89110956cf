/**
 * Where a live view's files live in storage (decision 155): `live/<session>/<generation>/<name>`,
 * a folder per pull, so a worker taking a camera over never writes over its predecessor's files.
 */
import { assertStorageKey } from '../../providers/storage/storage.ts';

const fileNamePattern = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,80}$/;

export function segmentKey(session: { id: string; generation: number }, fileName: string): string {
  if (!fileNamePattern.test(fileName)) throw new Error(`Not a live file name: ${fileName}`);
  const key = `live/${session.id}/${session.generation}/${fileName}`;
  assertStorageKey(key);
  return key;
}

/** Content types of the files ffmpeg's HLS muxer writes. */
export function liveContentType(fileName: string): string {
  if (fileName.endsWith('.m4s')) return 'video/iso.segment';
  if (fileName.endsWith('.jpg')) return 'image/jpeg';
  return 'video/mp4';
}
