/**
 * The arbitrary of a batch of structural malformed calls (malformed.ts): a provider, one of its
 * tools the shape allows (read and write alike), and a list of case indices. Shrinking drops cases
 * and moves indices toward 0 (the first key of negotiate missing), so a failure ends as the one case
 * that breaks the provider.
 */
import fc from 'fast-check';
import type { ProviderFixture } from './fixtures.ts';
import { HOSTILE_BATCH_MAX, HOSTILE_CASES } from './malformed.ts';
import type { Command } from './model.ts';

/** What a batch needs of a scenario shape (arbitraries.ts ScenarioShape): its providers and tools. */
interface BatchShape {
  readonly providers: readonly ProviderFixture[];
  readonly tools?: readonly string[];
}

export function hostileBatchArb(shape: BatchShape): fc.Arbitrary<Command> {
  const tools =
    shape.tools ?? shape.providers.flatMap((p) => Object.keys(p.tools).map((tool) => `${p.name}.${tool}`));
  return fc
    .record({
      tool: fc.constantFrom(...tools),
      cases: fc.array(fc.nat({ max: HOSTILE_CASES.length - 1 }), {
        minLength: 1,
        maxLength: HOSTILE_BATCH_MAX,
        // Long batches are the point (many calls per world): not fast-check's small default sizes.
        size: 'max',
      }),
    })
    .map(({ tool, cases }): Command => {
      const [provider, name] = tool.split('.') as [string, string];
      return { kind: 'hostile-batch', provider, tool: name, cases };
    });
}
