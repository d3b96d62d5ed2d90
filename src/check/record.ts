/**
 * A finished run's record as plain data (issue #31): the trace, every ContentProvider call with its
 * Bundles, the world's ground truth (effects, screens, commits, file results, agent calls), what the
 * package manager knows at the end (UIDs, discovery services, signers) and the committed storage.
 * Everything an oracle reads of a run is here, and nothing else: no live object of the world, no
 * function, no class but Map-free plain objects, arrays and Uint8Arrays — so a record survives a
 * structured clone, and the oracles can judge a run in a realm where the code that ran it (a user's
 * module) was never loaded.
 *
 * `recordRun` is the one extractor: a pure read of a finished world. `bundleOf` gives the judge its
 * Bundles back, with recorded stand-ins for the system objects a Bundle may carry (a PendingIntent's
 * record, a file descriptor's description) holding what the oracles read of them at the end of the run.
 */
import type { JsonValue } from '../base/json.ts';
import { identityFingerprint } from '../providers/sdk/identity.ts';
import { Bundle, type BundleEntry } from '../sim/binder/bundle.ts';
import type { ContentCallRecord, ContentCallResult, ServedInterval } from '../sim/content/content.ts';
import { hashEvents, type TraceEvent } from '../sim/core/trace.ts';
import type { ParcelFileDescriptor } from '../sim/fd/fd.ts';
import type { AgentCallRecord, CommitRecord, EffectRecord, ScreenRecord } from '../sim/ground-truth.ts';
import { apkContentsSigners } from '../sim/pm/signing.ts';
import type { ComponentName } from '../sim/ui/intent.ts';
import type { PendingIntent } from '../sim/ui/pending-intent.ts';
import type { RunReport, World } from '../sim/world.ts';

/** A PendingIntent as the oracles see it: its system record's identity and what it resolves to. */
export interface RecordedPendingIntent {
  readonly id: number;
  readonly creatorUid: number;
  readonly creatorPackage: string;
  readonly immutable: boolean;
  readonly targeted: boolean;
  readonly components: readonly ComponentName[];
}

/** A file descriptor as the oracles see it: the kernel description behind it at the end of the run. */
export interface RecordedFd {
  readonly fd: number;
  readonly hasCommChannel: boolean;
  readonly mode: string;
  readonly label: string;
  readonly target:
    | { readonly kind: 'file'; readonly path: string; readonly bytes: Uint8Array }
    | { readonly kind: 'pipe'; readonly id: number; readonly writers: number; readonly end: string };
}

export type RecordedEntry =
  | Exclude<BundleEntry, { type: 'Bundle' | 'PendingIntent' | 'ParcelFileDescriptor' }>
  | { readonly type: 'Bundle'; readonly value: RecordedBundle | null }
  | { readonly type: 'PendingIntent'; readonly value: RecordedPendingIntent | null }
  | { readonly type: 'ParcelFileDescriptor'; readonly value: RecordedFd | null };

/** A Bundle's entries in order. */
export type RecordedBundle = readonly (readonly [string, RecordedEntry])[];

export type RecordedResult =
  | {
      readonly kind: 'reply';
      readonly reply: RecordedBundle | null;
      readonly step: number;
      readonly t: number;
    }
  | {
      readonly kind: 'exception';
      readonly exception: string;
      readonly step: number;
      readonly t: number;
      readonly undelivered?: RecordedBundle | null;
    };

export interface RecordedCall extends Omit<ContentCallRecord, 'extras' | 'result' | 'served'> {
  readonly extras: RecordedBundle | null;
  readonly result?: RecordedResult;
  readonly served?: ServedInterval;
}

/** A package as the package manager knows it at the end of the run. */
export interface RecordedPackage {
  readonly uid: number;
  readonly manifest: {
    readonly services: readonly {
      readonly intentFilters: readonly { readonly actions: readonly string[] }[];
      readonly metaData: Readonly<Record<string, string>>;
    }[];
  };
  /** SHA-256 of each current signer (apkContentsSigners). */
  readonly certDigests: readonly string[];
}

export interface FileResult {
  readonly step: number;
  readonly target: string;
  readonly mode: string;
  readonly bytes: Uint8Array;
}

