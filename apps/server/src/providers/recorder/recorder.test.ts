/**
 * Records real clips over RTSP from the local GStreamer camera with Debian's ffmpeg, and checks
 * them with ffprobe. The camera runs on a free port of its own.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalCamera, type LocalCamera } from '../camera/local-camera.ts';
import {
  createFfmpegRecorder,
  describeFfmpegFailure,
  recordingReasons,
  RecordingError,
} from './recorder.ts';

const run = promisify(execFile);

interface Probe {
  streams: {
    codec_type: string;
    codec_name: string;
    width?: number;
    height?: number;
    duration?: string;
  }[];
  format: { duration: string; format_name: string };
}

async function probe(filePath: string): Promise<Probe> {
  const { stdout } = await run('ffprobe', [
    '-v',
    'error',
    '-show_entries',
    'stream=codec_type,codec_name,width,height,duration:format=duration,format_name',
    '-of',
    'json',
    filePath,
  ]);
  return JSON.parse(stdout) as Probe;
}

/** An RTSP server that answers every request with `status` (a camera whose service is down). */
async function rtspAnswering(
  status: string,
): Promise<{ port: number; close: () => Promise<void> }> {
  const server = net.createServer((socket) => {
    let buffer = '';
    socket.on('data', (chunk) => {
      buffer += chunk.toString('latin1');
      let end;
      while ((end = buffer.indexOf('\r\n\r\n')) >= 0) {
        const cseq = /cseq: *(\d+)/i.exec(buffer.slice(0, end))?.[1] ?? '1';
        buffer = buffer.slice(end + 4);
        socket.write(`RTSP/1.0 ${status}\r\nCSeq: ${cseq}\r\n\r\n`);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A port nobody listens on. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('describeFfmpegFailure', () => {
  it('turns what ffmpeg printed into a reason and what to do', () => {
    expect(
      describeFfmpegFailure('[rtsp @ 0x1] method DESCRIBE failed: 500 Internal Server Error'),
    ).toBe(recordingReasons.cameraBusy('500'));
    expect(describeFfmpegFailure('rtsp://h/12: Server returned 5XX Server Error reply')).toBe(
      recordingReasons.cameraBusy('5xx'),
    );
    expect(describeFfmpegFailure('method DESCRIBE failed: 401 Unauthorized')).toBe(
      recordingReasons.password,
    );
    expect(describeFfmpegFailure('method SETUP failed: 454 Session Not Found')).toBe(
      recordingReasons.cameraRefusedRequest('454'),
    );
    expect(describeFfmpegFailure('Connection to tcp://h:554 failed: Connection refused')).toBe(
      recordingReasons.refused,
    );
    expect(describeFfmpegFailure('Connection to tcp://h:554 failed: Connection timed out')).toBe(
      recordingReasons.timedOut,
    );
    expect(describeFfmpegFailure('rtsp://h/12: Invalid data found when processing input')).toBe(
      recordingReasons.unreadable,
    );
    for (const reason of [recordingReasons.cameraBusy('503'), recordingReasons.unknown]) {
      // Every reason says what to do, not only what went wrong.
      expect(reason).toMatch(/try again|contact support/i);
    }
  });
});

describe('ffmpeg recorder against the local RTSP camera', () => {
  let camera: LocalCamera;
  let rtspBase: string;
  let folder: string;
  const recorder = createFfmpegRecorder({ ffmpegPath: 'ffmpeg' });

  beforeAll(async () => {
    camera = createLocalCamera({ port: 0 });
    const address = await camera.ensureRunning();
    rtspBase = `rtsp://${address.host}:${address.port}`;
    folder = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'farmcam-recorder-'));
  });

  afterAll(async () => {
    await camera.stop();
    await fs.promises.rm(folder, { recursive: true, force: true });
  });

  it('records an SD clip of the asked length: H.264 copied, AAC audio, MP4', async () => {
    const outputPath = path.join(folder, 'with-audio.mp4');
    const { sizeBytes } = await recorder.record({
      rtspUrl: `${rtspBase}/12`,
      durationSeconds: 5,
      includeAudio: true,
      outputPath,
    });
    expect(sizeBytes).toBe((await fs.promises.stat(outputPath)).size);
    const info = await probe(outputPath);
    expect(info.format.format_name).toContain('mp4');
    const video = info.streams.find((stream) => stream.codec_type === 'video');
    // The video itself, not only the file, lasts as long as asked (decision 046).
    expect(Number(video?.duration)).toBeGreaterThan(4.85);
    expect(Number(video?.duration)).toBeLessThan(5.15);
    expect(video).toMatchObject({ codec_name: 'h264', width: 640, height: 360 });
    expect(info.streams.find((stream) => stream.codec_type === 'audio')).toMatchObject({
      codec_name: 'aac',
    });
    // +faststart: the index (moov) comes before the media data (mdat).
    const head = (await fs.promises.readFile(outputPath)).subarray(0, 4096).toString('latin1');
    expect(head.indexOf('moov')).toBeGreaterThan(-1);
    expect(head.indexOf('moov')).toBeLessThan(
      head.indexOf('mdat') === -1 ? Infinity : head.indexOf('mdat'),
    );
  }, 30_000);

  it('drops the audio unless asked for it', async () => {
    const outputPath = path.join(folder, 'silent.mp4');
    await recorder.record({
      rtspUrl: `${rtspBase}/12`,
      durationSeconds: 2,
      includeAudio: false,
      outputPath,
    });
    const info = await probe(outputPath);
    expect(info.streams.map((stream) => stream.codec_type)).toEqual(['video']);
  }, 30_000);

  it('records complete clips when several recordings overlap on one camera', async () => {
    // Recordings join a live stream at different moments; none may cut another short.
    const starts = [0, 700, 1400];
    const durations = await Promise.all(
      starts.map(async (delay, index) => {
        await new Promise((resolve) => setTimeout(resolve, delay));
        const outputPath = path.join(folder, `overlap-${index}.mp4`);
        await recorder.record({
          rtspUrl: `${rtspBase}/12`,
          durationSeconds: 3,
          includeAudio: index === 1,
          outputPath,
        });
        const info = await probe(outputPath);
        return Number(info.streams.find((stream) => stream.codec_type === 'video')?.duration);
      }),
    );
    // Those that join mid-way between key frames still hold the full length of video.
    for (const duration of durations) {
      expect(duration).toBeGreaterThan(2.85);
      expect(duration).toBeLessThan(3.15);
    }
  }, 30_000);

  it('says why when the camera has no such stream or does not answer', async () => {
    const missingPath = recorder.record({
      rtspUrl: `${rtspBase}/99`,
      durationSeconds: 2,
      includeAudio: false,
      outputPath: path.join(folder, 'missing.mp4'),
    });
    await expect(missingPath).rejects.toBeInstanceOf(RecordingError);
    await expect(missingPath).rejects.toMatchObject({
      reason: recordingReasons.notFound,
    });

    const refused = recorder.record({
      rtspUrl: `rtsp://127.0.0.1:${await closedPort()}/12`,
      durationSeconds: 2,
      includeAudio: false,
      outputPath: path.join(folder, 'refused.mp4'),
    });
    await expect(refused).rejects.toMatchObject({ reason: recordingReasons.refused });
  }, 30_000);

  it('says the camera’s video service is down, and what to do, when RTSP answers 503', async () => {
    const camera503 = await rtspAnswering('503 Service Unavailable');
    try {
      const unavailable = recorder.record({
        rtspUrl: `rtsp://127.0.0.1:${camera503.port}/12`,
        durationSeconds: 2,
        includeAudio: false,
        outputPath: path.join(folder, 'unavailable.mp4'),
      });
      await expect(unavailable).rejects.toMatchObject({
        reason: expect.stringMatching(
          /not working at the moment \(RTSP 503\)\. Restart the camera/,
        ),
      });
    } finally {
      await camera503.close();
    }
  }, 30_000);

  it('restarts the camera on the next use after it stopped', async () => {
    await camera.stop();
    const address = await camera.ensureRunning();
    rtspBase = `rtsp://${address.host}:${address.port}`;
    const outputPath = path.join(folder, 'after-restart.mp4');
    await recorder.record({
      rtspUrl: `${rtspBase}/12`,
      durationSeconds: 1,
      includeAudio: false,
      outputPath,
    });
    expect((await fs.promises.stat(outputPath)).size).toBeGreaterThan(2048);
  }, 30_000);
});
