/**
 * Reading a corpus without leaving it: a path a manifest or a vector names is relative, has no `..`
 * and no empty or `.` segment; no component of it is a symbolic link (lstat, never followed); it is
 * a regular file (not a FIFO, a device, a socket); its size and the corpus's total are bounded. All
 * of it is checked before the file is opened, and again on the open descriptor (O_NOFOLLOW,
 * O_NONBLOCK, fstat: same file, still regular, still within bounds), so a corpus from elsewhere can
 * neither read a host file, nor hang the reader on a FIFO, nor exhaust memory on /dev/zero.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readSync,
  type Stats,
  statSync,
} from 'node:fs';
import { isAbsolute, join } from 'node:path';

/** The largest file a corpus may hold (the committed corpus's largest is ~160 KB). */
export const MAX_FILE_BYTES = 16 * 1024 * 1024;
/** The most a corpus's files may hold together. */
export const MAX_CORPUS_BYTES = 128 * 1024 * 1024;

export interface Limits {
  readonly file: number;
  readonly corpus: number;
}

/** A file the reader will not open, and why (the message names no content of it). */
export class FileRefused extends Error {
  override readonly name = 'FileRefused';
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super(`${file}: ${reason}`);
  }
}

/** Why `rel` cannot name a file inside a corpus folder, or null if it can. */
export function pathProblem(rel: unknown): string | null {
  if (typeof rel !== 'string' || rel === '') return 'is not a path';
  if (rel.includes('\0')) return 'contains a NUL byte';
  if (isAbsolute(rel) || /^[A-Za-z]:/.test(rel) || rel.startsWith('\\'))
    return `'${rel}' is an absolute path: a corpus names its files relative to its folder`;
  const parts = rel.split(/[\\/]/);
  if (parts.includes('..')) return `'${rel}' leads outside the corpus folder ('..')`;
  if (parts.some((p) => p === '' || p === '.')) return `'${rel}' is not a plain relative path`;
  return null;
}

function kindOf(s: Stats): string {
  if (s.isSymbolicLink()) return 'a symbolic link (links are not followed)';
  if (s.isDirectory()) return 'a directory';
  if (s.isFIFO()) return 'a FIFO';
  if (s.isCharacterDevice() || s.isBlockDevice()) return 'a device';
  if (s.isSocket()) return 'a socket';
  return 'not a regular file';
}

function notRegular(s: Stats): string {
  const kind = kindOf(s);
  return kind.startsWith('a symbolic link') ? `is ${kind}` : `is not a regular file (${kind})`;
}

const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/**
 * One file's bytes, checked before it is opened (`before`, its lstat or stat) and again on the open
 * descriptor: regular, the same file, within `limit`. O_NONBLOCK: a FIFO swapped in never blocks.
 */
function readChecked(full: string, shown: string, limit: number, before: Stats, follow: boolean): Buffer {
  if (!before.isFile()) throw new FileRefused(shown, notRegular(before));
  if (before.size > limit) throw new FileRefused(shown, `is larger than ${limit} bytes (${before.size})`);
  let fd: number;
  try {
    fd = openSync(full, OPEN_FLAGS | (follow ? 0 : NO_FOLLOW));
  } catch (error) {
    throw new FileRefused(shown, `cannot be opened: ${(error as NodeJS.ErrnoException).code ?? error}`);
  }
  try {
    const s = fstatSync(fd);
    if (!s.isFile()) throw new FileRefused(shown, notRegular(s));
    if (s.dev !== before.dev || s.ino !== before.ino)
      throw new FileRefused(shown, 'was replaced while being read');
    if (s.size > limit) throw new FileRefused(shown, `is larger than ${limit} bytes (${s.size})`);
    const bytes = Buffer.alloc(s.size);
    let at = 0;
    while (at < s.size) {
      const n = readSync(fd, bytes, at, s.size - at, at);
      if (n === 0) break;
      at += n;
    }
    return at === s.size ? bytes : bytes.subarray(0, at);
  } finally {
    closeSync(fd);
  }
}

/**
 * A file the user named on the command line (a baseline): a link they made is theirs to follow, but
 * what it reaches must be a regular file within the bound.
 */
export function readUserFile(path: string, limit = MAX_FILE_BYTES): Buffer {
  let s: Stats;
  try {
    s = statSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new FileRefused(path, code === 'ENOENT' ? 'file is missing' : `cannot be read: ${code}`);
  }
  return readChecked(path, path, limit, s, true);
}

export type Inspection =
  | { readonly kind: 'missing' }
  | { readonly kind: 'refused'; readonly reason: string }
  | { readonly kind: 'file'; readonly size: number };

/**
 * The files of one corpus folder, read at most once each (a file checked against its hash is then
 * parsed from the same bytes), within the per-file and per-corpus bounds.
 */
export class CorpusReader {
  private total = 0;
  private readonly read = new Map<string, Buffer | FileRefused>();

  constructor(
    readonly root: string,
    readonly limits: Limits = { file: MAX_FILE_BYTES, corpus: MAX_CORPUS_BYTES },
  ) {}

  /** What `rel` is, without opening it: missing, refused (and why), or a file of some size. */
  inspect(rel: string): Inspection {
    const problem = pathProblem(rel);
    if (problem !== null) return { kind: 'refused', reason: problem };
    const parts = rel.split(/[\\/]/);
    let at = this.root;
    for (const [i, part] of parts.entries()) {
      at = join(at, part);
      let s: Stats;
      try {
        s = lstatSync(at);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'missing' };
        return { kind: 'refused', reason: `cannot be read: ${code}` };
      }
      const last = i === parts.length - 1;
      if (s.isSymbolicLink())
        return {
          kind: 'refused',
          reason: last ? notRegular(s) : `passes through ${parts.slice(0, i + 1).join('/')}, ${kindOf(s)}`,
        };
      if (!last && !s.isDirectory()) return { kind: 'missing' };
      if (last && !s.isFile()) return { kind: 'refused', reason: notRegular(s) };
      if (last && s.size > this.limits.file)
        return { kind: 'refused', reason: `is larger than ${this.limits.file} bytes (${s.size})` };
      if (last) return { kind: 'file', size: s.size };
    }
    return { kind: 'missing' };
  }

  /** The bytes of `rel`; null if it does not exist; a FileRefused if it may not be read. */
  bytes(rel: string): Buffer | null {
    const known = this.read.get(rel);
    if (known instanceof FileRefused) throw known;
    if (known) return known;
    const found = this.inspect(rel);
    if (found.kind === 'missing') return null;
    const result = this.load(rel, found);
    this.read.set(rel, result);
    if (result instanceof FileRefused) throw result;
    return result;
  }

  private load(rel: string, found: Exclude<Inspection, { kind: 'missing' }>): Buffer | FileRefused {
    if (found.kind === 'refused') return new FileRefused(rel, found.reason);
    if (this.total + found.size > this.limits.corpus)
      return new FileRefused(rel, `would take the corpus past ${this.limits.corpus} bytes`);
    try {
      const full = join(this.root, rel);
      const bytes = readChecked(full, rel, this.limits.file, lstatSync(full), false);
      this.total += bytes.length;
      return bytes;
    } catch (error) {
      if (error instanceof FileRefused) return error;
      throw error;
    }
  }

  /** Was `rel` refused already (its issue reported once)? */
  refused(rel: string): boolean {
    return this.read.get(rel) instanceof FileRefused;
  }
}