export interface RunRecord {
  readonly report: Omit<RunReport, 'traceHash'>;
  readonly events: readonly TraceEvent[];
  readonly calls: readonly RecordedCall[];
  readonly truth: {
    readonly effects: readonly EffectRecord[];
    readonly screens: readonly ScreenRecord[];
    readonly commits: readonly CommitRecord[];
    readonly fileResults: readonly FileResult[];
    readonly agentCalls: readonly AgentCallRecord[];
  };
  /** Installed packages by name, in install order. */
  readonly packages: Readonly<Record<string, RecordedPackage>>;
  /** Every package of each UID, in install order (PackageManager.getPackagesForUid). */
  readonly uids: Readonly<Record<number, readonly string[]>>;
  /** Committed rows of every table a commit of the run wrote, by package then table, in key order. */
  readonly storage: Readonly<
    Record<string, Readonly<Record<string, readonly (readonly [string, JsonValue])[]>>>
  >;
  /** Step after which the scenario promised no more faults (for liveness), or null. */
  readonly quietFromStep: number | null;
}

function recordPendingIntent(pi: PendingIntent): RecordedPendingIntent {
  return {
    id: pi.record.id,
    creatorUid: pi.getCreatorUid(),
    creatorPackage: pi.getCreatorPackage(),
    immutable: pi.isImmutable(),
    targeted: pi.isTargetedToPackage(),
    components: pi
      .queryIntentComponents()
      .map((c) => ({ packageName: c.packageName, className: c.className })),
  };
}

function recordFd(pfd: ParcelFileDescriptor): RecordedFd {
  const d = pfd.description;
  const target: RecordedFd['target'] =
    d.target.kind === 'file'
      ? { kind: 'file', path: d.target.file.path, bytes: d.target.file.bytes }
      : { kind: 'pipe', id: d.target.pipe.id, writers: d.target.pipe.writers, end: d.target.end };
  return { fd: pfd.fd, hasCommChannel: pfd.hasCommChannel, mode: d.mode, label: d.label, target };
}

function recordEntry(e: BundleEntry): RecordedEntry {
  switch (e.type) {
    case 'Bundle':
      return { type: 'Bundle', value: e.value === null ? null : recordBundle(e.value) };
    case 'PendingIntent':
      return { type: 'PendingIntent', value: e.value === null ? null : recordPendingIntent(e.value) };
    case 'ParcelFileDescriptor':
      return { type: 'ParcelFileDescriptor', value: e.value === null ? null : recordFd(e.value) };
    default:
      return e;
  }
}

export function recordBundle(b: Bundle): RecordedBundle {
  const out: (readonly [string, RecordedEntry])[] = [];
  b.forEachEntry((e, key) => {
    out.push([key, recordEntry(e)]);
  });
  return out;
}

function recordResult(r: ContentCallResult): RecordedResult {
  // Field by field, in the record's own order (an object spread takes V8's slow path; a call's
  // record is copied once per run and read back once: issue 37).
  if (r.kind === 'reply')
    return { kind: 'reply', reply: r.reply === null ? null : recordBundle(r.reply), step: r.step, t: r.t };
  const { undelivered } = r;
  if (undelivered === undefined) return { kind: 'exception', exception: r.exception, step: r.step, t: r.t };
  return {
    kind: 'exception',
    exception: r.exception,
    step: r.step,
    t: r.t,
    undelivered: undelivered === null ? null : recordBundle(undelivered),
  };
}

type CallHead = Omit<ContentCallRecord, 'extras' | 'result' | 'served'>;

/** The fields of a call's record every copy keeps as they are, in the record's order. */
function callHead(c: CallHead): CallHead {
  if (c.callerProcess === undefined && c.providerProcess === undefined)
    return {
      id: c.id,
      caller: c.caller,
      callerUid: c.callerUid,
      callerPid: c.callerPid,
      provider: c.provider,
      providerUid: c.providerUid,
      authority: c.authority,
      method: c.method,
      arg: c.arg,
      stable: c.stable,
      step: c.step,
      t: c.t,
    };
  const { extras: _e, result: _r, served: _s, ...head } = c as ContentCallRecord;
  return head;
}

