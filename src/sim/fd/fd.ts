/**
 * File descriptors: per-process fd tables over shared kernel "open file descriptions", as Linux and
 * ParcelFileDescriptor behave (PFD.java, ANDROID-FACTS §5).
 *
 * - A ParcelFileDescriptor crossing Binder is dup'ed into the receiver; each side owns its copy and
 *   must close it. The framework never closes the sender's copy of a PFD returned from call().
 * - Files are read-only or writable per mode; writing a read-only fd fails (EBADF).
 * - Pipes hold 64 KiB; readers block while empty and writers while full. EOF when every write end
 *   is closed. Plain pipes cannot tell a clean EOF from a dead writer; reliable pipes
 *   (createReliablePipe) carry a comm channel, and checkError() reports closeWithError(msg) or a
 *   writer that died ("Remote side is dead").
 * - Killing a process closes all its fds (the kernel does, with no callbacks). Fds still open in a
 *   live process at the end of a run are leaks (CloseGuard), reported with where they were opened.
 * - Faults: the next read of a file by a process can return corrupted or truncated bytes.
 * - Durability: a write is in the page cache — it survives the writer's death, not a power loss.
 *   Only what an fsync (`sync()`, `writeFile(…, sync)`) made durable is sure to be there after one;
 *   the rest is torn to a seeded prefix (see onPowerLoss). A clean reboot syncs everything.
 */
import { IOException, SimUsageError } from '../core/errors.ts';
import type { Rng } from '../core/rng.ts';
import type { Scheduler, Waiter } from '../core/scheduler.ts';
import type { Trace } from '../core/trace.ts';
import type { ProcessRecord } from '../process/process.ts';
import {
  type CommStatus,
  concat,
  type FdEntry,
  type FdLeak,
  type FileMode,
  OpenFile,
  PIPE_CAPACITY_BYTES,
  Pipe,
  type SimFile,
  takeFromPipe,
} from './fd-kernel.ts';

/** What the fd system needs of the world, passed in (the World implements it). */
export interface FdHost {
  /** GroundTruth.wrote (ground-truth.ts): the bytes that reached a file or pipe. */
  readonly truth: { wrote(target: string, mode: string, bytes: Uint8Array, key: object): void };
  readonly trace: Trace;
  readonly scheduler: Pick<Scheduler, 'currentTask' | 'step' | 'yield' | 'waiter'>;
}

export {
  type FdLeak,
  FdTable,
  type FileMode,
  MODE_READ_ONLY,
  MODE_READ_WRITE,
  MODE_WRITE_ONLY,
  PIPE_CAPACITY_BYTES,
  type SimFile,
} from './fd-kernel.ts';

/** android.os.ParcelFileDescriptor: one process's handle on one of its fds. */
export class ParcelFileDescriptor {
  private closedFlag = false;

  constructor(
    private readonly system: FdSystem,
    readonly process: ProcessRecord,
    private readonly pid: number,
    readonly fd: number,
    readonly hasCommChannel: boolean,
    /**
     * @internal The kernel description this fd referred to, kept after close for the oracles
     * (what a file result's descriptor really was: its mode, the file or pipe behind it).
     */
    readonly description: OpenFile,
  ) {}

  get isClosed(): boolean {
    return this.closedFlag || !this.process.isAlive || this.process.pid !== this.pid;
  }

  getFd(): number {
    this.entry();
    return this.fd;
  }

  /** The kernel description this fd refers to (stable id, for tests and checkers). */
  get openFileId(): number {
    return this.entry().file.id;
  }

  get mode(): FileMode {
    return this.entry().file.mode;
  }

  /** Size of the underlying file, or -1 for a pipe (PFD.getStatSize). */
  getStatSize(): number {
    const t = this.entry().file.target;
    return t.kind === 'file' ? t.file.bytes.length : -1;
  }

  /** Reads up to `maxBytes`; an empty result is EOF. A scheduling point; blocks on an empty pipe. */
  read(maxBytes: number): Promise<Uint8Array> {
    return this.system.read(this, this.entry().file, maxBytes);
  }

  /**
   * Reads to EOF but never more than `limitBytes`: returns the bytes and whether the limit stopped
   * the read (the consumer's local read limit, CETP 4.5).
   */
  async readUpTo(
    limitBytes: number,
    chunkBytes = 64 * 1024,
  ): Promise<{ bytes: Uint8Array; overLimit: boolean }> {
    const parts: Uint8Array[] = [];
    let total = 0;
    for (;;) {
      const want = Math.min(chunkBytes, limitBytes + 1 - total);
      const chunk = await this.read(want);
      if (chunk.length === 0) break;
      parts.push(chunk);
      total += chunk.length;
      if (total > limitBytes) break;
    }
    const bytes = concat(parts, Math.min(total, limitBytes));
    return { bytes, overLimit: total > limitBytes };
  }

