/**
 * Planting named entries of a catalogue of planted bugs (the provider SDK's, providers/sdk/planted.ts;
 * the reference consumer's, consumer/planted.ts): every name must be the catalogue's, and the bugs
 * are applied in catalogue order whatever order they were named in, so a variant plants the same.
 */

/** A planted bug: the mistake it stands for, and the parts with the mistake planted. */
export interface PlantedBugOf<P> {
  readonly description: string;
  readonly plant: (parts: P) => P;
}

/** `{ ...parts, ...changes }`: a planted bug's usual plant, swapping the parts it breaks. */
export function swapParts<P extends object>(parts: P, changes: Partial<P>): P {
  return Object.assign({}, parts, changes);
}

/** `parts` with each bug of `catalogue` that `names` names planted, in catalogue order; an unknown name is a RangeError. */
export function plantNamed<P, B extends { readonly plant: (parts: P) => P }>(
  catalogue: Readonly<Record<string, B>>,
  parts: P,
  names: Iterable<string>,
  what: string,
): P {
  const wanted = new Set(names);
  for (const name of wanted)
    if (!Object.hasOwn(catalogue, name)) throw new RangeError(`unknown ${what} ${name}`);
  let planted = parts;
  for (const [name, bug] of Object.entries(catalogue)) if (wanted.has(name)) planted = bug.plant(planted);
  return planted;
}
