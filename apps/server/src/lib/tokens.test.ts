import { describe, expect, it } from 'vitest';
import { createOpaqueToken, hashPassword, hashToken, verifyPassword } from './tokens.ts';

describe('tokens', () => {
  it('creates 256-bit URL-safe tokens that differ each time', () => {
    const first = createOpaqueToken();
    expect(first).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(first, 'base64url')).toHaveLength(32);
    expect(createOpaqueToken()).not.toBe(first);
  });

  it('stores only a SHA-256 digest', () => {
    expect(hashToken('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });

  it('hashes passwords with scrypt and verifies them', async () => {
    const stored = await hashPassword('a long passphrase');
    expect(stored).toMatch(/^scrypt\$16384\$/);
    expect(await verifyPassword('a long passphrase', stored)).toBe(true);
    expect(await verifyPassword('a wrong passphrase', stored)).toBe(false);
    expect(await verifyPassword('anything', 'garbage')).toBe(false);
  });
});
