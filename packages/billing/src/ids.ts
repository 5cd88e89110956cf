import { randomBytes } from 'node:crypto';

const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * A Stripe-like id (`cus_…`, `sub_…`, `in_…`, `pm_…`): a prefix and 24 random base-62
 * characters (about 143 bits), so ids in hosted-page URLs cannot be guessed.
 */
export function newProviderId(prefix: string, length = 24): string {
  const bytes = randomBytes(length * 2);
  let id = '';
  for (const byte of bytes) {
    // 62 * 4 = 248: rejecting bytes above it keeps every character equally likely.
    if (byte < 248) id += alphabet[byte % 62];
    if (id.length === length) break;
  }
  return id.length === length ? `${prefix}_${id}` : newProviderId(prefix, length);
}