  write(bytes: Uint8Array): Promise<void> {
    return this.system.write(this.entry().file, bytes);
  }

  /** FileDescriptor.sync() (fsync): what was written to this file survives a power loss. */
  sync(): void {
    const t = this.entry().file.target;
    if (t.kind === 'file') t.file.synced = t.file.bytes;
  }

  /** Closes this process's copy; other dups stay open. Closing twice is a no-op, as in Java. */
  close(): void {
    if (this.closedFlag) return;
    this.closedFlag = true;
    this.system.close(this, { kind: 'ok' });
  }

  /** Reliable pipes: close the write end reporting an error to the reader's checkError(). */
  closeWithError(message: string): void {
    if (this.closedFlag) return;
    this.closedFlag = true;
    this.system.close(this, { kind: 'error', message });
  }

  /** Reliable pipes: throws IOException if the writer closed with an error or died. */
  checkError(): void {
    const t = this.entry().file.target;
    if (t.kind !== 'pipe' || !t.pipe.reliable || !this.hasCommChannel) return;
    const s = t.pipe.status;
    if (s?.kind === 'error') throw new IOException(`Remote error: ${s.message}`);
    if (s?.kind === 'dead') throw new IOException('Remote side is dead');
  }

  toString(): string {
    return `ParcelFileDescriptor{${this.process.name} fd=${this.fd}}`;
  }

  /** @internal */
  entry(): FdEntry {
    if (this.isClosed) throw new IOException(`fd ${this.fd} is closed (EBADF)`);
    const e = this.process.fdTable?.get(this.fd);
    if (!e || e.pfd !== this) throw new IOException(`fd ${this.fd} is closed (EBADF)`);
    return e;
  }
}

type ReadFault = { kind: 'corrupt' } | { kind: 'truncate'; keepBytes: number };

export class FdSystem {
  private nextFileId = 1;
  private nextPipeId = 1;
  /** Files on "disk", by owning package then path; they survive process death, not uninstall. */
  private readonly disk = new Map<string, Map<string, SimFile>>();
  private readonly readFaults: { process: string | null; fault: ReadFault }[] = [];

  constructor(private readonly world: FdHost) {}

  // ---- files ----

  writeFile(owner: string, path: string, bytes: Uint8Array, sync = false): SimFile {
    let dir = this.disk.get(owner);
    if (!dir) {
      dir = new Map();
      this.disk.set(owner, dir);
    }
    const copy = bytes.slice();
    const file: SimFile = { path, owner, bytes: copy, synced: sync ? copy : (dir.get(path)?.synced ?? null) };
    dir.set(path, file);
    this.world.trace.record('fs.write', { actor: owner, path, bytes: bytes.length });
    return file;
  }

  readFileBytes(owner: string, path: string): Uint8Array | null {
    return this.disk.get(owner)?.get(path)?.bytes.slice() ?? null;
  }

  deleteFile(owner: string, path: string): boolean {
    return this.disk.get(owner)?.delete(path) ?? false;
  }

  wipe(owner: string): void {
    this.disk.delete(owner);
  }

  /** A clean shutdown syncs every file system: everything written is durable. */
  syncAll(): void {
    for (const dir of this.disk.values()) for (const f of dir.values()) f.synced = f.bytes;
  }

  /**
   * Power loss: data written since a file's last fsync was only in the page cache. The file keeps
   * a prefix of what was written, of a seeded length from nothing to all of it (delayed allocation:
   * a rewritten-but-unsynced file is commonly left empty or torn); a file never synced and left
   * empty is gone.
   */
  onPowerLoss(rng: Rng): void {
    for (const dir of this.disk.values()) {
      for (const [path, f] of dir) {
        if (f.synced === f.bytes) continue;
        const keep = rng.intBetween(0, f.bytes.length);
        this.world.trace.record('fs.torn', { actor: f.owner, path, bytes: f.bytes.length, kept: keep });
        if (keep === 0 && f.synced === null) {
          dir.delete(path);
          continue;
        }
        f.bytes = f.bytes.slice(0, keep);
        f.synced = f.bytes;
      }
    }
  }

