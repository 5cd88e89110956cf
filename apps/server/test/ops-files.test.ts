/**
 * The operator's files under ops/ work as printed (docs/decisions/107): the environment example
 * reads the same to the shell, systemd and Compose and configures production as it says; the
 * systemd unit and the container image start node itself, with the environment file, and give
 * it time to drain. The supervised start (supervised-start.test.ts) runs the unit's command.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import webPush from 'web-push';
import { parse as parseYaml } from 'yaml';
import { ConfigError, loadConfig } from '../src/config/config.ts';
import { shutdownStepsTimeoutMs } from '../src/process/shutdown.ts';
import {
  environmentExample,
  opsFile,
  parseContainerfile,
  parseUnitFile,
  readEnvironmentFileAsSystemd,
  readEnvironmentFileWithSystemd,
  repositoryRoot,
  sourceWithBash,
  splitUnitWords,
  systemdEnvironmentGenerator,
  systemdUnit,
} from './helpers/ops-files.ts';

const exampleText = fs.readFileSync(environmentExample, 'utf8');
/** The operator's guide, which the README links to, and the README itself. */
const productionGuide = fs.readFileSync(path.join(repositoryRoot, 'docs/production.md'), 'utf8');
const readme = fs.readFileSync(path.join(repositoryRoot, 'README.md'), 'utf8');
const hasSystemdParser = fs.existsSync(systemdEnvironmentGenerator);
const systemdAnalyze = ['/usr/bin/systemd-analyze', '/bin/systemd-analyze'].find((file) =>
  fs.existsSync(file),
);

/** Seconds a process needs to stop: the example's drain, then the shutdown steps' limit. */
const exampleGraceSeconds = Number(sourceWithBash(environmentExample).SHUTDOWN_GRACE_SECONDS);
const secondsToStop = exampleGraceSeconds + shutdownStepsTimeoutMs / 1000;

/** The unit's [Service] section. */
const service = parseUnitFile(fs.readFileSync(systemdUnit, 'utf8')).Service!;
const only = (key: string) => {
  expect(service[key], key).toHaveLength(1);
  return service[key]![0]!;
};

