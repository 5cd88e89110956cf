import { describe, expect, it } from 'vitest';
import { networkOf, placeOf, placeWords } from './network-place.ts';

describe('where an entry came from, in words (decision 142)', () => {
  it('groups addresses by their /24 or /48 network', () => {
    expect(networkOf('203.0.113.7')).toBe('203.0.113');
    expect(networkOf('::ffff:203.0.113.99')).toBe('203.0.113');
    expect(networkOf('2001:db8:abcd:12::1')).toBe('2001:db8:abcd');
    expect(networkOf('2001:0db8:abcd::')).toBe('2001:db8:abcd');
    expect(networkOf('2001::1')).toBe('2001:0:0');
    expect(networkOf('not an address')).toBeNull();
  });

  it('says whether the person used the network before, never the raw address', () => {
    const seen = new Set(['203.0.113']);
    const usedBefore = (network: string) => seen.has(network);
    expect(placeOf('203.0.113.200', usedBefore)).toBe(placeWords.same);
    expect(placeOf('198.51.100.4', usedBefore)).toBe(placeWords.new);
    expect(placeOf('192.168.1.20', usedBefore)).toBe(placeWords.private);
    expect(placeOf('10.0.0.1', usedBefore)).toBe(placeWords.private);
    expect(placeOf('172.20.1.1', usedBefore)).toBe(placeWords.private);
    expect(placeOf('172.32.1.1', usedBefore)).toBe(placeWords.new);
    expect(placeOf('fd12:3456::1', usedBefore)).toBe(placeWords.private);
    expect(placeOf('127.0.0.1', usedBefore)).toBe(placeWords.local);
    expect(placeOf('::1', usedBefore)).toBe(placeWords.local);
    expect(placeOf(null, usedBefore)).toBeNull();
    expect(placeOf('garbage', usedBefore)).toBeNull();
  });
});