  /** ParcelFileDescriptor.open(file, mode) in `proc` (which must own the file). */
  open(proc: ProcessRecord, path: string, mode: FileMode): ParcelFileDescriptor {
    const file = this.disk.get(proc.dataDir)?.get(path);
    if (!file) throw new IOException(`${path}: open failed: ENOENT (No such file or directory)`);
    return this.install(proc, new OpenFile(this.nextFileId++, mode, { kind: 'file', file }), false);
  }

  createPipe(proc: ProcessRecord): [read: ParcelFileDescriptor, write: ParcelFileDescriptor] {
    return this.pipe(proc, false);
  }

  createReliablePipe(proc: ProcessRecord): [read: ParcelFileDescriptor, write: ParcelFileDescriptor] {
    return this.pipe(proc, true);
  }

  private pipe(proc: ProcessRecord, reliable: boolean): [ParcelFileDescriptor, ParcelFileDescriptor] {
    const pipe = new Pipe(this.nextPipeId++, reliable);
    const r = this.install(
      proc,
      new OpenFile(this.nextFileId++, 'r', { kind: 'pipe', pipe, end: 'read' }),
      reliable,
    );
    const w = this.install(
      proc,
      new OpenFile(this.nextFileId++, 'w', { kind: 'pipe', pipe, end: 'write' }),
      reliable,
    );
    return [r, w];
  }

  /** Dups `pfd` into `proc` (what Binder does to an fd inside a parcel). */
  dup(pfd: ParcelFileDescriptor, proc: ProcessRecord): ParcelFileDescriptor {
    const e = pfd.entry();
    const copy = this.install(proc, e.file, pfd.hasCommChannel);
    this.world.trace.record('fd.dup', {
      from: pfd.process.name,
      to: proc.name,
      fd: pfd.fd,
      newFd: copy.fd,
      target: e.file.label,
    });
    return copy;
  }

  private install(proc: ProcessRecord, file: OpenFile, comm: boolean): ParcelFileDescriptor {
    const table = proc.fdTable;
    const pid = proc.pid;
    if (!table || pid === null || !proc.isAlive)
      throw new SimUsageError(`process ${proc.name} is not running`);
    if (file.target.kind === 'pipe') {
      if (file.target.end === 'read') file.target.pipe.readers++;
      else file.target.pipe.writers++;
    }
    const task = this.world.scheduler.currentTask;
    const pfd = table.allocate(
      file,
      (fd) => new ParcelFileDescriptor(this, proc, pid, fd, comm, file),
      task?.name ?? '(system)',
      this.world.scheduler.step,
    );
    this.world.trace.record('fd.open', { actor: proc.name, fd: pfd.fd, target: file.label, mode: file.mode });
    return pfd;
  }

  /** @internal */
  close(pfd: ParcelFileDescriptor, status: CommStatus): void {
    const table = pfd.process.fdTable;
    if (!pfd.process.isAlive || pfd.process.pid === null || !table) return;
    const e = table.get(pfd.fd);
    if (!e || e.pfd !== pfd) return;
    table.release(pfd.fd);
    this.world.trace.record('fd.close', { actor: pfd.process.name, fd: pfd.fd, target: e.file.label });
    this.dropRef(e.file, status);
  }

  private dropRef(file: OpenFile, status: CommStatus): void {
    file.refs--;
    const t = file.target;
    if (t.kind !== 'pipe') return;
    const pipe = t.pipe;
    if (t.end === 'write') {
      pipe.writers--;
      // The first error or death wins; a clean close counts once the last writer is gone.
      if (pipe.reliable && pipe.status === null && (status.kind !== 'ok' || pipe.writers === 0)) {
        pipe.status = status;
      }
      if (pipe.writers === 0) this.wakeAll(pipe.readWaiters);
    } else {
      pipe.readers--;
      if (pipe.readers === 0) this.wakeAll(pipe.writeWaiters);
    }
  }

  /** The kernel closes every fd of a dying process; a reliable pipe's reader then sees DEAD. */
  onProcessDied(proc: ProcessRecord): void {
    const table = proc.fdTable;
    if (!table) return;
    for (const fd of table.fds()) {
      const e = table.release(fd);
      if (e) this.dropRef(e.file, { kind: 'dead' });
    }
  }

