/**
 * The local demo camera: one GStreamer RTSP server process (local-camera.py, run with Debian's
 * /usr/bin/python3) that stands in for the IP camera behind every demo SIM in local mode. It is
 * started on first use, restarted on the next use if it died, and stopped with the app; the
 * child also exits by itself when our end of its standard input closes (we crashed).
 *
 * ffmpeg cannot serve RTSP and the npm RTSP servers fail over TCP (DESIGN §6), hence GStreamer.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface LocalCameraAddress {
  host: string;
  port: number;
}

export interface LocalCamera {
  /** Starts the camera if needed; resolves with where its RTSP server listens. */
  ensureRunning(): Promise<LocalCameraAddress>;
  /** Stops the camera process (if running) and waits for it to exit. */
  stop(): Promise<void>;
}

export interface LocalCameraOptions {
  /** Port to listen on; 0 picks a free one. */
  port: number;
  host?: string;
  /** Debian's python with GStreamer bindings; a pyenv `python3` on PATH usually lacks them. */
  pythonPath?: string;
  /** When `port` is taken (another portal on this machine), listen on a free one instead. */
  isFallbackToFreePort?: boolean;
  log?: { info(message: string): void; warn(message: string): void };
}

export const localCameraScript = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  'local-camera.py',
);

const startTimeoutMs = 20_000;

export function createLocalCamera(options: LocalCameraOptions): LocalCamera {
  const host = options.host ?? '127.0.0.1';
  let running: Promise<{ child: ChildProcess; address: LocalCameraAddress }> | undefined;

  function start(): Promise<{ child: ChildProcess; address: LocalCameraAddress }> {
    const attempt = spawnCamera(options.port).catch((error: unknown) => {
      if (!options.isFallbackToFreePort || options.port === 0) throw error;
      options.log?.warn(`${(error as Error).message}; the local camera takes a free port instead`);
      return spawnCamera(0);
    });
    // Only this attempt's own end may clear it: a stop() and a new start may have come between.
    const forget = () => {
      if (running === attempt) running = undefined;
    };
    attempt.then(({ child }) => child.once('exit', forget), forget);
    return attempt;
  }

  function spawnCamera(
    port: number,
  ): Promise<{ child: ChildProcess; address: LocalCameraAddress }> {
    return new Promise<{ child: ChildProcess; address: LocalCameraAddress }>((resolve, reject) => {
      const child = spawn(
        options.pythonPath ?? '/usr/bin/python3',
        [localCameraScript, '--port', String(port), '--host', host],
        { stdio: ['pipe', 'pipe', 'pipe'] },
      );
      let output = '';
      let errors = '';
      let isReady = false;
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`The local camera did not start within ${startTimeoutMs / 1000} s`));
      }, startTimeoutMs);

      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk: string) => {
        output += chunk;
        const ready = /READY (\d+)/.exec(output);
        if (ready && !isReady) {
          isReady = true;
          clearTimeout(timer);
          const address = { host, port: Number(ready[1]) };
          options.log?.info(`Local camera listening on rtsp://${host}:${address.port}`);
          resolve({ child, address });
        }
      });
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (chunk: string) => {
        errors = (errors + chunk).slice(-2000);
      });
      child.on('error', (error) => {
        clearTimeout(timer);
        reject(new Error(`The local camera could not start: ${error.message}`));
      });
      child.on('exit', (code, signal) => {
        clearTimeout(timer);
        if (!isReady) {
          const failure = /FAILED (.*)/.exec(output)?.[1] ?? errors.trim().split('\n').at(-1);
          reject(new Error(`The local camera could not start: ${failure ?? `exit ${code}`}`));
        } else if (signal !== 'SIGTERM') {
          options.log?.warn(`The local camera stopped (${signal ?? `exit ${code}`})`);
        }
      });
    });
  }

  return {
    async ensureRunning() {
      running ??= start();
      return (await running).address;
    },

    async stop() {
      const current = running;
      running = undefined;
      if (!current) return;
      let child: ChildProcess;
      try {
        ({ child } = await current);
      } catch {
        return;
      }
      if (child.exitCode !== null || child.signalCode !== null) return;
      await new Promise<void>((resolve) => {
        const forceKill = setTimeout(() => child.kill('SIGKILL'), 5000);
        child.once('exit', () => {
          clearTimeout(forceKill);
          resolve();
        });
        child.kill('SIGTERM');
      });
    },
  };
}
