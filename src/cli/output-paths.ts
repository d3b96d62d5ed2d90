/**
 * The files and folders a command will write (--out, --junit, --ctrf, --adb …), checked before its
 * work starts: a campaign's verdict is never replaced, minutes later, by "cannot write". Each check
 * really creates what is missing — the folders one by one (Node's recursive mkdir never returns under
 * /proc), then a probe file — and removes what it created, so the OS itself says why not (EACCES,
 * EROFS, ENOTDIR, …). A special file (a device, a FIFO) or a special file system (/proc, /sys) is
 * refused outright: writing a report there hangs or vanishes.
 */
import {
  closeSync,
  constants,
  fstatSync,
  mkdirSync,
  openSync,
  rmdirSync,
  type Stats,
  statfsSync,
  statSync,
  unlinkSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { CliError } from '../harness/errors.ts';

/** statfs magic numbers of file systems no report belongs on (linux/magic.h). */
const SPECIAL_FS: ReadonlyMap<number, string> = new Map([
  [0x9fa0, 'procfs'],
  [0x62656572, 'sysfs'],
  [0x1cd1, 'devpts'],
  [0x64626720, 'debugfs'],
  [0x74726163, 'tracefs'],
  [0x27e0eb, 'cgroupfs'],
  [0x63677270, 'cgroup2fs'],
  [0x73636673, 'securityfs'],
]);

function fail(flag: string, path: string, why: string): never {
  throw new CliError('output_unwritable', `${flag} ${path}: ${why}; nothing was run`);
}

/** The OS's own words: `EACCES: permission denied, mkdir '/x'`. */
const reason = (error: unknown) => (error instanceof Error ? error.message : String(error));

function statOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    throw error;
  }
}

function specialFs(path: string): string | null {
  try {
    return SPECIAL_FS.get(Number(statfsSync(path).type)) ?? null;
  } catch {
    return null;
  }
}

function kind(s: Stats): string {
  if (s.isDirectory()) return 'a directory (EISDIR)';
  if (s.isCharacterDevice() || s.isBlockDevice()) return 'a device, not a regular file';
  if (s.isFIFO()) return 'a FIFO, not a regular file';
  if (s.isSocket()) return 'a socket, not a regular file';
  return 'not a regular file';
}

function removeDirs(made: readonly string[]): void {
  for (const dir of [...made].reverse())
    try {
      rmdirSync(dir);
    } catch {
      // Something else wrote there meanwhile: it stays.
    }
}

/** Creates the missing folders of `dir` one by one; returns those it made (deepest last). */
function makeDirs(flag: string, shown: string, dir: string): string[] {
  const missing: string[] = [];
  let at = resolve(dir);
  for (;;) {
    let s: Stats | null;
    try {
      s = statOrNull(at);
    } catch (error) {
      return fail(flag, shown, reason(error));
    }
    if (s !== null) {
      if (!s.isDirectory()) fail(flag, shown, `${at} is not a directory (ENOTDIR)`);
      break;
    }
    missing.unshift(at);
    const up = dirname(at);
    if (up === at) break;
    at = up;
  }
  const fs = specialFs(at);
  if (fs !== null) fail(flag, shown, `${at} is on ${fs}, a special file system`);
  const made: string[] = [];
  for (const d of missing)
    try {
      mkdirSync(d);
      made.push(d);
    } catch (error) {
      removeDirs(made);
      fail(flag, shown, reason(error));
    }
  return made;
}

const PROBE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NONBLOCK ?? 0);

/**
 * Creates and removes the new file `probe` (else exit 2 naming `shown` with the OS's reason), then
 * removes the folders `made` for the check.
 */
function probeNewFile(flag: string, shown: string, probe: string, made: readonly string[]): void {
  try {
    closeSync(openSync(probe, PROBE));
    unlinkSync(probe);
  } catch (error) {
    fail(flag, shown, reason(error));
  } finally {
    removeDirs(made);
  }
}

/** A folder the command will write files into (made if missing): can it? Else exit 2 with the OS's reason. */
export function checkWritableDir(flag: string, dir: string): void {
  probeNewFile(flag, dir, join(dir, `.cetp-sim-write-check-${process.pid}`), makeDirs(flag, dir, dir));
}

/** A file the command will write (its folders made if missing): can it? Else exit 2 with the OS's reason. */
export function checkWritableFile(flag: string, path: string): void {
  let s: Stats | null = null;
  try {
    s = statOrNull(path);
  } catch (error) {
    fail(flag, path, reason(error));
  }
  if (s !== null) {
    if (!s.isFile()) fail(flag, path, `is ${kind(s)}`);
    const fs = specialFs(path);
    if (fs !== null) fail(flag, path, `is on ${fs}, a special file system`);
    try {
      const fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | (constants.O_NONBLOCK ?? 0));
      const again = fstatSync(fd);
      closeSync(fd);
      if (!again.isFile()) fail(flag, path, `is ${kind(again)}`);
    } catch (error) {
      if (error instanceof CliError) throw error;
      fail(flag, path, reason(error));
    }
    return;
  }
  probeNewFile(flag, path, path, makeDirs(flag, path, dirname(path)));
}

/** Every output of a command, checked in the order given (the first unwritable one is reported). */
export function checkOutputs(
  outputs: readonly (readonly [flag: string, path: string | undefined, as: 'file' | 'dir'])[],
): void {
  for (const [flag, path, as] of outputs) {
    if (path === undefined) continue;
    if (as === 'dir') checkWritableDir(flag, path);
    else checkWritableFile(flag, path);
  }
}
