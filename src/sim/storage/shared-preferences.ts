/**
 * SharedPreferences, with the crash semantics of SharedPreferencesImpl (AOSP
 * core/java/android/app/SharedPreferencesImpl.java; d.a.c SharedPreferences.Editor):
 *
 * - A process loads a preferences file once and then reads its in-memory map.
 * - `apply()` updates that map at once and hands the disk write to QueuedWork, which runs it
 *   QueuedWork.DELAY (100 ms) later on its own thread; it reports no failure. A process killed
 *   before the write ran loses the change (SIGKILL: the queued Runnable dies with the process).
 * - `commit()` writes synchronously on the caller's thread (a scheduling point) and returns true;
 *   once it returned the change survives a kill.
 * - writeToFile renames the old file to a backup, writes the new one and fsyncs it (FileUtils.sync):
 *   what reached the disk survives a power loss too.
 *
 * Values are JSON (the simulation's stand-in for the typed getters).
 */

import type { JsonValue } from '../../base/json.ts';
import type { LogLevel } from '../core/trace.ts';

/** What SharedPreferences needs of its app's Context (app/context.ts AppContext is one). */
export interface PreferencesContext {
  yield(): Promise<void>;
  sleep(ms: number): Promise<void>;
  spawn(name: string, body: () => Promise<void>, options?: { daemon?: boolean }): unknown;
  log(level: LogLevel, tag: string, message: string): void;
}

/** QueuedWork.DELAY: how long an apply()'s disk write waits on the QueuedWork thread. */
export const QUEUED_WORK_DELAY_MS = 100;

/** The preference files of one package on "disk" (they survive process death, not uninstall). */
export class PreferencesDisk {
  private readonly files = new Map<string, ReadonlyMap<string, JsonValue>>();

  read(name: string): Map<string, JsonValue> {
    return new Map(this.files.get(name) ?? []);
  }

  write(name: string, contents: ReadonlyMap<string, JsonValue>): void {
    this.files.set(name, new Map(contents));
  }
}

export class SharedPreferences {
  private readonly memory: Map<string, JsonValue>;
  /** Incremented by every edit: a queued write of an older state is skipped (memory generation). */
  private generation = 0;

  constructor(
    private readonly context: PreferencesContext,
    private readonly disk: PreferencesDisk,
    readonly name: string,
  ) {
    this.memory = disk.read(name);
  }

  get(key: string): JsonValue | undefined {
    return this.memory.get(key);
  }

  getAll(): Map<string, JsonValue> {
    return new Map(this.memory);
  }

  edit(): Editor {
    return new Editor(this);
  }

  /** @internal — applies an editor's changes to memory; returns the new generation. */
  applyToMemory(changes: ReadonlyMap<string, JsonValue | null>): number {
    for (const [k, v] of changes) {
      if (v === null) this.memory.delete(k);
      else this.memory.set(k, v);
    }
    return ++this.generation;
  }

  /** @internal */
  async commitToDisk(generation: number): Promise<void> {
    await this.context.yield();
    if (generation < this.generation) return;
    this.disk.write(this.name, this.memory);
    this.context.log('D', 'SharedPreferencesImpl', `wrote ${this.name}.xml`);
  }

  /** @internal */
  enqueueWrite(generation: number): void {
    this.context.spawn(
      `QueuedWork:${this.name}`,
      async () => {
        await this.context.sleep(QUEUED_WORK_DELAY_MS);
        await this.commitToDisk(generation);
      },
      { daemon: true },
    );
  }
}

export class Editor {
  private readonly changes = new Map<string, JsonValue | null>();

  constructor(private readonly prefs: SharedPreferences) {}

  put(key: string, value: JsonValue): this {
    this.changes.set(key, value);
    return this;
  }

  remove(key: string): this {
    this.changes.set(key, null);
    return this;
  }

  /** Memory now, disk 100 ms later on the QueuedWork thread — lost if the process dies first. */
  apply(): void {
    this.prefs.enqueueWrite(this.prefs.applyToMemory(this.changes));
  }

  /** Memory and disk now (synchronous on the caller's thread); true once written. */
  async commit(): Promise<boolean> {
    await this.prefs.commitToDisk(this.prefs.applyToMemory(this.changes));
    return true;
  }
}
