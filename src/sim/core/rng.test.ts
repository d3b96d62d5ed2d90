import { describe, expect, it } from 'vitest';
import { VirtualClock } from './clock.ts';
import { Rng } from './rng.ts';
import { uuidFromRng } from './uuid.ts';

describe('Rng (determinism law: seeded, forked by label)', () => {
  it('the same seed yields the same stream', () => {
    const a = new Rng(42);
    const b = new Rng(42);
    expect(Array.from({ length: 20 }, () => a.float())).toEqual(Array.from({ length: 20 }, () => b.float()));
  });

  it('hex draws one byte per two lowercase digits, long strings included', () => {
    const r = new Rng('hex');
    const bytes = new Rng('hex').bytes(5000);
    const text = r.hex(5000);
    expect(text).toMatch(/^[0-9a-f]{10000}$/);
    expect(text).toBe(Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join(''));
    expect(new Rng('hex').hex(0)).toBe('');
  });

  it('different seeds yield different streams', () => {
    expect(new Rng(1).hex(16)).not.toBe(new Rng(2).hex(16));
  });

  it('a fork depends only on the seed and label, not on how much the parent was used', () => {
    const fresh = new Rng('root').fork('pm').hex(8);
    const used = new Rng('root');
    used.hex(1000);
    expect(used.fork('pm').hex(8)).toBe(fresh);
    expect(new Rng('root').fork('user').hex(8)).not.toBe(fresh);
  });

  it('int, intBetween and pick stay in range', () => {
    const r = new Rng('range');
    for (let i = 0; i < 1000; i++) {
      const x = r.int(7);
      expect(x >= 0 && x < 7 && Number.isInteger(x)).toBe(true);
      const y = r.intBetween(-3, 3);
      expect(y >= -3 && y <= 3).toBe(true);
    }
    expect(() => r.int(0)).toThrow(RangeError);
    expect(() => r.pick([])).toThrow(RangeError);
  });

  it('UUIDs from PRNG bytes are valid RFC 4122 v4 and reproducible', () => {
    const a = uuidFromRng(new Rng('u'));
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(uuidFromRng(new Rng('u'))).toBe(a);
  });
});

describe('VirtualClock (elapsedRealtime monotonic, currentTimeMillis may jump)', () => {
  it('starts at the given wall time with zero elapsed time', () => {
    const c = new VirtualClock(1_000_000);
    expect(c.nowMs()).toBe(1_000_000);
    expect(c.elapsedRealtime()).toBe(0);
  });

  it('advances both clocks together and never goes backwards on advance', () => {
    const c = new VirtualClock(0);
    c.advanceTo(500);
    c.advanceTo(100);
    expect(c.elapsedRealtime()).toBe(500);
    expect(c.nowMs()).toBe(500);
  });

  it('a jump moves only the wall clock, in either direction', () => {
    const c = new VirtualClock(10_000);
    c.advanceTo(100);
    c.jump(-5_000);
    expect(c.nowMs()).toBe(5_100);
    expect(c.elapsedRealtime()).toBe(100);
  });
});
