import { describe, expect, it } from 'vitest';
import { Bundle } from './bundle.ts';
import { bundleParcelSize, snapshotBundle, string16Size, unparcelBundle } from './parcel.ts';

const noFds = {
  adoptFileDescriptor: () => {
    throw new Error('no fds expected');
  },
  warningSink: null,
  classLoader: null,
};

describe('Bundle getters (BaseBundle: wrong type or missing key never throws)', () => {
  it('a missing key returns the default without a warning', () => {
    const warnings: string[] = [];
    const b = new Bundle();
    b.warningSink = (m) => warnings.push(m);
    expect(b.getInt('n')).toBe(0);
    expect(b.getInt('n', 5)).toBe(5);
    expect(b.getString('s')).toBeNull();
    expect(b.getBoolean('f', true)).toBe(true);
    expect(b.getIntArray('a')).toBeNull();
    expect(warnings).toEqual([]);
  });

  it("a value of the wrong type returns the default and logs Android's warning", () => {
    const warnings: string[] = [];
    const b = new Bundle();
    b.warningSink = (m) => warnings.push(m);
    b.putLong('protocol_version', 2);
    expect(b.getInt('protocol_version')).toBe(0);
    expect(warnings).toEqual([
      'Key protocol_version expected java.lang.Integer but value was a java.lang.Long.  The default value 0 was returned.',
    ]);
    b.putInt('deadline_at_ms', 5);
    expect(b.getLong('deadline_at_ms', -1)).toBe(-1);
    expect(warnings).toHaveLength(2);
  });

  it('putInt narrows like a Java (int) cast; putLong keeps epoch-ms sized values', () => {
    const b = new Bundle();
    b.putInt('i', 2 ** 31);
    expect(b.getInt('i')).toBe(-(2 ** 31));
    b.putLong('l', 1_767_225_600_123);
    expect(b.getLong('l')).toBe(1_767_225_600_123);
  });

  it('unknown keys are simply ignored by readers; keySet lists what is there', () => {
    const b = new Bundle();
    b.putString('status', 'success');
    b.putString('x_unknown', 'whatever');
    expect(b.getString('status')).toBe('success');
    expect(b.keySet()).toEqual(['status', 'x_unknown']);
  });
});

describe('Parcel (a deep copy with Android size accounting)', () => {
  it('String16 size: length prefix + UTF-16 + NUL padded to 4; null is 4 bytes', () => {
    expect(string16Size(null)).toBe(4);
    expect(string16Size('')).toBe(8);
    expect(string16Size('a')).toBe(8);
    expect(string16Size('ab')).toBe(12);
    expect(string16Size('x'.repeat(1000))).toBe(4 + 2004);
  });

  it('an empty or null Bundle is 4 bytes; entries cost key + type tag + value', () => {
    expect(bundleParcelSize(null)).toBe(4);
    expect(bundleParcelSize(new Bundle())).toBe(4);
    const b = new Bundle();
    b.putInt('v', 2);
    // length + magic + count + key("v") + VAL_INTEGER + int
    expect(bundleParcelSize(b)).toBe(12 + 8 + 4 + 4);
    const big = new Bundle();
    big.putString('data', 'x'.repeat(300_000));
    expect(bundleParcelSize(big)).toBeGreaterThan(600_000);
  });

  it('unparcelling copies: later mutation of the original does not reach the copy', () => {
    const inner = new Bundle();
    inner.putString('k', 'v');
    const b = new Bundle();
    b.putBundle('inner', inner);
    b.putIntArray('versions', [2, 1]);
    const copy = unparcelBundle(b, noFds) as Bundle;
    inner.putString('k', 'changed');
    b.putIntArray('versions', [9]);
    expect(copy.getBundle('inner')?.getString('k')).toBe('v');
    expect(copy.getIntArray('versions')).toEqual([2, 1]);
    expect(copy.getBundle('inner')).not.toBe(inner);
  });

  it('a flat Bundle is shared copy-on-write: a write on either side never reaches the other', () => {
    const b = new Bundle();
    b.putString('status', 'success');
    b.putIntArray('versions', [2, 1]);
    const copy = unparcelBundle(b, noFds) as Bundle;
    const snap = snapshotBundle(b) as Bundle;
    b.putString('status', 'error');
    b.remove('versions');
    expect(copy.getString('status')).toBe('success');
    expect(snap.getIntArray('versions')).toEqual([2, 1]);
    copy.putInt('extra', 1);
    copy.clear();
    expect(snap.keySet()).toEqual(['status', 'versions']);
    expect(b.keySet()).toEqual(['status']);
    // A copy of a copy stays independent too, and reads never write.
    const again = snapshotBundle(snap) as Bundle;
    expect(again.getIntArray('versions')).toEqual([2, 1]);
    snap.putAll(b);
    expect(again.getString('status')).toBe('success');
    expect(snap.getString('status')).toBe('error');
  });

  it("the receiver of a shared Bundle warns into its own sink, not the sender's", () => {
    const sent: string[] = [];
    const received: string[] = [];
    const b = new Bundle();
    b.warningSink = (m) => sent.push(m);
    b.putString('n', 'not an int');
    const copy = unparcelBundle(b, { ...noFds, warningSink: (m) => received.push(m) }) as Bundle;
    expect(copy.getInt('n')).toBe(0);
    expect(received).toHaveLength(1);
    expect(sent).toHaveLength(0);
  });
});
