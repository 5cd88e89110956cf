import { hash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scryptAsync = promisify(scrypt) as (
  password: string,
  salt: Buffer,
  keyLength: number,
  options: { N: number; r: number; p: number },
) => Promise<Buffer>;

/** 256 random bits, URL-safe. Used for login links and session tokens. */
export function createOpaqueToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Only this digest of a token is stored, so a database leak exposes no usable token. */
export function hashToken(token: string): string {
  // The one-shot form: no Hash object per call (every authenticated request hashes its token).
  return hash('sha256', token, 'hex');
}

const scryptParameters = { N: 16384, r: 8, p: 1 };

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, 32, scryptParameters);
  return `scrypt$${scryptParameters.N}$${salt.toString('base64')}$${key.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, cost, saltText, keyText] = stored.split('$');
  if (scheme !== 'scrypt' || !cost || !saltText || !keyText) return false;
  const expected = Buffer.from(keyText, 'base64');
  const actual = await scryptAsync(password, Buffer.from(saltText, 'base64'), expected.length, {
    ...scryptParameters,
    N: Number(cost),
  });
  return timingSafeEqual(actual, expected);
}

/** A readable generated password for demo staff accounts. */
export function generatePassword(): string {
  return randomBytes(12).toString('base64url');
}
