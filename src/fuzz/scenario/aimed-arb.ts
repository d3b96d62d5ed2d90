/**
 * Executions aimed at the objects a run made (extras moves `make`, `own`, `other`; arbitraries.ts):
 * a write whose declared effect is `create`, then a call whose args name the caller's own object
 * (`$OWN:field`) or another actor's (`$OTHER:field`) — the sequence that judges an app's per-object
 * rules (owner checks on delete and read, CETP-7.2-01; the confirmation screen of an act on a real
 * object, 7.2-06; the business rule of a create that got through a grant and a confirmation). Drawn
 * at random, such a sequence in one run is rare (the tool, then the pool entry, of two executions);
 * aimed, it is one extras slot. The raw driver polls the caller's accepted create before filling the
 * placeholder (driver-own.ts), so an async create's id is known. A shape whose tools have no such
 * entry (no create, no placeholder pool) gets a plain execution instead.
 */
import fc from 'fast-check';
import type { JsonValue } from '../../base/json.ts';
import type { ProviderFixture } from './fixtures.ts';
import type { Command } from './model.ts';

export type AimedMove = 'make' | 'own' | 'other';

interface Aim {
  readonly provider: string;
  readonly tool: string;
  /** The args pool index to send, or undefined: any (drawn as a plain execution draws it). */
  readonly index: number | undefined;
}

const PREFIX: Readonly<Record<Exclude<AimedMove, 'make'>, string>> = { own: '$OWN:', other: '$OTHER:' };

/** The (tool, pool entry) pairs `move` may send among `tools` (`provider.tool`) of `providers`. */
export function aimsOf(
  move: AimedMove,
  providers: readonly ProviderFixture[],
  tools: readonly string[],
): Aim[] {
  const aims: Aim[] = [];
  for (const name of tools) {
    const [provider, tool] = name.split('.') as [string, string];
    const p = providers.find((x) => x.name === provider);
    const pool: readonly JsonValue[] = p?.tools[tool] ?? [];
    if (p === undefined) continue;
    if (move === 'make') {
      if (p.effects[tool] === 'create') aims.push({ provider, tool, index: undefined });
      continue;
    }
    for (const [index, entry] of pool.entries())
      if (JSON.stringify(entry).includes(PREFIX[move])) aims.push({ provider, tool, index });
  }
  return aims;
}

/** `plain` (a valid execution) sent to one of `aims` (unchanged when there is none). */
export function aimedArb(aims: readonly Aim[], plain: fc.Arbitrary<Command>): fc.Arbitrary<Command> {
  if (aims.length === 0) return plain;
  return fc.tuple(fc.constantFrom(...aims), plain).map(([aim, c]): Command => {
    if (c.kind !== 'execute') return c;
    return { ...c, provider: aim.provider, tool: aim.tool, args: aim.index ?? c.args };
  });
}