describe('the environment example (ops/farmcam.env.example)', () => {
  it('reads the same to the shell as to systemd (EnvironmentFile=)', () => {
    const shell = sourceWithBash(environmentExample);
    expect(Object.keys(shell).length).toBeGreaterThan(15);
    expect(readEnvironmentFileAsSystemd(exampleText)).toEqual(shell);
    expect(shell.SUPPLIER_NAME).toBe('Farmcam Ltd');
    expect(shell.SUPPLIER_ADDRESS).toBe('1 Farm Lane, Exampleton, EX1 2MP, United Kingdom');
  });

  it.skipIf(!hasSystemdParser)("reads the same to systemd's own parser", () => {
    expect(readEnvironmentFileWithSystemd(exampleText)).toEqual(sourceWithBash(environmentExample));
  });

  it.skipIf(!hasSystemdParser)(
    "has a systemd reader that agrees with systemd's parser where systemd and the shell part",
    () => {
      // Lines the shell reads otherwise, or not at all: the test's reader must read them as
      // systemd does, or its agreement above would prove nothing. (No `NAME=` with nothing
      // after it: EnvironmentFile= sets it empty, environment.d skips it.)
      const tricky = [
        "QUOTED='two words'",
        'INLINE=value # not a comment to systemd',
        "AFTER='q' # after the quote",
        'DOUBLE="say \\"hi\\" \\\\ \\x"',
        'SPACED=   padded value   ',
        'ESCAPED=a\\ b\\\\c',
        '  KEY_WITH_BLANKS = around',
        '; a comment too',
        'CONTINUED=first \\',
        'second',
        "MULTI='line one",
        "line two'",
        'LAST=1',
      ].join('\n');
      expect(readEnvironmentFileAsSystemd(tricky)).toEqual(readEnvironmentFileWithSystemd(tricky));
    },
  );

  it('keeps to what the shell, systemd and Compose all read alike', () => {
    // NAME=value with a plain value, or one in single quotes; comments on lines of their own.
    const plain = /^[A-Za-z0-9_./:@%+,=-]*$/;
    const quoted = /^'[^'\\$`\n]*'$/;
    const lines = exampleText.split('\n');
    for (const [index, line] of lines.entries()) {
      if (line === '' || line.startsWith('#')) continue;
      const where = `ops/farmcam.env.example line ${index + 1}: ${line}`;
      const assignment = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
      expect(assignment, where).not.toBeNull();
      const value = assignment![2]!;
      expect(plain.test(value) || quoted.test(value), where).toBe(true);
    }
    // No `$` in a value: the shell and Compose would expand it, systemd would not.
    const values = lines.filter((line) => line && !line.startsWith('#')).join('\n');
    expect(values).not.toContain('$');
  });

  it('sets neither ROLE nor NODE_ENV nor DATA_DIR, which the unit and compose file give each process', () => {
    // systemd lets the file's values win over the unit's Environment=.
    const variables = sourceWithBash(environmentExample);
    for (const name of ['ROLE', 'NODE_ENV', 'DATA_DIR', 'PORT']) {
      expect(variables[name], name).toBeUndefined();
    }
  });

  it('is refused in production until every change-me is replaced, each named', () => {
    const environment: Record<string, string> = {
      ...sourceWithBash(environmentExample),
      NODE_ENV: 'production',
    };
    const placeholders = Object.keys(environment).filter((key) =>
      environment[key]!.includes('change-me'),
    );
    expect(placeholders.sort()).toEqual(
      ['CONNECTIVITY_API_KEY', 'DATABASE_URL', 'METRICS_TOKEN', 'SMTP_URL'].sort(),
    );
    try {
      loadConfig({ ...environment, ROLE: 'api' });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems.sort()).toEqual(
        placeholders.map(
          (key) => `${key}: still the example's placeholder (change-me); put your own value in`,
        ),
      );
    }
  });

  it('configures production as it says once filled in: supplier, mail, storage, SIMs, proxy', () => {
    const secret = 'f3a9c1d27b6e4580a2d4c6e8f0b1d3e5a7c9e1f3b5d7f9a1c3e5a7b9d1f3a5c7';
    const filled = fs.mkdtempSync(path.join(os.tmpdir(), 'farmcam-env-'));
    try {
      const file = path.join(filled, 'portal.env');
      fs.writeFileSync(
        file,
        exampleText
          .replaceAll('change-me-to-the-output-of-openssl-rand-hex-32', secret)
          .replaceAll('change-me', 'Sw0rdfish-7'),
      );
      const environment = sourceWithBash(file);
      // What the unit adds (Environment=): production, the instance's role.
      const config = loadConfig({ ...environment, NODE_ENV: 'production', ROLE: 'api' });
      expect(config).toMatchObject({
        nodeEnv: 'production',
        role: 'api',
        logFormat: 'json',
        logLevel: 'info',
        publicUrl: 'https://portal.example.com',
        trustProxy: 1,
        shutdownGraceSeconds: 12,
        databaseUrl: 'postgres://portal:Sw0rdfish-7@db.internal:5432/portal',
        metricsToken: secret,
        mail: {
          mode: 'smtp',
          url: 'smtps://portal:Sw0rdfish-7@smtp.example.com:465',
          from: 'Farmcam <no-reply@portal.example.com>',
        },
        supportEmail: 'support@portal.example.com',
        storage: { mode: 's3', bucket: 'farmcam-clips', region: 'eu-west-2' },
        connectivity: {
          mode: 'http',
          url: 'https://sims.example.net/api',
          apiKey: 'Sw0rdfish-7',
        },
        billing: { mode: 'local', isTestClockEnabled: false },
        invoicing: { numberPrefix: 'FC', vatRateBasisPoints: 2000 },
        isDemoDataEnabled: false,
        isApiDocsEnabled: false,
      });
      expect(config.supplier).toEqual({
        name: 'Farmcam Ltd',
        addressLines: ['1 Farm Lane', 'Exampleton', 'EX1 2MP', 'United Kingdom'],
        vatNumber: 'GB 123 4567 89',
        isConfigured: true,
      });
    } finally {
      fs.rmSync(filled, { recursive: true, force: true });
    }
  });

  it('leaves push and SMS off until their keys are set, and turns them on as its comments say', () => {
    const filled = exampleText
      .replaceAll('change-me-to-the-output-of-openssl-rand-hex-32', 'f'.repeat(64))
      .replaceAll('change-me', 'Sw0rdfish-7');
    const production = { NODE_ENV: 'production', ROLE: 'api' };
    const asIs = loadConfig({ ...readEnvironmentFileAsSystemd(filled), ...production });
    // Production needs no new service: no push, no texts, and it starts.
    expect(asIs.push).toEqual({ mode: 'off' });
    expect(asIs.sms).toEqual({ mode: 'off' });

    // The commented lines, uncommented and given real values, configure both.
    const keys = webPush.generateVAPIDKeys();
    const values: Record<string, string> = {
      VAPID_PUBLIC_KEY: keys.publicKey,
      VAPID_PRIVATE_KEY: keys.privateKey,
      TWILIO_ACCOUNT_SID: `AC${'0123456789abcdef'.repeat(2)}`,
      TWILIO_AUTH_TOKEN: '9f8e7d6c5b4a39281706f5e4d3c2b1a0',
    };
    const uncommented = filled
      .split('\n')
      .map((line) => {
        const match = /^#((?:VAPID_|SMS|TWILIO_)[A-Z_]*)=(.*)$/.exec(line);
        if (!match) return line;
        return `${match[1]}=${values[match[1]!] ?? match[2]}`;
      })
      .join('\n');
    const configured = loadConfig({
      ...readEnvironmentFileAsSystemd(uncommented),
      ...production,
    });
    expect(configured.push).toEqual({
      mode: 'configured',
      publicKey: keys.publicKey,
      privateKey: keys.privateKey,
      subject: 'mailto:support@portal.example.com',
    });
    expect(configured.sms).toMatchObject({
      mode: 'twilio',
      accountSid: values.TWILIO_ACCOUNT_SID,
      from: '+447700900123',
    });
    expect(configured.smsDailyLimitPerPerson).toBe(10);
  });

  it('is what the production guide points to, with no copy of its own to drift', () => {
    expect(productionGuide).toContain('ops/farmcam.env.example');
    // A fenced block of bare assignments is an environment file: it belongs in the example.
    const blocks = [readme, productionGuide].flatMap((text) => [
      ...text.matchAll(/```[a-z]*\n([\s\S]*?)```/g),
    ]);
    for (const block of blocks) {
      const lines = block[1]!.split('\n').filter((line) => line.trim() && !line.startsWith('#'));
      const assignments = lines.filter((line) => /^[A-Z][A-Z0-9_]*=/.test(line.trim()));
      expect(
        assignments.length >= 3 && assignments.length === lines.length,
        `Fenced block:\n${block[1]}`,
      ).toBe(false);
    }
  });
});