function recordCall(c: ContentCallRecord): RecordedCall {
  const out: { -readonly [K in keyof RecordedCall]: RecordedCall[K] } = callHead(c) as RecordedCall;
  out.extras = c.extras === null ? null : recordBundle(c.extras);
  if (c.result) out.result = recordResult(c.result);
  if (c.served)
    out.served = { pid: c.served.pid, fromStep: c.served.fromStep, untilStep: c.served.untilStep };
  return out;
}

/** The committed rows of every table the run's commits wrote. */
function recordStorage(world: World): RunRecord['storage'] {
  const tables = new Map<string, Set<string>>();
  for (const c of world.truth.commits) {
    const names = tables.get(c.packageName) ?? new Set<string>();
    tables.set(c.packageName, names);
    for (const w of c.writes) names.add(w.table);
  }
  const out: Record<string, Record<string, [string, JsonValue][]>> = {};
  for (const [pkg, names] of tables) {
    const store = world.storage(pkg);
    const ofPackage: Record<string, [string, JsonValue][]> = {};
    for (const table of names) ofPackage[table] = [...store.snapshot(table)];
    out[pkg] = ofPackage;
  }
  return out;
}

/** The record of a finished run (a read of the world; nothing in it is changed). */
export function recordRun(world: World, report: RunReport, quietFromStep: number | null = null): RunRecord {
  const packages: Record<string, RecordedPackage> = {};
  const uids: Record<number, readonly string[]> = {};
  for (const p of world.pm.getInstalledPackages()) {
    packages[p.packageName] = {
      uid: p.uid,
      manifest: {
        services: p.manifest.services.map((s) => ({
          intentFilters: s.intentFilters.map((f) => ({ actions: [...f.actions] })),
          metaData: { ...s.metaData },
        })),
      },
      certDigests: apkContentsSigners(p.signing).map((c) => c.sha256),
    };
    uids[p.uid] ??= world.pm.getPackagesForUid(p.uid) ?? [];
  }
  const truth = world.truth;
  return {
    report: {
      outcome: report.outcome,
      steps: report.steps,
      decisions: report.decisions,
      fdLeaks: report.fdLeaks,
      unappliedFaults: report.unappliedFaults,
      crashes: report.crashes,
    },
    events: world.trace.events,
    calls: (world.contentCalls ?? []).map(recordCall),
    truth: {
      effects: truth.effects,
      screens: truth.screens,
      commits: truth.commits,
      fileResults: truth.fileResults.map((r) => ({
        step: r.step,
        target: r.target,
        mode: r.mode,
        bytes: r.bytes,
      })),
      agentCalls: truth.agentCalls,
    },
    packages,
    uids,
    storage: recordStorage(world),
    quietFromStep,
  };
}

// ---- reading a record ----

/** The package as the run left it, or null if it was not installed at the end. */
export function packageOf(record: RunRecord, packageName: string): RecordedPackage | null {
  return Object.hasOwn(record.packages, packageName) ? (record.packages[packageName] ?? null) : null;
}

/** The package's UID at the end of the run (PackageManager.getPackageUid), or null. */
export function uidOf(record: RunRecord, packageName: string): number | null {
  return packageOf(record, packageName)?.uid ?? null;
}

/** Committed rows of `table` of `pkg` at the end of the run. */
export function storedRows(record: RunRecord, pkg: string, table: string): Map<string, JsonValue> {
  const rows = Object.hasOwn(record.storage, pkg) ? record.storage[pkg] : undefined;
  return new Map(rows && Object.hasOwn(rows, table) ? rows[table] : []);
}

/**
 * Who `uid` is at the end of the run (every package, current signers), fingerprinted as the grant
 * policy binds a grant (7.1-06): read from the package manager's record, not through any app's view.
 */
export function identityOf(record: RunRecord, uid: number): string {
  const packages = [...(Object.hasOwn(record.uids, uid) ? (record.uids[uid] ?? []) : [])];
  const certDigests: Record<string, readonly string[]> = {};
  for (const p of packages) certDigests[p] = packageOf(record, p)?.certDigests ?? [];
  return identityFingerprint({ uid, packages, certDigests });
}

/**
 * The run's report, its trace hash computed from the recorded events when asked (a class, not an
 * object literal with a getter: see src/sim/world-types.ts Report).
 */
