import { describe, expect, it } from 'vitest';
import { Trace } from './trace.ts';
import { renderMermaid, renderText } from './trace-render.ts';

function sampleTrace(): Trace {
  let step = 0;
  const trace = new Trace({ step: () => step, nowMs: () => 1000 + step * 10 });
  trace.record('binder.call', { from: 'com.a', to: 'com.b', method: 'execute_tool', txn: 1 });
  step = 1;
  trace.record('store.commit', { actor: 'com.b', tx: 'reserve;#1', writes: 2 });
  trace.record('fd.open', { actor: 'com.b', fd: 3 });
  step = 2;
  trace.record('binder.reply', { from: 'com.b', to: 'com.a', txn: 1 });
  return trace;
}

describe('trace', () => {
  it('hashes its canonical JSON: key order does not matter, content does', () => {
    const a = new Trace({ step: () => 0, nowMs: () => 0 });
    a.record('x', { b: 1, a: 2 });
    const b = new Trace({ step: () => 0, nowMs: () => 0 });
    b.record('x', { a: 2, b: 1 });
    expect(a.canonicalJson()).toBe(b.canonicalJson());
    expect(a.hash()).toBe(b.hash());
    const c = new Trace({ step: () => 0, nowMs: () => 0 });
    c.record('x', { a: 2, b: 2 });
    expect(c.hash()).not.toBe(a.hash());
    expect(a.hash()).toMatch(/^[0-9a-f]{64}$/);
  });

  it('renders one event a line with step and relative time', () => {
    expect(renderText(sampleTrace().events).split('\n')[0]).toBe(
      '#0 step 0 +0ms binder.call from=com.a to=com.b method=execute_tool txn=1',
    );
  });

  it('renders a Mermaid sequence diagram: arrows for messages, notes for local events, noise omitted', () => {
    const mermaid = renderMermaid(sampleTrace().events);
    expect(mermaid).toBe(
      [
        'sequenceDiagram',
        '  participant P0 as com.a',
        '  participant P1 as com.b',
        '  P0->>P1: binder.call method=execute_tool txn=1',
        '  Note over P1: store.commit tx=reserve 1 writes=2',
        '  P1-->>P0: binder.reply txn=1',
      ].join('\n'),
    );
  });
});
