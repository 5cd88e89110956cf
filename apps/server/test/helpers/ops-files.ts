/**
 * Readers for the operator's files under ops/ (docs/decisions/107): the environment file as the
 * shell and as systemd read it, the systemd unit, the Containerfile. The tests check the files
 * with them, and the supervised start runs what the unit says.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repositoryRoot = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../..',
);

export const opsFile = (relative: string) => path.join(repositoryRoot, 'ops', relative);

export const environmentExample = opsFile('farmcam.env.example');
export const systemdUnit = opsFile('systemd/farmcam@.service');

/**
 * What `set -a; . FILE; set +a` exports, as docs/production.md says to load it: a clean bash
 * sources the file, and what it sets beyond an empty file's run is the file's.
 */
export function sourceWithBash(file: string): Record<string, string> {
  const exported = (script: string, argument: string) => {
    const result = spawnSync(
      '/usr/bin/env',
      ['-i', 'bash', '--noprofile', '--norc', '-c', script, 'bash', argument],
      { encoding: 'utf8' },
    );
    if (result.status !== 0)
      throw new Error(`bash could not source ${argument}:\n${result.stderr}`);
    if (result.stderr) throw new Error(`bash complained sourcing ${argument}:\n${result.stderr}`);
    return Object.fromEntries(
      result.stdout
        .split('\0')
        .filter(Boolean)
        .map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]),
    );
  };
  const script = 'set -a; . "$1"; set +a; exec env -0';
  const baseline = exported(script, '/dev/null');
  const withFile = exported(script, file);
  return Object.fromEntries(
    Object.entries(withFile).filter(([key, value]) => baseline[key] !== value),
  );
}

/**
 * systemd's EnvironmentFile= reading, written from systemd.exec(5) (and checked against
 * systemd's own parser where one is installed, ops-files.test.ts):
 * - a line starting with `#` or `;` (after blanks) is a comment, to its end;
 * - `KEY=VALUE`; blanks around the key and before the value are dropped;
 * - an unquoted value runs to the end of the line, blanks at its end dropped, `#` and quotes
 *   inside it kept; `\x` is x, and a backslash at the end of the line joins the next one;
 * - `'…'` is taken as written, up to the next `'` (it may span lines);
 * - `"…"` likewise, where `\` before `"`, `\`, `` ` `` or `$` keeps that character, before a
 *   newline joins the lines, and before anything else stays a backslash;
 * - after a closing quote, blanks are dropped and anything else goes on the value;
 * - no `$` expansion; a later assignment replaces an earlier one.
 */
export function readEnvironmentFileAsSystemd(text: string): Record<string, string> {
  const result: Record<string, string> = {};
  type State = 'preKey' | 'key' | 'preValue' | 'value' | 'single' | 'double' | 'comment';
  let state: State = 'preKey';
  let key = '';
  let value = '';
  let trailingBlanks = 0;
  const isBlank = (c: string) => c === ' ' || c === '\t' || c === '\r' || c === '\n';
  const isNewline = (c: string) => c === '\n' || c === '\r';
  const push = () => {
    const name = key.trimEnd();
    result[name] = value.slice(0, value.length - trailingBlanks);
    key = '';
    value = '';
    trailingBlanks = 0;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    switch (state) {
      case 'preKey':
        if (c === '#' || c === ';') state = 'comment';
        else if (!isBlank(c)) {
          state = 'key';
          key = c;
        }
        break;
      case 'key':
        if (isNewline(c)) {
          state = 'preKey';
          key = '';
        } else if (c === '=') {
          state = 'preValue';
          value = '';
          trailingBlanks = 0;
        } else key += c;
        break;
      case 'preValue':
      case 'value':
        if (isNewline(c)) {
          if (state === 'preValue') trailingBlanks = 0;
          push();
          state = 'preKey';
        } else if (state === 'preValue' && c === "'") state = 'single';
        else if (state === 'preValue' && c === '"') state = 'double';
        else if (c === '\\') {
          const next = text[i + 1];
          i++;
          state = 'value';
          trailingBlanks = 0;
          if (next !== undefined && !isNewline(next)) value += next;
        } else if (state === 'preValue') {
          if (!isBlank(c)) {
            state = 'value';
            value += c;
            trailingBlanks = 0;
          }
        } else {
          value += c;
          trailingBlanks = isBlank(c) ? trailingBlanks + 1 : 0;
        }
        break;
      case 'single':
        if (c === "'") state = 'preValue';
        else value += c;
        break;
      case 'double':
        if (c === '"') state = 'preValue';
        else if (c === '\\') {
          const next = text[++i];
          if (next === undefined) break;
          if ('"\\`$'.includes(next)) value += next;
          else if (next !== '\n') value += `\\${next}`;
        } else value += c;
        break;
      case 'comment':
        // A backslash takes the next character with it; before a newline the comment still
        // ends there (systemd 254 and later).
        if (c === '\\' && text[i + 1] !== undefined && !isNewline(text[i + 1]!)) i++;
        else if (isNewline(c)) state = 'preKey';
        break;
    }
  }
  if (state === 'value' || state === 'preValue' || state === 'single' || state === 'double') {
    if (state !== 'value') trailingBlanks = 0;
    push();
  }
  return result;
}

