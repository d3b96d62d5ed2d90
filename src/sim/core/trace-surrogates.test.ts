/**
 * A trace holding hostile text still hashes: RFC 8785 (canonicalize) refuses lone surrogates, which a
 * malformed request puts in traced keys (a request_id or operation_id of '\uD800' is a store key). Found by
 * the structural malformed batches (src/fuzz/scenario/malformed.ts): the trace hash threw.
 */
import { describe, expect, it } from 'vitest';
import { canonicalJsonOf, escapeLoneSurrogates, hashEvents, type TraceEvent } from './trace.ts';

const event = (key: string): TraceEvent =>
  ({ seq: 0, step: 1, t: 0, kind: 'store.read', data: { actor: 'p', key } }) as unknown as TraceEvent;

describe('trace hash of lone surrogates', () => {
  it('hashes a trace with lone surrogates, deterministically and apart from the escape-free text', () => {
    const hostile = [event('op-\uD800'), event('a\uDC00b')];
    expect(hashEvents(hostile)).toBe(hashEvents([event('op-\uD800'), event('a\uDC00b')]));
    expect(hashEvents(hostile)).not.toBe(hashEvents([event('op-'), event('ab')]));
    expect(canonicalJsonOf(hostile)).toContain('op-\\\\ud800');
  });

  it('leaves well-formed pairs and ordinary text alone', () => {
    expect(escapeLoneSurrogates({ k: '😀 ok', '\uD800': 1 })).toEqual({ k: '😀 ok', '\\ud800': 1 });
    expect(canonicalJsonOf([event('plain')])).toBe(
      JSON.stringify([JSON.parse(canonicalJsonOf([event('plain')]))[0]]),
    );
  });
});
