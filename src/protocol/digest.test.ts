import { describe, expect, it } from 'vitest';
import { argsDigest, sha256Hex, utf8Length } from './digest.ts';
import { expectIssue, issuesOf, okValue } from './testing/expect-issue.ts';

describe('sha256Hex (CETP-4.5-03: lowercase hex)', () => {
  it.each([
    ['', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
    ['abc', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
  ])('of %j', (input, hex) => {
    expect(sha256Hex(input)).toBe(hex);
    expect(sha256Hex(new TextEncoder().encode(input))).toBe(hex);
  });

  it('hashes strings as UTF-8', () => {
    expect(sha256Hex('价')).toBe(sha256Hex(Uint8Array.from([0xe4, 0xbb, 0xb7])));
  });

  it('gives the same digest for a string seen before, short or long', () => {
    const long = 'x'.repeat(5_000);
    for (const input of ['abc', '{"n":1}', long]) {
      const bytes = new TextEncoder().encode(input);
      expect(sha256Hex(input)).toBe(sha256Hex(bytes));
      expect(sha256Hex(input)).toBe(sha256Hex(bytes));
    }
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

describe('utf8Length (CETP-4.1-08 measures args in UTF-8 bytes)', () => {
  it.each([
    ['', 0],
    ['abc', 3],
    ['价格', 6],
    ['😀', 4],
    ['\uD800', 3], // a lone surrogate encodes as U+FFFD
  ])('%j is %d bytes', (s, n) => {
    expect(utf8Length(s)).toBe(n);
  });
});

describe('argsDigest (CETP-6-03, 4.3-14; NOTES 6)', () => {
  const a = '{"price":10.0,"symbol":"X"}';
  const b = '{"symbol":"X","price":10}';

  it("'bytes' hashes the exact bytes: a re-serialization is different content", () => {
    expect(okValue(argsDigest(a, 'bytes'))).toBe(sha256Hex(a));
    expect(okValue(argsDigest(a, 'bytes'))).not.toBe(okValue(argsDigest(b, 'bytes')));
  });

  it("'jcs' hashes the RFC 8785 form: key order and number spelling do not matter", () => {
    expect(okValue(argsDigest(a, 'jcs'))).toBe(okValue(argsDigest(b, 'jcs')));
    expect(okValue(argsDigest(a, 'jcs'))).toBe(sha256Hex('{"price":10,"symbol":"X"}'));
    expect(okValue(argsDigest(a, 'jcs'))).not.toBe(okValue(argsDigest('{"price":11,"symbol":"X"}', 'jcs')));
  });

  it("'bytes' accepts any string, even invalid JSON (the envelope check reports that)", () => {
    expect(okValue(argsDigest('{not json', 'bytes'))).toBe(sha256Hex('{not json'));
  });

  it.each(['{not json', '', '{"a":"\\uD800"}'])(
    "'jcs' returns an issue for %j instead of throwing",
    (json) => {
      expectIssue(issuesOf(argsDigest(json, 'jcs')), { code: 'invalid_json', ruleId: 'CETP-6-03' });
    },
  );
});
