/**
 * The local demo camera: one GStreamer RTSP server process (local-camera.py, run with Debian's
 * /usr/bin/python3) that stands in for the IP camera behind every demo SIM in local mode. It is
 * started on first use, restarted on the next use if it died, and stopped with the app; the
 * child also exits by itself when our end of its standard input closes (we crashed).
 *
 * ffmpeg cannot serve RTSP and the npm RTSP servers fail over TCP (DESIGN §6), hence GStreamer.
 * What it needs from the machine is listed once, in system-requirements.json: check() asks the
 * script to look each item up, so the app can say what is missing instead of failing silently
 * (docs/decisions/060).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface LocalCameraAddress {
  host: string;
  port: number;
}

/** `file`: a file the app reads at that path (a font), checked by scripts/ensure-system-deps.sh. */
export type RequirementKind = 'binary' | 'file' | 'python-module' | 'typelib' | 'element';

export interface SystemRequirement {
  kind: RequirementKind;
  name: string;
  /** The Debian package that brings it. */
  package: string;
  for: 'camera' | 'recorder' | 'backup' | 'tests' | 'bench';
}

export interface LocalCameraStatus {
  /** Null when the camera can run; else a plain sentence: what is missing, what to install. */
  problem: string | null;
  /** What is missing. */
  missing: SystemRequirement[];
  /** The Debian packages to install: those of the missing items, and of what could not be looked up for want of them. */
  packages: string[];
}

/** The machine lacks what the camera needs; the message says what and which packages bring it. */
export class LocalCameraUnavailableError extends Error {
  override name = 'LocalCameraUnavailableError';
}

export interface LocalCamera {
  /** Whether this machine has what the camera needs (looked up again while it does not). */
  check(): Promise<LocalCameraStatus>;
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
  /** Another requirements list (tests). */
  requirementsPath?: string;
  log?: { info(message: string): void; warn(message: string): void };
}

export const localCameraScript = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  'local-camera.py',
);

export const systemRequirementsFile = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  'system-requirements.json',
);

const startTimeoutMs = 20_000;
const checkTimeoutMs = 20_000;
/** While something is missing, look again at most this often (someone may be installing it). */
const recheckAfterMs = 30_000;

export function readSystemRequirements(file = systemRequirementsFile): SystemRequirement[] {
  return (JSON.parse(readFileSync(file, 'utf8')) as { requirements: SystemRequirement[] })
    .requirements;
}

/** How a group of missing requirements of one kind reads, e.g. "GStreamer's clockoverlay, x264enc". */
const labelOf = (kind: RequirementKind, names: string[]) => {
  switch (kind) {
    case 'element':
      return `GStreamer's ${names.join(', ')}`;
    case 'typelib':
      return `the ${names.join(', ')} GObject bindings`;
    case 'python-module':
      return `Python's ${names.join(', ')} ${names.length === 1 ? 'module' : 'modules'}`;
    case 'binary':
    case 'file':
      return names.map((name) => path.basename(name)).join(', ');
  }
};

const listed = (words: string[]) =>
  words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;

const kindsInOrder: RequirementKind[] = ['binary', 'python-module', 'typelib', 'element'];

/** The sentence the log and the livestream pages show. */
export function describeMissing(missing: SystemRequirement[], packages: string[]): string {
  const groups = kindsInOrder.flatMap((kind) => {
    const names = missing.filter((entry) => entry.kind === kind).map((entry) => entry.name);
    return names.length > 0 ? [labelOf(kind, names)] : [];
  });
  const verb = missing.length === 1 ? 'is' : 'are';
  return `The demo camera cannot run on this server: ${listed(groups)} ${verb} missing (install ${packages.join(' ')}).`;
}

/**
 * Asks local-camera.py --check what this machine lacks: lines "MISSING|UNCHECKED kind name
 * package"; no Python at all leaves everything else unchecked.
 */
export async function checkLocalCameraRequirements(
  options: Pick<LocalCameraOptions, 'pythonPath' | 'requirementsPath'> = {},
): Promise<LocalCameraStatus> {
  const requirementsPath = options.requirementsPath ?? systemRequirementsFile;
  const pythonPath = options.pythonPath ?? '/usr/bin/python3';
  const cameraRequirements = readSystemRequirements(requirementsPath).filter(
    (requirement) => requirement.for === 'camera',
  );
  const result = await new Promise<{ code: number | string | null; output: string }>((resolve) => {
    execFile(
      pythonPath,
      [localCameraScript, '--check', '--requirements', requirementsPath],
      { timeout: checkTimeoutMs },
      (error, stdout, stderr) =>
        resolve({
          code: error ? ((error as NodeJS.ErrnoException).code ?? null) : 0,
          output: `${stdout}${stderr}`,
        }),
    );
  });
  let missing: SystemRequirement[];
  let unchecked: SystemRequirement[] = [];
  if (result.code === 'ENOENT') {
    const python = cameraRequirements.find((requirement) => requirement.name === pythonPath);
    missing = [python ?? { kind: 'binary', name: pythonPath, package: 'python3', for: 'camera' }];
    unchecked = cameraRequirements.filter((requirement) => requirement !== python);
  } else if (result.code === 0 || result.code === 2) {
    const parse = (status: string) =>
      [...result.output.matchAll(new RegExp(`^${status} (\\S+) (\\S+) (\\S+)$`, 'gm'))].map(
        ([, kind, name, packageName]): SystemRequirement => ({
          kind: kind as RequirementKind,
          name: name!,
          package: packageName!,
          for: 'camera',
        }),
      );
    missing = parse('MISSING');
    unchecked = parse('UNCHECKED');
  } else {
    const why = result.output.trim().split('\n').at(-1) || `exit ${String(result.code)}`;
    return {
      problem: `The demo camera cannot run on this server: its requirement check failed (${why}).`,
      missing: [],
      packages: [],
    };
  }
  if (missing.length === 0) return { problem: null, missing: [], packages: [] };
  const packages = [...new Set([...missing, ...unchecked].map((entry) => entry.package))];
  return { problem: describeMissing(missing, packages), missing, packages };
}

export function createLocalCamera(options: LocalCameraOptions): LocalCamera {
  const host = options.host ?? '127.0.0.1';
  let running: Promise<{ child: ChildProcess; address: LocalCameraAddress }> | undefined;
  let checked: { status: Promise<LocalCameraStatus>; at: number } | undefined;

  /** A good answer stays good; while something is missing it is looked up again now and then. */
  async function check(): Promise<LocalCameraStatus> {
    const previous = checked;
    if (previous) {
      const status = await previous.status;
      if (status.problem === null || performance.now() - previous.at < recheckAfterMs) {
        return status;
      }
      const latest = checked;
      if (latest && latest !== previous) return latest.status;
    }
    checked = { status: checkLocalCameraRequirements(options), at: performance.now() };
    return checked.status;
  }

  function start(): Promise<{ child: ChildProcess; address: LocalCameraAddress }> {
    const attempt = (async () => {
      // A missing package is said plainly, not as GStreamer's error from deep in a pipeline.
      const { problem } = await check();
      if (problem) throw new LocalCameraUnavailableError(problem);
      return spawnCamera(options.port).catch((error: unknown) => {
        if (!options.isFallbackToFreePort || options.port === 0) throw error;
        options.log?.warn(
          `${(error as Error).message}; the local camera takes a free port instead`,
        );
        return spawnCamera(0);
      });
    })();
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
        [
          localCameraScript,
          '--port',
          String(port),
          '--host',
          host,
          ...(options.requirementsPath ? ['--requirements', options.requirementsPath] : []),
        ],
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
    check,

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
