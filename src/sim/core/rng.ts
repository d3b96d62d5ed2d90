/**
 * Seeded randomness for the simulated world (docs/design.md "Determinism — the first law").
 *
 * Every component draws from its own stream, forked from the root by a label, so adding a component
 * (or drawing more numbers in one) never shifts another component's stream. A fork's seed depends
 * only on the root seed and the label path, never on how much the parent has been used.
 */
import { Alea } from './alea.ts';

/** The two hex digits of each byte value. */
const HEX_BYTE: readonly string[] = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

export class Rng {
  readonly seed: string;
  /** Seeded on the first draw: seeding costs more than most streams draw, and many never draw. */
  private stream: Alea | null = null;

  constructor(seed: string | number) {
    this.seed = String(seed);
  }

  private next(): number {
    this.stream ??= new Alea(this.seed);
    return this.stream.next();
  }

  /** A child stream named by `label`; the same label always yields the same stream. */
  fork(label: string): Rng {
    return new Rng(`${this.seed}/${label}`);
  }

  /** Uniform float in [0, 1). */
  float(): number {
    return this.next();
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    if (!Number.isInteger(n) || n <= 0)
      throw new RangeError(`Rng.int: n must be a positive integer, got ${n}`);
    return Math.floor(this.next() * n);
  }

  /** Uniform integer in [min, max]. */
  intBetween(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  bool(pTrue = 0.5): boolean {
    return this.next() < pTrue;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('Rng.pick: empty list');
    return items[this.int(items.length)] as T;
  }

  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = Math.floor(this.next() * 256);
    return out;
  }

  /** Lowercase hex string of `n` random bytes (tokens, ids): the same bytes `bytes(n)` would draw. */
  hex(n: number): string {
    let out = '';
    for (let i = 0; i < n; i++) out += HEX_BYTE[Math.floor(this.next() * 256)];
    return out;
  }
}