class RecordReport implements RunReport {
  private hash: string | null = null;
  readonly outcome: RunReport['outcome'];
  readonly steps: number;
  readonly decisions: readonly number[];
  readonly fdLeaks: RunReport['fdLeaks'];
  readonly unappliedFaults: RunReport['unappliedFaults'];
  readonly crashes: RunReport['crashes'];

  constructor(private readonly record: RunRecord) {
    const r = record.report;
    this.outcome = r.outcome;
    this.steps = r.steps;
    this.decisions = r.decisions;
    this.fdLeaks = r.fdLeaks;
    this.unappliedFaults = r.unappliedFaults;
    this.crashes = r.crashes;
  }

  get traceHash(): string {
    this.hash ??= hashEvents(this.record.events);
    return this.hash;
  }
}

/** The run's report, its trace hash computed from the recorded events when asked. */
export function reportOf(record: RunRecord): RunReport {
  return new RecordReport(record);
}

/** What the oracles read of a PendingIntent, from its record (the methods the live one has). */
class PendingIntentOnRecord {
  readonly record: { readonly id: number };
  constructor(private readonly recorded: RecordedPendingIntent) {
    this.record = { id: recorded.id };
  }
  getCreatorUid(): number {
    return this.recorded.creatorUid;
  }
  getCreatorPackage(): string {
    return this.recorded.creatorPackage;
  }
  isImmutable(): boolean {
    return this.recorded.immutable;
  }
  isActivity(): boolean {
    return true;
  }
  queryIntentComponents(): ComponentName[] {
    return this.recorded.components.map((c) => ({ ...c }));
  }
  isTargetedToPackage(): boolean {
    return this.recorded.targeted;
  }
  sameToken(other: PendingIntentOnRecord | null): boolean {
    return other !== null && other.record.id === this.record.id;
  }
  toString(): string {
    return `PendingIntent{#${this.recorded.id} ${this.recorded.creatorPackage}}`;
  }
}

/** What the oracles read of a file descriptor: its description (mode, label, the file or pipe behind it). */
function fdOnRecord(fd: RecordedFd): ParcelFileDescriptor {
  const t = fd.target;
  const target =
    t.kind === 'file'
      ? { kind: 'file', file: { path: t.path, bytes: t.bytes } }
      : { kind: 'pipe', pipe: { id: t.id, writers: t.writers }, end: t.end };
  return {
    fd: fd.fd,
    hasCommChannel: fd.hasCommChannel,
    description: { mode: fd.mode, label: fd.label, target },
  } as unknown as ParcelFileDescriptor;
}

function entryOf(e: RecordedEntry): BundleEntry {
  switch (e.type) {
    case 'Bundle':
      return { type: 'Bundle', value: e.value === null ? null : bundleOf(e.value) };
    case 'PendingIntent':
      return {
        type: 'PendingIntent',
        value: e.value === null ? null : (new PendingIntentOnRecord(e.value) as unknown as PendingIntent),
      };
    case 'ParcelFileDescriptor':
      return { type: 'ParcelFileDescriptor', value: e.value === null ? null : fdOnRecord(e.value) };
    default:
      return e;
  }
}

/** A recorded Bundle as a Bundle again (its system objects as recorded stand-ins). */
export function bundleOf(recorded: RecordedBundle): Bundle {
  const bundle = new Bundle();
  for (const [k, e] of recorded) bundle.putEntry(k, entryOf(e));
  return bundle;
}

/** A recorded call as the call record the oracles decode (observation.ts viewCall). */
export function callOf(c: RecordedCall): ContentCallRecord {
  const out = callHead(c) as { -readonly [K in keyof ContentCallRecord]: ContentCallRecord[K] };
  if (c.served !== undefined) out.served = c.served;
  out.extras = c.extras === null ? null : bundleOf(c.extras);
  const result = c.result;
  if (result === undefined) return out;
  if (result.kind === 'reply')
    out.result = {
      kind: 'reply',
      reply: result.reply === null ? null : bundleOf(result.reply),
      step: result.step,
      t: result.t,
    };
  else if (result.undelivered === undefined)
    out.result = { kind: 'exception', exception: result.exception, step: result.step, t: result.t };
  else
    out.result = {
      kind: 'exception',
      exception: result.exception,
      step: result.step,
      t: result.t,
      undelivered: result.undelivered === null ? null : bundleOf(result.undelivered),
    };
  return out;
}
