/**
 * The production front for the bench (decision 178): Caddy, as docs/production.md configures it,
 * in front of a portal started by the bench, speaking TLS and HTTP/2 to the browser as it does to
 * a farmer's phone. Its certificate comes from Caddy's own local authority (`tls internal`), which
 * the measuring browser is told to accept; its state lives in a temporary folder, removed after.
 */
import { execFileSync } from 'node:child_process';
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import type { RunningServer } from './servers.ts';
import { freePort, onAbnormalExit, sleep, startProcess } from './processes.ts';

/** Why the front cannot start here (no Caddy), or undefined when it can. */
export function frontUnavailable(): string | undefined {
  try {
    execFileSync('caddy', ['version'], { stdio: 'ignore' });
    return undefined;
  } catch {
    return 'Caddy is not installed (bash scripts/ensure-system-deps.sh installs it)';
  }
}

/** The Caddyfile of docs/production.md, on a local address with a local certificate. */
function frontCaddyfile(port: number, upstreamHost: string): string {
  return `{
	admin off
	auto_https disable_redirects
	skip_install_trust
}

https://localhost:${port} {
	tls internal
	# The API's JSON goes out uncompressed; the built assets are already br/gzip (decision 083).
	encode zstd gzip
	reverse_proxy ${upstreamHost}
}
`;
}

/** Whether `url` answers 200 over TLS, whoever signed its certificate. */
function answers(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const request = https.get(url, { rejectUnauthorized: false, timeout: 2_000 }, (response) => {
      response.resume();
      resolve(response.statusCode === 200);
    });
    request.on('error', () => resolve(false));
    request.on('timeout', () => request.destroy());
  });
}

/** Caddy in front of the portal at `upstreamUrl` (http://127.0.0.1:port), until `stop`. */
export async function startFront(upstreamUrl: string): Promise<RunningServer> {
  const folder = await fs.mkdtemp(path.join(os.tmpdir(), 'farmcam-front-'));
  const forgetFolder = onAbnormalExit(() =>
    fsSync.rmSync(folder, { recursive: true, force: true }),
  );
  const port = await freePort();
  const config = path.join(folder, 'Caddyfile');
  await fs.writeFile(config, frontCaddyfile(port, new URL(upstreamUrl).host));
  const caddy = startProcess({
    name: 'caddy',
    command: 'caddy',
    args: ['run', '--config', config, '--adapter', 'caddyfile'],
    cwd: folder,
    // Its local authority and certificates in the temporary folder, not the user's home.
    env: { ...process.env, XDG_DATA_HOME: folder, XDG_CONFIG_HOME: folder, HOME: folder },
  });
  const baseUrl = `https://localhost:${port}`;
  const stop = async () => {
    await caddy.stop(5_000);
    await fs.rm(folder, { recursive: true, force: true });
    forgetFolder();
  };
  const deadline = Date.now() + 30_000;
  while (!(await answers(`${baseUrl}/api/healthz`))) {
    if (caddy.hasExited() || Date.now() > deadline) {
      const output = caddy.output();
      await stop();
      throw new Error(`Caddy did not answer at ${baseUrl}. Its last output:\n${output}`);
    }
    await sleep(200);
  }
  return { baseUrl, process: caddy, stop };
}