  /** Fds still open in live processes: CloseGuard's "A resource was acquired ... but never released". */
  leaks(processes: Iterable<ProcessRecord>): FdLeak[] {
    const out: FdLeak[] = [];
    for (const proc of processes) {
      if (!proc.isAlive || !proc.fdTable) continue;
      for (const e of proc.fdTable.open()) {
        out.push({
          process: proc.name,
          fd: e.pfd.fd,
          target: e.file.label,
          openedBy: e.openedBy,
          openedAtStep: e.openedAtStep,
        });
      }
    }
    return out;
  }

  // ---- faults ----

  /** The next read of a file by `process` (any process if null) returns corrupted bytes. */
  corruptNextRead(process: string | null): void {
    this.readFaults.push({ process, fault: { kind: 'corrupt' } });
  }

  /** The next read of a file by `process` sees the file truncated to `keepBytes`. */
  truncateNextRead(process: string | null, keepBytes: number): void {
    this.readFaults.push({ process, fault: { kind: 'truncate', keepBytes } });
  }

  // ---- I/O ----

  /** @internal */
  async read(pfd: ParcelFileDescriptor, file: OpenFile, maxBytes: number): Promise<Uint8Array> {
    if (file.mode === 'w') throw new IOException(`read failed: EBADF (fd ${pfd.fd} is write-only)`);
    const want = Math.max(0, Math.floor(maxBytes));
    const t = file.target;
    if (t.kind === 'file') {
      await this.world.scheduler.yield();
      pfd.entry();
      const fault = this.takeReadFault(pfd.process.name);
      if (fault?.kind === 'truncate') file.truncatedAt = fault.keepBytes;
      let bytes = t.file.bytes;
      if (file.truncatedAt !== null) bytes = bytes.subarray(0, Math.min(bytes.length, file.truncatedAt));
      const chunk = bytes.slice(file.position, file.position + want);
      if (fault?.kind === 'corrupt' && chunk.length > 0) chunk[0] = (chunk[0] as number) ^ 0xff;
      file.position += chunk.length;
      if (fault) {
        this.world.trace.record('fd.fault', { actor: pfd.process.name, fd: pfd.fd, fault: fault.kind });
      }
      return chunk;
    }
    const pipe = t.pipe;
    while (pipe.buffered === 0 && pipe.writers > 0) {
      const w = this.world.scheduler.waiter<void>(`read pipe#${pipe.id}`);
      pipe.readWaiters.push(w);
      await w.wait();
      pfd.entry();
    }
    if (pipe.buffered === 0) {
      await this.world.scheduler.yield();
      return new Uint8Array(0);
    }
    const out = takeFromPipe(pipe, want);
    this.wakeAll(pipe.writeWaiters);
    await this.world.scheduler.yield();
    return out;
  }

  /** @internal */
  async write(file: OpenFile, bytes: Uint8Array): Promise<void> {
    if (file.mode === 'r') throw new IOException('write failed: EBADF (Bad file descriptor)');
    const t = file.target;
    this.world.truth.wrote(file.label, file.mode, bytes, t.kind === 'file' ? t.file : t.pipe);
    if (t.kind === 'file') {
      await this.world.scheduler.yield();
      const f = t.file;
      // The durable copy stays as it was: this write is in the page cache until an fsync.
      if (f.synced === f.bytes) f.synced = f.bytes.slice();
      const end = file.position + bytes.length;
      if (end > f.bytes.length) {
        const grown = new Uint8Array(end);
        grown.set(f.bytes);
        f.bytes = grown;
      }
      f.bytes.set(bytes, file.position);
      file.position = end;
      return;
    }
    const pipe = t.pipe;
    let offset = 0;
    while (offset < bytes.length) {
      if (pipe.readers === 0) throw new IOException('write failed: EPIPE (Broken pipe)');
      const room = PIPE_CAPACITY_BYTES - pipe.buffered;
      if (room === 0) {
        const w = this.world.scheduler.waiter<void>(`write pipe#${pipe.id}`);
        pipe.writeWaiters.push(w);
        await w.wait();
        continue;
      }
      const n = Math.min(room, bytes.length - offset);
      pipe.chunks.push(bytes.slice(offset, offset + n));
      pipe.buffered += n;
      offset += n;
      this.wakeAll(pipe.readWaiters);
      await this.world.scheduler.yield();
    }
  }

  private takeReadFault(process: string): ReadFault | null {
    const i = this.readFaults.findIndex((f) => f.process === null || f.process === process);
    if (i < 0) return null;
    return this.readFaults.splice(i, 1)[0]?.fault ?? null;
  }

  private wakeAll(waiters: Waiter<void>[]): void {
    const ws = waiters.splice(0);
    for (const w of ws) w.wake(undefined);
  }
}
