/**
 * The globals watcher (src/harness/globals.ts) sees a replaced named global, a polluted or emptied
 * built-in prototype and a replaced built-in method — symbol keys included — and puts each back.
 */
import nodeCrypto, { createHash } from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import util, { isDeepStrictEqual } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import type { Checker } from '../check/checker.ts';
import { ALL_CHECKERS } from '../check/checkers/index.ts';
import { CRASHPOINT_PROPERTIES, crashTerminalResult } from '../fuzz/crashpoint-oracles.ts';
import * as api from '../index.ts';
import { ALERTS_PROVIDER, Bundle, World } from '../index.ts';
import { changedGlobals, globalsAdvice, restoreGlobals, snapshotGlobals } from './globals.ts';
import { watchExports } from './own-objects.ts';

type Loose = Record<PropertyKey, unknown>;

describe('the globals watcher', () => {
  watchExports('cetp-sim', api);
  const before = snapshotGlobals();
  afterEach(() => restoreGlobals(before));

  it('sees nothing when nothing changed', () => {
    expect(changedGlobals(snapshotGlobals())).toEqual([]);
    expect(changedGlobals(before)).toEqual([]);
  });

  it('sees a property added to Object.prototype (pollution) and deletes it', () => {
    (Object.prototype as Loose).retryable = false;
    expect(({} as Loose).retryable).toBe(false);
    expect(changedGlobals(before)).toEqual(['Object.prototype.retryable (added)']);
    restoreGlobals(before);
    expect(({} as Loose).retryable).toBeUndefined();
    expect(changedGlobals(before)).toEqual([]);
  });

  it('sees a replaced built-in method and a replaced symbol-keyed one, and puts both back', () => {
    const includes = Array.prototype.includes;
    const iterator = String.prototype[Symbol.iterator];
    Array.prototype.includes = () => true;
    (String.prototype as unknown as Loose)[Symbol.iterator] = function* () {};
    expect(changedGlobals(before)).toEqual(['Array.prototype.includes', 'String.prototype[Symbol.iterator]']);
    restoreGlobals(before);
    expect(Array.prototype.includes).toBe(includes);
    expect(String.prototype[Symbol.iterator]).toBe(iterator);
    expect([...'ab']).toEqual(['a', 'b']);
  });

  it('sees a deleted built-in and a changed attribute (a frozen method), and restores them', () => {
    const trim = String.prototype.trim;
    delete (String.prototype as Partial<typeof String.prototype>).trim;
    Object.defineProperty(Math, 'max', { writable: false });
    expect(changedGlobals(before)).toEqual(['Math.max', 'String.prototype.trim (deleted)']);
    restoreGlobals(before);
    expect(String.prototype.trim).toBe(trim);
    expect(Object.getOwnPropertyDescriptor(Math, 'max')?.writable).toBe(true);
  });

  it('sees a replaced named global and a host method', () => {
    const uuid = crypto.randomUUID; // determinism-ok: a reference to the global under test, never called
    crypto.randomUUID = () => '00000000-0000-4000-8000-000000000000'; // determinism-ok: a replacement under test
    globalThis.structuredClone = ((v: unknown) => v) as typeof structuredClone;
    expect(changedGlobals(before)).toEqual(['structuredClone', 'crypto.randomUUID']);
    restoreGlobals(before);
    expect(crypto.randomUUID).toBe(uuid); // determinism-ok: compares the global, never calls it
  });

  it("sees Node's built-ins replaced: a byte count, a Buffer method, the encoder, nextTick", () => {
    const byteLength = Buffer.byteLength;
    const nextTick = process.nextTick;
    Buffer.byteLength = () => 0;
    (Buffer.prototype as unknown as Loose).toString = () => '';
    (TextEncoder.prototype as unknown as Loose).encode = () => new Uint8Array();
    process.nextTick = (() => {}) as typeof process.nextTick;
    const changed = changedGlobals(before);
    restoreGlobals(before);
    // The test runner itself queues with nextTick: put it back even if the watcher missed it.
    process.nextTick = nextTick;
    expect(changed).toEqual([
      'process.nextTick',
      'Buffer.byteLength',
      'Buffer.prototype.toString',
      'TextEncoder.prototype.encode',
    ]);
    expect(Buffer.byteLength).toBe(byteLength);
    expect(process.nextTick).toBe(nextTick);
    expect(Buffer.from('é').toString()).toBe('é');
    expect(Buffer.byteLength('é')).toBe(2);
    expect(new TextEncoder().encode('é')).toHaveLength(2);
  });

  it("sees Node's built-in modules' exports and a Hash's prototype patched (builtin-modules.ts), and puts them back, named imports too", () => {
    const real = util.isDeepStrictEqual;
    (util as Loose).isDeepStrictEqual = () => true;
    syncBuiltinESMExports();
    expect(isDeepStrictEqual(1, 2)).toBe(true);
    const hashProto = Object.getPrototypeOf(createHash('sha256')) as Loose;
    hashProto.digest = () => 'forged';
    (nodeCrypto as unknown as Loose).cetpAdded = 1;
    const changed = changedGlobals(before);
    restoreGlobals(before);
    expect(changed).toEqual([
      'node:util.isDeepStrictEqual',
      'node:crypto.cetpAdded (added)',
      'node:crypto Hash.prototype.digest',
    ]);
    expect(globalsAdvice(changed.slice(0, 1))).toMatch(
      /^replaced node:util\.isDeepStrictEqual — a Node built-in module's export cetp-sim's own code computes with/,
    );
    expect(util.isDeepStrictEqual).toBe(real);
    expect(isDeepStrictEqual(1, 2)).toBe(false);
    expect(createHash('sha256').update('x').digest('hex')).toHaveLength(64);
    expect(changedGlobals(before)).toEqual([]);
  });

  it('says "changed" when a property was added or deleted, "replaced" otherwise', () => {
    expect(globalsAdvice(['Math.random'])).toMatch(/^replaced Math\.random — a global/);
    expect(globalsAdvice(['Object.prototype.x (added)', 'JSON.parse'])).toMatch(
      /^changed Object\.prototype\.x \(added\), JSON\.parse — globals/,
    );
  });

  it("sees cetp-sim's own classes, exported objects and checkers patched (own-objects.ts), and puts them back", () => {
    const run = World.prototype.run;
    const install = ALERTS_PROVIDER.install;
    const [first] = ALL_CHECKERS;
    const check = first?.check;
    World.prototype.run = async () => ({}) as Awaited<ReturnType<typeof run>>;
    (Bundle as unknown as Loose).forged = true;
    (ALERTS_PROVIDER as unknown as Loose).install = () => {};
    if (first) (first as unknown as Loose).check = () => [];
    // A prototype of the world's own parts, reached through an instance.
    const trace = Object.getPrototypeOf(new World({ seed: 0 }).trace) as Loose;
    const record = trace.record;
    trace.record = () => {};
    const changed = changedGlobals(before);
    restoreGlobals(before);
    expect(changed).toEqual(
      expect.arrayContaining([
        "cetp-sim's World.prototype.run",
        "cetp-sim's Bundle.forged (added)",
        "cetp-sim's ALERTS_PROVIDER.install",
        `cetp-sim's checker ${first?.id}.check`,
        "cetp-sim's Trace.prototype.record",
      ]),
    );
    expect(changed).toHaveLength(5);
    expect(World.prototype.run).toBe(run);
    expect(ALERTS_PROVIDER.install).toBe(install);
    expect(first?.check).toBe(check);
    expect(trace.record).toBe(record);
    expect(changedGlobals(before)).toEqual([]);
    expect(globalsAdvice(changed)).toMatch(
      /cetp-sim's own code, the test bed that judges the module \(restored\)/,
    );
  });

  it("sees a crash-point checker patched and a property's checker list emptied (the registry's lists), and puts them back", () => {
    const raw = CRASHPOINT_PROPERTIES[0];
    const list = raw?.checkers as Checker[] | undefined;
    const kept = list ? [...list] : [];
    const check = crashTerminalResult.check;
    (crashTerminalResult as unknown as Loose).check = () => [];
    list?.splice(0, list.length);
    const changed = changedGlobals(before);
    restoreGlobals(before);
    expect(changed).toEqual(
      expect.arrayContaining([
        // The checker is named by the first path that reaches it (here: its place in the list).
        expect.stringMatching(/\.check$/),
        `cetp-sim's the checkers of property ${raw?.id}.length`,
      ]),
    );
    expect(crashTerminalResult.check).toBe(check);
    expect(list).toEqual(kept);
  });
});
