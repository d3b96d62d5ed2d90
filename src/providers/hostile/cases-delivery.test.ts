/**
 * The hostile cases about how a result is delivered, as a RawClient sees them over simulated
 * Binder: file results whose size, digest, fd mode or transport lie (spec §4.5), resolution
 * PendingIntents that are mutable, implicit or relayed from another package (§4.3, §7.2), and a
 * reply too large for Binder.
 */
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../protocol/index.ts';
import type { Bundle } from '../../sim/binder/bundle.ts';
import { DeadObjectException } from '../../sim/core/errors.ts';
import type { ParcelFileDescriptor } from '../../sim/fd/fd.ts';
import { RESULT_OK } from '../../sim/ui/activity.ts';
import type { PendingIntent } from '../../sim/ui/pending-intent.ts';
import type { World } from '../../sim/world.ts';
import { data, type RawClient, status } from '../testing.ts';
import { HOSTILE_CASES } from './cases.ts';
import { HOSTILE_CONFIRM_ACTIVITY, HOSTILE_PACKAGE, PEER_PACKAGE } from './manifest.ts';
import { INJECTION_MARKER } from './payloads.ts';
import { type HostileRun, isDeliveryCase, readBounded, runHostile } from './testing.ts';

const MIB = 1024 * 1024;

interface FileAnswer {
  readonly declared: { size_bytes: number; sha256: string; kind: string };
  readonly fd: ParcelFileDescriptor;
}

async function fileAnswer(c: RawClient): Promise<FileAnswer> {
  await c.negotiate();
  const reply = await c.execute('lookup', { query: 'statement' });
  expect(status(reply)).toBe('success');
  const fd = reply.getParcelFileDescriptor('result_fd');
  if (!fd) throw new Error('no result_fd');
  const declared = data(reply) as unknown as FileAnswer['declared'];
  expect(declared.kind).toBe('file');
  return { declared, fd };
}

/** Reads a whole (finite) result, checks EOF, closes our copy. */
async function readAll(c: RawClient, fd: ParcelFileDescriptor): Promise<Uint8Array> {
  const read = await readBounded(c.ctx, fd, 8 * MIB, 60_000);
  expect(read.eof).toBe(true);
  fd.close();
  return read.bytes;
}

/** The reply's resolution PendingIntent, checked: its creator package, whether immutable and targeted. */
function checkResolutionPi(
  reply: Bundle,
  want: { creator: string; immutable: boolean; targeted: boolean },
): PendingIntent | null {
  const pi = reply.getPendingIntent('resolution');
  expect(pi?.getCreatorPackage()).toBe(want.creator);
  expect(pi?.isImmutable()).toBe(want.immutable);
  expect(pi?.isTargetedToPackage()).toBe(want.targeted);
  return pi;
}

async function resolution(c: RawClient): Promise<Bundle> {
  await c.negotiate();
  const reply = await c.execute('lookup', { query: 'pay' });
  expect(reply.getString('resume_token')).toMatch(/^[0-9a-f]{64}$/);
  return reply;
}

interface Observation {
  readonly during: (c: RawClient, world: World) => Promise<void>;
  readonly after?: (run: HostileRun) => void;
}

const noLeaks = (run: HostileRun) => expect(run.report.fdLeaks).toEqual([]);

