/**
 * Resolving the ids a user names on the command line (properties, planted bugs, rules) against the
 * catalogues. An unknown id is a usage error (exit 2) whose message lists every valid value, so a
 * typo is fixed from the error line alone.
 */
import type { Mutant } from '../fuzz/mutants.ts';
import { MUTANTS, mutantById } from '../fuzz/mutants.ts';
import type { PropertyDef } from '../fuzz/suites.ts';
import { PROPERTIES, propertyById } from '../fuzz/suites.ts';
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

/** The named properties in catalogue order (duplicates collapse), or all of them. */
export function selectProperties(ids: readonly string[] | undefined): PropertyDef[] {
  if (ids === undefined || ids.length === 0) return [...PROPERTIES];
  const bad = ids.filter((id) => propertyById(id) === undefined);
  if (bad.length > 0)
    throw unknown(
      'unknown_property',
      bad.length === 1 ? 'property' : 'properties',
      bad,
      PROPERTIES.map((p) => p.id),
    );
  return PROPERTIES.filter((p) => ids.includes(p.id));
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
  if (ids === undefined || ids.length === 0) return [...MUTANTS];
  const bad = ids.filter((id) => mutantById(id) === undefined);
  if (bad.length > 0)
    throw unknown(
      'unknown_mutant',
      bad.length === 1 ? 'mutant' : 'mutants',
      bad,
      MUTANTS.map((m) => m.id),
    );
  return MUTANTS.filter((m) => ids.includes(m.id));
}

/** The named rules among `valid` (in `valid`'s order), or all of `valid`. */
export function selectRules(ids: readonly string[] | undefined, valid: readonly string[]): string[] {
  if (ids === undefined || ids.length === 0) return [...valid];
  const bad = ids.filter((id) => !valid.includes(id));
  if (bad.length > 0)
    throw unknown('unknown_rule', bad.length === 1 ? 'ablatable rule' : 'ablatable rules', bad, valid);
  return valid.filter((id) => ids.includes(id));
}
