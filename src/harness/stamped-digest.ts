/**
 * A digest computed from files (code-identity.ts: cetp-sim's sources, a user module and what it
 * imports), kept on disk with the stamp — size and mtime — of every file it read and every directory
 * it listed or looked into for a file. A later call, in this process or another, re-uses it by `stat`
 * alone while every stamp is unchanged: an edited file changes its own stamp, a file added, removed or
 * renamed changes its directory's. Reading and hashing cetp-sim's ~450 sources took ~1 s of a CLI's
 * start twice over (bench/README.md, "The CLI's fixed cost"); checking ~500 stamps takes milliseconds.
 *
 * Kept in `node_modules/.cache/cetp-sim/identity-<key hash>.json` of the package (beside the CLI's
 * bundles), written atomically (a temporary file renamed). Nothing is recorded while a stamped path
 * changed in the two seconds before the record is written — it may be changing still, and a rewrite of
 * the same size within the filesystem's mtime granularity would go unseen —, so a file being edited
 * is hashed afresh each time. Any failure to read or write the record only means computing the digest.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { PACKAGE_ROOT } from './root.ts';

/** Stamps by path: `size:mtimeMs`, or '-' for a path that does not exist. */
export type Stamps = Map<string, string>;

const DIR = join(PACKAGE_ROOT, 'node_modules', '.cache', 'cetp-sim');

/** A path changed within this much before the record is written is not trusted yet. */
const SETTLE_MS = 2_000;

interface Saved {
  readonly key: string;
  readonly digest: string;
  readonly stamps: { readonly [path: string]: string };
}

/** The stamp of `path` now (a file or a directory). */
export function stampOf(path: string): string {
  const s = statSync(path, { throwIfNoEntry: false });
  return s === undefined ? '-' : `${s.size}:${s.mtimeMs}`;
}

/** Records `path`'s stamp (the first one seen: taken before the file is read). */
export function stamp(stamps: Stamps, path: string): void {
  if (!stamps.has(path)) stamps.set(path, stampOf(path));
}

const recordPath = (key: string) =>
  join(DIR, `identity-${createHash('sha256').update(key).digest('hex').slice(0, 24)}.json`);

function recorded(key: string): string | null {
  let saved: Saved;
  try {
    saved = JSON.parse(readFileSync(recordPath(key), 'utf8')) as Saved;
  } catch {
    return null;
  }
  if (saved.key !== key || typeof saved.digest !== 'string') return null;
  for (const [path, was] of Object.entries(saved.stamps)) if (stampOf(path) !== was) return null;
  return saved.digest;
}

function record(key: string, digest: string, stamps: Stamps): void {
  const path = recordPath(key);
  const temporary = `${path}.${process.pid}.${threadId}.tmp`;
  try {
    mkdirSync(DIR, { recursive: true });
    writeFileSync(temporary, JSON.stringify({ key, digest, stamps: Object.fromEntries(stamps) }));
    // The filesystem's own clock (the record's mtime), not the process's: what "two seconds ago" means to the stamps.
    const nowMs = statSync(temporary).mtimeMs;
    const unsettled = [...stamps.values()].some(
      (s) => s !== '-' && Number(s.split(':')[1]) > nowMs - SETTLE_MS,
    );
    if (unsettled) rmSync(temporary, { force: true });
    else renameSync(temporary, path);
  } catch {
    rmSync(temporary, { force: true });
  }
}

/**
 * The digest `compute` returns (it stamps every path it reads or looks into), or the one recorded
 * under `key` while all of those stamps are unchanged.
 */
export function stampedDigest(key: string, compute: (stamps: Stamps) => string): string {
  const known = recorded(key);
  if (known !== null) return known;
  const stamps: Stamps = new Map();
  const digest = compute(stamps);
  record(key, digest, stamps);
  return digest;
}
