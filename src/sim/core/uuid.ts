/** RFC 4122 version-4 UUIDs built from the world's PRNG bytes instead of crypto randomness. */
import { v4 } from 'uuid';
import type { Rng } from './rng.ts';

export function uuidFromRng(rng: Rng): string {
  return v4({ random: rng.bytes(16) });
}