/** A unit file's sections: each key's values in order (a key may repeat, e.g. Environment=). */
export function parseUnitFile(text: string): Record<string, Record<string, string[]>> {
  const sections: Record<string, Record<string, string[]>> = {};
  let current: Record<string, string[]> | undefined;
  const joined = text.replace(/\\\n/g, ' ');
  for (const rawLine of joined.split('\n')) {
    const line = rawLine.trim();
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    const section = /^\[(.+)\]$/.exec(line);
    if (section) {
      current = sections[section[1]!] ??= {};
      continue;
    }
    const equals = line.indexOf('=');
    if (!current || equals < 0) throw new Error(`Not a unit file line: ${line}`);
    const name = line.slice(0, equals).trim();
    (current[name] ??= []).push(line.slice(equals + 1).trim());
  }
  return sections;
}

/** systemd's splitting of Environment= and ExecStart= (double or single quotes group words). */
export function splitUnitWords(text: string): string[] {
  const words: string[] = [];
  const pattern = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (const match of text.matchAll(pattern)) {
    words.push(match[1]?.replace(/\\(.)/g, '$1') ?? match[2] ?? match[3]!);
  }
  return words;
}

export interface ContainerfileInstruction {
  /** Upper-case: FROM, RUN, COPY, CMD… */
  instruction: string;
  arguments: string;
  /** Index of the build stage (FROM) it belongs to. */
  stage: number;
}

/** A Containerfile's instructions, line continuations joined and comments dropped. */
export function parseContainerfile(text: string): ContainerfileInstruction[] {
  const instructions: ContainerfileInstruction[] = [];
  let stage = -1;
  const logicalLines: string[] = [];
  let pending = '';
  for (const rawLine of text.split('\n')) {
    if (/^\s*#/.test(rawLine)) continue;
    const continued = /\\\s*$/.test(rawLine);
    pending += `${rawLine.replace(/\\\s*$/, '')} `;
    if (!continued) {
      if (pending.trim()) logicalLines.push(pending.trim());
      pending = '';
    }
  }
  for (const line of logicalLines) {
    const [, instruction, rest] = /^(\S+)\s*(.*)$/.exec(line)!;
    const name = instruction!.toUpperCase();
    if (name === 'FROM') stage++;
    instructions.push({ instruction: name, arguments: rest!.trim(), stage });
  }
  return instructions;
}

/** systemd's environment.d generator, which shares EnvironmentFile='s parser; absent on most CI. */
export const systemdEnvironmentGenerator =
  '/usr/lib/systemd/user-environment-generators/30-systemd-environment-d-generator';

/**
 * The file as systemd's own parser reads it (through the environment.d generator, which prints
 * the resulting environment; it also expands `$`, so only for files without one).
 */
export function readEnvironmentFileWithSystemd(text: string): Record<string, string> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'farmcam-environment-d-'));
  try {
    fs.mkdirSync(path.join(home, 'environment.d'));
    fs.writeFileSync(path.join(home, 'environment.d', '50-under-test.conf'), text);
    const run = (configHome: string) => {
      const result = spawnSync(
        '/usr/bin/env',
        ['-i', `XDG_CONFIG_HOME=${configHome}`, systemdEnvironmentGenerator],
        {
          encoding: 'utf8',
        },
      );
      if (result.status !== 0) throw new Error(`The generator failed:\n${result.stderr}`);
      return decodeGeneratorOutput(result.stdout);
    };
    const baseline = run(path.join(home, 'nothing'));
    const withFile = run(home);
    return Object.fromEntries(
      Object.entries(withFile).filter(([key, value]) => baseline[key] !== value),
    );
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}

const escapes: Record<string, string> = { n: '\n', t: '\t', r: '\r' };

/** The generator prints `KEY=value`, double-quoting a value that needs it, C escapes inside. */
function decodeGeneratorOutput(output: string): Record<string, string> {
  const result: Record<string, string> = {};
  for (const line of output.split('\n')) {
    const equals = line.indexOf('=');
    if (equals <= 0) continue;
    const raw = line.slice(equals + 1);
    result[line.slice(0, equals)] =
      raw.startsWith('"') && raw.endsWith('"')
        ? raw.slice(1, -1).replace(/\\(.)/g, (_, c: string) => escapes[c] ?? c)
        : raw;
  }
  return result;
}
