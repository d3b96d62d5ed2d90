/**
 * Re-signing a package with the key that already signs it changes nothing about who it is.
 *
 * Found by a fuzz campaign (`fuzz --seed 20261202`, identity): a scenario re-signed the shared-UID
 * package com.fuzz.shared.one with key rotation to "rotated-shared" twice. The simulated
 * PackageManager appended the same certificate to the lineage a second time, so the second "rotation"
 * looked like a signing change, and resign-ends-session reported the reference provider for honouring
 * a session across it — though the caller's certificates had not changed (and no real lineage lists a
 * certificate twice: apksigner refuses such a rotation). Rotating to the current key is now an
 * ordinary update under the same key; a lineage listing a certificate twice is a structural problem.
 */
import { describe, expect, it } from 'vitest';
import type { Scenario } from '../src/fuzz/scenario/model.ts';
import { REFERENCE } from '../src/fuzz/scenario/model.ts';
import { runScenario } from '../src/fuzz/scenario/runner.ts';
import { PROPERTIES } from '../src/fuzz/suites.ts';

const FOUND: Scenario = {
  seed: 0,
  tail: 'fifo',
  actors: {
    a: [
      {
        kind: 'execute',
        provider: 'alerts',
        tool: 'create_alert',
        args: 0,
        rid: {
          kind: 'fresh',
        },
        expiredDeadline: false,
        confirmedFlag: false,
        resolve: 'honest',
        duplicates: 0,
      },
    ],
    b: [
      {
        kind: 'negotiate',
        caps: ['async_operations', 'cancellation', 'large_results'],
      },
    ],
    s1: [
      {
        kind: 'execute',
        provider: 'payments',
        tool: 'reconcile_accounts',
        args: 0,
        rid: {
          kind: 'reuse',
          index: 0,
        },
        expiredDeadline: false,
        confirmedFlag: false,
        resolve: 'honest',
        duplicates: 0,
      },
      {
        kind: 'poll',
        other: false,
        wrongRid: false,
      },
    ],
    s2: [
      {
        kind: 'execute',
        provider: 'payments',
        tool: 'transfer',
        args: 0,
        rid: {
          kind: 'reuse',
          index: 0,
        },
        expiredDeadline: false,
        confirmedFlag: false,
        resolve: 'none',
        duplicates: 0,
      },
      {
        kind: 'execute',
        provider: 'payments',
        tool: 'transfer',
        args: 0,
        rid: {
          kind: 'fresh',
        },
        expiredDeadline: false,
        confirmedFlag: false,
        resolve: 'honest',
        duplicates: 0,
      },
    ],
  },
  user: [],
  faults: [
    {
      at: 27,
      fault: {
        kind: 'resign',
        package: 'com.fuzz.shared.one',
        cert: 'rotated-shared',
        rotate: true,
      },
    },
    {
      at: 18,
      fault: {
        kind: 'resign',
        package: 'com.fuzz.shared.one',
        cert: 'rotated-shared',
        rotate: true,
      },
    },
  ],
  decisions: [2, 0, 7, 6],
};

describe('re-signing with the same key', () => {
  it('CETP-7.1-06 CETP-2.2-14: a second rotation to the key already in use is not a signing change', async () => {
    const identity = PROPERTIES.find((p) => p.id === 'identity');
    if (identity?.kind !== 'raw') throw new Error('the identity property drives the raw driver');
    const run = await runScenario(identity.fixture, FOUND, REFERENCE);
    const updates = run.world.trace.events.filter((e) => e.kind === 'pm.update');
    expect(updates).toHaveLength(2);
    // The first rotation changes the signing; the second leaves it exactly as it was.
    const signing = updates.map((e) => JSON.stringify(e.data.signing));
    expect(signing[1]).toBe(signing[0]);
    expect(run.violations).toEqual([]);
  });
});
