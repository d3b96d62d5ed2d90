/**
 * Resolving the ids a user names on the command line (properties, planted bugs, rules) against the
 * catalogues. An unknown id is a usage error (exit 2) whose message lists every valid value, so a
 * typo is fixed from the error line alone.
 */
import type { Mutant } from '../fuzz/mutants.ts';
import { MUTANTS, mutantById } from '../fuzz/mutants.ts';
import type { PropertyDef } from '../fuzz/suites.ts';
import { PROPERTIES } from '../fuzz/suites.ts';
import type { CliErrorCode } from './error-codes.ts';
import { CliError } from './errors.ts';

function unknown(
  code: CliErrorCode,
  what: string,
  bad: readonly string[],
  valid: readonly string[],
): CliError {
  const names = bad.map((id) => `'${id}'`).join(', ');
  return new CliError(code, `unknown ${what} ${names}; valid: ${valid.join(', ')}`);
}

/**
 * The entries of `catalogue` that `ids` names, in catalogue order (duplicates collapse), or all of
 * them; an unknown id is `code`, naming the `what` (singular, plural) and every valid id.
 */
function selectNamed<T>(
  ids: readonly string[] | undefined,
  catalogue: readonly T[],
  idOf: (entry: T) => string,
  unknownAs: { readonly code: CliErrorCode; readonly one: string; readonly many: string },
): T[] {
  if (ids === undefined || ids.length === 0) return [...catalogue];
  const valid = catalogue.map(idOf);
  const bad = ids.filter((id) => !valid.includes(id));
  if (bad.length > 0)
    throw unknown(unknownAs.code, bad.length === 1 ? unknownAs.one : unknownAs.many, bad, valid);
  return catalogue.filter((entry) => ids.includes(idOf(entry)));
}

/** The named properties in catalogue order (duplicates collapse), or all of them. */
export function selectProperties(ids: readonly string[] | undefined): PropertyDef[] {
  const as = { code: 'unknown_property', one: 'property', many: 'properties' } as const;
  return selectNamed(ids, PROPERTIES, (p) => p.id, as);
}

export function selectMutant(id: string): Mutant {
  const mutant = mutantById(id);
  if (!mutant)
    throw unknown(
      'unknown_mutant',
      'mutant',
      [id],
      MUTANTS.map((m) => m.id),
    );
  return mutant;
}

/** The named planted bugs in catalogue order, or all of them. */
export function selectMutants(ids: readonly string[] | undefined): Mutant[] {
  return selectNamed(ids, MUTANTS, (m) => m.id, { code: 'unknown_mutant', one: 'mutant', many: 'mutants' });
}

/** The named rules among `valid` (in `valid`'s order), or all of `valid`. */
export function selectRules(ids: readonly string[] | undefined, valid: readonly string[]): string[] {
  const as = { code: 'unknown_rule', one: 'ablatable rule', many: 'ablatable rules' } as const;
  return selectNamed(ids, valid, (id) => id, as);
}