const OBSERVATIONS: Readonly<Record<string, Observation>> = {
  'injection-in-file-result': {
    during: async (c) => {
      const { declared, fd } = await fileAnswer(c);
      expect(declared.size_bytes).toBe(2 * MIB);
      const bytes = await readAll(c, fd);
      expect(bytes.length).toBe(declared.size_bytes);
      expect(sha256Hex(bytes)).toBe(declared.sha256);
      const text = new TextDecoder().decode(bytes);
      expect(text.split(INJECTION_MARKER).length).toBeGreaterThan(1000);
      expect(JSON.parse(text)).toHaveProperty('answer');
    },
    after: noLeaks,
  },
  'file-size-wrong': {
    during: async (c) => {
      const { declared, fd } = await fileAnswer(c);
      const bytes = await readAll(c, fd);
      expect(declared.size_bytes).toBe(bytes.length + 1);
      expect(sha256Hex(bytes)).toBe(declared.sha256);
    },
    after: noLeaks,
  },
  'file-sha256-wrong': {
    during: async (c) => {
      const { declared, fd } = await fileAnswer(c);
      const bytes = await readAll(c, fd);
      expect(declared.size_bytes).toBe(bytes.length);
      expect(declared.sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(declared.sha256).not.toBe(sha256Hex(bytes));
    },
    after: noLeaks,
  },
  'file-sha256-uppercase': {
    during: async (c) => {
      const { declared, fd } = await fileAnswer(c);
      const digest = sha256Hex(await readAll(c, fd));
      expect(declared.sha256).toMatch(/^[0-9A-F]{64}$/);
      expect(declared.sha256).toBe(digest.toUpperCase());
      expect(declared.sha256).not.toBe(digest);
    },
    after: noLeaks,
  },
  'file-fd-writable': {
    during: async (c) => {
      const { fd } = await fileAnswer(c);
      expect(fd.mode).toBe('rw');
      await expect(fd.write(new TextEncoder().encode('{"answer":"tampered"}'))).resolves.toBeUndefined();
      fd.close();
    },
    after: noLeaks,
  },
  'file-pipe-never-eof': {
    during: async (c) => {
      const { declared, fd } = await fileAnswer(c);
      expect(fd.getStatSize()).toBe(-1);
      const read = await readBounded(c.ctx, fd, 8 * MIB, 60_000);
      expect(read.eof).toBe(false);
      expect(read.bytes.length).toBe(declared.size_bytes);
      fd.close();
    },
    // The hostile provider still holds the write end open.
    after: (run) => {
      expect(run.report.fdLeaks.map((l) => [l.process, l.target.endsWith(':write')])).toEqual([
        [HOSTILE_PACKAGE, true],
      ]);
    },
  },
  'file-pipe-writer-dies': {
    during: async (c) => {
      const { declared, fd } = await fileAnswer(c);
      const read = await readBounded(c.ctx, fd, 8 * MIB, 60_000);
      expect(read.eof).toBe(true);
      expect(read.bytes.length).toBeLessThan(declared.size_bytes);
      expect(read.checkError).toMatch(/dead/i);
      fd.close();
    },
    after: (run) => {
      expect(run.report.crashes.map((c) => c.task)).toEqual([`${HOSTILE_PACKAGE}:hostile-dying-writer`]);
    },
  },
  'file-much-larger-than-declared': {
    during: async (c) => {
      const { declared, fd } = await fileAnswer(c);
      expect(declared.size_bytes).toBe(1024);
      expect(fd.getStatSize()).toBe(4 * MIB);
      const read = await readBounded(c.ctx, fd, declared.size_bytes, 60_000);
      expect(read.overLimit).toBe(true);
      fd.close();
    },
    after: noLeaks,
  },
  'resolution-mutable-pending-intent': {
    during: async (c) => {
      const reply = await resolution(c);
      expect(status(reply)).toBe('error:USER_ACTION_REQUIRED');
      checkResolutionPi(reply, { creator: HOSTILE_PACKAGE, immutable: false, targeted: true });
    },
  },
  'resolution-implicit-pending-intent': {
    during: async (c) => {
      const reply = await resolution(c);
      const pi = checkResolutionPi(reply, { creator: HOSTILE_PACKAGE, immutable: true, targeted: false });
      // Whoever declares the action can answer it; today only the hostile app does.
      expect(pi?.queryIntentComponents()).toEqual([
        { packageName: HOSTILE_PACKAGE, className: HOSTILE_CONFIRM_ACTIVITY },
      ]);
    },
  },
  'resolution-relayed-pending-intent': {
    during: async (c, world) => {
      const reply = await resolution(c);
      expect(status(reply)).toBe('error:AUTH_REQUIRED');
      // Explicit and immutable — only the system-set creator tells it is not the provider's own.
      const pi = checkResolutionPi(reply, { creator: PEER_PACKAGE, immutable: true, targeted: true });
      expect(pi?.getCreatorUid()).toBe(world.pm.getPackageUid(PEER_PACKAGE));
      expect(await c.resolve(reply)).toBe(RESULT_OK);
      expect(world.user.screensSeen[0]?.activity.packageName).toBe(PEER_PACKAGE);
      const resumed = await c.execute(
        'lookup',
        { query: 'pay' },
        {
          resumeToken: reply.getString('resume_token') ?? '',
        },
      );
      expect(status(resumed)).toBe('success');
    },
  },
  'file-result-off-schema': {
    during: async (c) => {
      const { declared, fd } = await fileAnswer(c);
      const bytes = await readAll(c, fd);
      expect(declared.size_bytes).toBe(bytes.length);
      expect(declared.sha256).toBe(sha256Hex(bytes));
      // Well-formed JSON, honestly delivered — and `answer` is not the string the schema requires.
      expect(typeof JSON.parse(new TextDecoder().decode(bytes)).answer).toBe('number');
    },
    after: noLeaks,
  },
  'file-over-local-limit': {
    during: async (c) => {
      const { declared, fd } = await fileAnswer(c);
      const read = await readBounded(c.ctx, fd, 32 * MIB, 60_000);
      fd.close();
      expect(read.eof).toBe(true);
      expect(read.bytes.length).toBeGreaterThan(16 * MIB);
      expect(declared.size_bytes).toBe(read.bytes.length);
      expect(declared.sha256).toBe(sha256Hex(read.bytes));
    },
    after: noLeaks,
  },
  'oversized-reply': {
    during: async (c, world) => {
      await c.negotiate();
      await expect(c.execute('lookup', { query: 'everything' })).rejects.toBeInstanceOf(DeadObjectException);
      expect(world.trace.ofKind('binder.reply.failed')).toHaveLength(1);
      // The provider itself is alive: only the reply failed.
      expect(status(await c.negotiate())).toBe('success');
    },
  },
};

describe('hostile delivery cases', () => {
  it('every delivery case has an observation', () => {
    const mine = HOSTILE_CASES.filter(isDeliveryCase).map((c) => c.id);
    expect(mine.filter((id) => !(id in OBSERVATIONS))).toEqual([]);
    expect(Object.keys(OBSERVATIONS).filter((id) => !mine.includes(id))).toEqual([]);
  });

  it('every observation fails against an honest provider (so each one can fail)', async () => {
    for (const [id, observation] of Object.entries(OBSERVATIONS)) {
      await expect(runHostile({}, observation.during), id).rejects.toThrow();
    }
  });

  for (const hostile of HOSTILE_CASES.filter(isDeliveryCase)) {
    it(`${hostile.id} [${hostile.ruleIds.join(' ')}]: ${hostile.description}`, async () => {
      const observation = OBSERVATIONS[hostile.id];
      if (!observation) throw new Error(`no observation for ${hostile.id}`);
      const run = await runHostile(hostile.behaviour, observation.during, {
        user: { kind: 'scripted', decisions: ['approve'] },
      });
      expect(run.report.outcome).toEqual({ kind: 'completed' });
      observation.after?.(run);
    });
  }
});