describe('the systemd unit (ops/systemd/farmcam@.service)', () => {
  it('starts node itself on the compiled server in production, the instance name as its ROLE', () => {
    const command = splitUnitWords(only('ExecStart'));
    const installRoot = only('WorkingDirectory');
    expect(path.isAbsolute(installRoot)).toBe(true);
    expect(command).toEqual([
      `${installRoot}/node_modules/.bin/node`,
      '--enable-source-maps',
      'apps/server/dist/server.js',
    ]);
    expect(only('Type')).toMatch(/^(exec|simple)$/);
    const environment = service.Environment!.flatMap(splitUnitWords);
    expect(environment).toEqual(expect.arrayContaining(['NODE_ENV=production', 'ROLE=%i']));
    expect(only('EnvironmentFile')).toBe('/etc/farmcam/portal.env');
    expect(productionGuide).toContain('/etc/farmcam/portal.env');
  });

  it('signals node alone and gives it the drain and the shutdown steps before a SIGKILL', () => {
    expect(only('KillMode')).toBe('mixed');
    expect(only('KillSignal')).toBe('SIGTERM');
    expect(Number(only('TimeoutStopSec'))).toBeGreaterThanOrEqual(secondsToStop + 5);
  });

  it.skipIf(!systemdAnalyze)('passes systemd-analyze verify as farmcam@api', () => {
    // Installed at the repository instead of /srv/farmcam, so its node exists.
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'farmcam-unit-'));
    try {
      const unit = fs
        .readFileSync(systemdUnit, 'utf8')
        .replaceAll(only('WorkingDirectory'), repositoryRoot);
      fs.writeFileSync(path.join(folder, 'farmcam@.service'), unit);
      const unitPath = path.join(folder, 'farmcam@api.service');
      // Quiet: no warning, no unknown key. Then its dump: the unit as systemd loaded it.
      const verify = spawnSync(systemdAnalyze!, ['verify', '--man=no', unitPath], {
        encoding: 'utf8',
      });
      expect(verify.status, verify.stderr).toBe(0);
      expect(verify.stderr + verify.stdout).toBe('');
      const dump = spawnSync(systemdAnalyze!, ['verify', '--man=no', unitPath], {
        encoding: 'utf8',
        env: { ...process.env, SYSTEMD_LOG_LEVEL: 'debug' },
      }).stdout;
      expect(dump).toContain(
        `Command Line: ${repositoryRoot}/node_modules/.bin/node --enable-source-maps apps/server/dist/server.js`,
      );
      expect(dump).toMatch(/Environment: ROLE=api\n/);
      expect(dump).toMatch(/Environment: NODE_ENV=production\n/);
      expect(dump).toMatch(/KillMode: mixed\n/);
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe('the container example (ops/container)', () => {
  const instructions = parseContainerfile(
    fs.readFileSync(opsFile('container/Containerfile'), 'utf8'),
  );
  const lastStage = Math.max(...instructions.map((instruction) => instruction.stage));
  const final = instructions.filter((instruction) => instruction.stage === lastStage);

  it('runs node itself (exec-form CMD, no entrypoint) in production, not as root', () => {
    const commands = final.filter((instruction) => instruction.instruction === 'CMD');
    expect(commands).toHaveLength(1);
    // JSON array: no shell wraps it, so SIGTERM from `docker stop` reaches node.
    expect(JSON.parse(commands[0]!.arguments)).toEqual([
      'node',
      '--enable-source-maps',
      'apps/server/dist/server.js',
    ]);
    expect(final.some((instruction) => instruction.instruction === 'ENTRYPOINT')).toBe(false);
    const environment = final
      .filter((instruction) => instruction.instruction === 'ENV')
      .map((instruction) => instruction.arguments)
      .join(' ');
    expect(environment).toMatch(/\bNODE_ENV=production\b/);
    const users = final.filter((instruction) => instruction.instruction === 'USER');
    expect(users.at(-1)?.arguments).toMatch(/^(?!root\b|0\b)\S+/);
    const stopSignal = final.find((instruction) => instruction.instruction === 'STOPSIGNAL');
    expect(stopSignal?.arguments ?? 'SIGTERM').toBe('SIGTERM');
  });

  it('copies what the repository has, every workspace manifest included', () => {
    const copies = instructions.filter(
      (instruction) =>
        instruction.instruction === 'COPY' && !instruction.arguments.includes('--from'),
    );
    const sources = copies.flatMap((instruction) =>
      instruction.arguments.split(/\s+/).slice(0, -1),
    );
    for (const source of sources) {
      expect(fs.existsSync(path.join(repositoryRoot, source)), source).toBe(true);
    }
    const { workspaces } = JSON.parse(
      fs.readFileSync(path.join(repositoryRoot, 'package.json'), 'utf8'),
    ) as { workspaces: string[] };
    for (const workspace of workspaces) {
      expect(sources, `${workspace}/package.json before npm ci`).toContain(
        `${workspace}/package.json`,
      );
    }
  });

  it("keeps the machine's node_modules and builds out of the build context", () => {
    const ignored = fs
      .readFileSync(path.join(repositoryRoot, '.dockerignore'), 'utf8')
      .split('\n')
      .map((line) => line.trim());
    expect(ignored).toEqual(expect.arrayContaining(['**/node_modules', '**/dist']));
  });

  it('runs an API and a worker from the image, with the environment file, an init and time to drain', () => {
    const compose = parseYaml(fs.readFileSync(opsFile('container/compose.yaml'), 'utf8'), {
      merge: true,
    }) as {
      services: Record<
        string,
        {
          build: { context: string; dockerfile: string };
          env_file: string;
          environment: Record<string, string>;
          init: boolean;
          stop_grace_period: string;
          command?: unknown;
          entrypoint?: unknown;
        }
      >;
    };
    const composeFolder = opsFile('container');
    for (const role of ['api', 'worker']) {
      const portal = compose.services[role]!;
      expect(portal.environment.ROLE).toBe(role);
      const context = path.resolve(composeFolder, portal.build.context);
      expect(context).toBe(repositoryRoot);
      expect(fs.existsSync(path.join(context, portal.build.dockerfile))).toBe(true);
      // The image's CMD (node itself) stays: no command or entrypoint of the service's own.
      expect(portal.command).toBeUndefined();
      expect(portal.entrypoint).toBeUndefined();
      expect(portal.init).toBe(true);
      expect(portal.env_file).toBe('portal.env');
      const grace = /^(\d+)s$/.exec(portal.stop_grace_period);
      expect(Number(grace?.[1])).toBeGreaterThanOrEqual(secondsToStop + 5);
    }
  });
});
