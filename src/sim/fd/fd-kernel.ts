/**
 * The kernel side of file descriptors (fd.ts): open file descriptions shared by dup'ed fds, pipes
 * and their buffers, the files on "disk", and each process's fd table.
 */

import type { Waiter } from '../core/scheduler.ts';

export const PIPE_CAPACITY_BYTES = 64 * 1024;
export const MODE_READ_ONLY = 'r';
export const MODE_WRITE_ONLY = 'w';
export const MODE_READ_WRITE = 'rw';
export type FileMode = 'r' | 'w' | 'rw';

export type CommStatus = { kind: 'ok' } | { kind: 'error'; message: string } | { kind: 'dead' };

export class Pipe {
  chunks: Uint8Array[] = [];
  buffered = 0;
  readers = 0;
  writers = 0;
  /** Reliable pipes only: what the writer reported (null while open). */
  status: CommStatus | null = null;
  readWaiters: Waiter<void>[] = [];
  writeWaiters: Waiter<void>[] = [];
  constructor(
    readonly id: number,
    readonly reliable: boolean,
  ) {}
}

export interface SimFile {
  readonly path: string;
  readonly owner: string;
  bytes: Uint8Array;
  /** What a power loss leaves: the bytes as of the last fsync (null: never synced). */
  synced: Uint8Array | null;
}

/** A kernel open file description, shared by dup'ed fds (position included). */
export class OpenFile {
  refs = 0;
  position = 0;
  /** Set by a truncate fault: this description sees the file cut at this length from now on. */
  truncatedAt: number | null = null;
  constructor(
    readonly id: number,
    readonly mode: FileMode,
    readonly target: { kind: 'file'; file: SimFile } | { kind: 'pipe'; pipe: Pipe; end: 'read' | 'write' },
  ) {}
  get label(): string {
    return this.target.kind === 'file'
      ? `file:${this.target.file.path}`
      : `pipe#${this.target.pipe.id}:${this.target.end}`;
  }
}

/** The ParcelFileDescriptor (fd.ts) a table entry was handed out as: its identity and number. */
export interface FdHandle {
  readonly fd: number;
}

export interface FdEntry {
  readonly file: OpenFile;
  readonly pfd: FdHandle;
  readonly openedBy: string;
  readonly openedAtStep: number;
}

export interface FdLeak {
  readonly process: string;
  readonly fd: number;
  readonly target: string;
  readonly openedBy: string;
  readonly openedAtStep: number;
}

export class FdTable {
  private readonly entries = new Map<number, FdEntry>();
  /** `process`: the owning ProcessRecord (process/process.ts). */
  constructor(readonly process: { readonly name: string }) {}

  allocate<P extends FdHandle>(file: OpenFile, pfd: (fd: number) => P, openedBy: string, step: number): P {
    let fd = 3;
    while (this.entries.has(fd)) fd++;
    const p = pfd(fd);
    file.refs++;
    this.entries.set(fd, { file, pfd: p, openedBy, openedAtStep: step });
    return p;
  }

  get(fd: number): FdEntry | undefined {
    return this.entries.get(fd);
  }

  release(fd: number): FdEntry | undefined {
    const e = this.entries.get(fd);
    if (e) this.entries.delete(fd);
    return e;
  }

  open(): FdEntry[] {
    return [...this.entries.values()];
  }

  fds(): number[] {
    return [...this.entries.keys()];
  }
}

export function concat(parts: Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let offset = 0;
  for (const p of parts) {
    const n = Math.min(p.length, length - offset);
    if (n <= 0) break;
    out.set(p.subarray(0, n), offset);
    offset += n;
  }
  return out;
}

export function takeFromPipe(pipe: Pipe, want: number): Uint8Array {
  const n = Math.min(want, pipe.buffered);
  const out = new Uint8Array(n);
  let offset = 0;
  while (offset < n) {
    const head = pipe.chunks[0] as Uint8Array;
    const take = Math.min(head.length, n - offset);
    out.set(head.subarray(0, take), offset);
    offset += take;
    if (take === head.length) pipe.chunks.shift();
    else pipe.chunks[0] = head.subarray(take);
  }
  pipe.buffered -= n;
  return out;
}
