/**
 * A proposed wording of the spec, as data (`cetp-sim propose`): which readings of the notes it
 * touches it still allows (src/protocol/readings.ts), and which proposed readings — readings today's
 * text does not allow (`ReadingDef.proposed`) — it adds. A wording file is JSON, never code: every
 * field is checked here and a problem is a CliError (exit 2) naming the file and the field's path.
 *
 * Checking a wording is a matrix question (src/fuzz/matrix.ts): the pairings of today's readings
 * of each note it touches (the baseline) against the pairings its readings leave (the proposal). A
 * pairing the wording excludes cannot happen between conforming implementations any more: its break
 * is closed. A pairing both keep runs the same scenarios with the same readings, so it breaks in both
 * or in neither: its break is still open. A pairing only the proposal has (a proposed reading paired)
 * that breaks is a new break the wording introduces. This module plans the pairings and classifies
 * the verdicts; src/cli/commands/propose.ts runs them.
 */
import { readFileSync } from 'node:fs';
import { isRuleId } from '../protocol/index.ts';
import { type ReadingSide, specReadings, VARIANTS, variantDef } from '../protocol/readings.ts';
import { type Pairing, pairingsAcross } from './pairing.ts';

export const WORDING_FORMAT = 'cetp-sim/wording@1';

/** A proposed wording: its text and the readings it allows, per side and variant. */
export interface Wording {
  readonly id: string;
  /** The sentence(s) to add or replace in the spec. */
  readonly text: string;
  /** Where it was proposed (a finding, spec/matrix.md). */
  readonly source: string;
  readonly rules: readonly string[];
  /** Per side, per variant: the readings the wording allows (every other variant keeps today's). */
  readonly allow: Readonly<Record<ReadingSide, Readonly<Record<string, readonly string[]>>>>;
  /** The file it was read from (as given). */
  readonly file: string;
}

/** One pairing to run: a pairing of the matrix. */
export type PlannedPairing = Pairing;

/** A wording file that cannot be used: a code and a message naming the file and the field (the CLI exits 2). */
export class WordingError extends Error {
  override readonly name = 'WordingError';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const TOP_FIELDS = ['format', 'id', 'text', 'source', 'rules', 'allow'];

function bad(file: string, path: string, message: string): WordingError {
  return new WordingError('bad_wording', `${file}: ${path}: ${message}`);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Checks a parsed wording file; the first problem is thrown, naming the field's JSON path. */
export function checkWording(file: string, value: unknown): Wording {
  if (!isObject(value)) throw bad(file, '$', 'a wording file is one JSON object');
  for (const key of Object.keys(value))
    if (!TOP_FIELDS.includes(key))
      throw bad(file, `$.${key}`, `unknown field; a wording has ${TOP_FIELDS.join(', ')}`);
  if (value.format !== WORDING_FORMAT) throw bad(file, '$.format', `must be "${WORDING_FORMAT}"`);
  const id = value.id;
  if (typeof id !== 'string' || !/^[a-z0-9][a-z0-9-]{0,79}$/.test(id))
    throw bad(file, '$.id', 'must be a lowercase id of letters, digits and dashes (a directory name)');
  for (const key of ['text', 'source'] as const)
    if (typeof value[key] !== 'string' || (value[key] as string).trim() === '')
      throw bad(file, `$.${key}`, 'must be a non-empty string');
  const rules = value.rules ?? [];
  if (!Array.isArray(rules)) throw bad(file, '$.rules', 'must be an array of rule ids');
  for (const [i, r] of rules.entries())
    if (typeof r !== 'string' || !isRuleId(r))
      throw bad(file, `$.rules[${i}]`, `not a rule id of spec/rules.json: ${JSON.stringify(r)}`);
  const allow = value.allow;
  if (!isObject(allow)) throw bad(file, '$.allow', 'must be an object with "provider" and/or "consumer"');
  const out: Record<ReadingSide, Record<string, string[]>> = { provider: {}, consumer: {} };
  for (const [side, variants] of Object.entries(allow)) {
    if (side !== 'provider' && side !== 'consumer')
      throw bad(file, `$.allow.${side}`, 'unknown side; the sides are provider and consumer');
    if (!isObject(variants)) throw bad(file, `$.allow.${side}`, 'must be an object: variant -> readings');
    for (const [id, readings] of Object.entries(variants)) {
      const path = `$.allow.${side}.${id}`;
      const def = variantDef(side, id);
      if (!def)
        throw bad(
          file,
          path,
          `unknown ${side} variant; valid: ${VARIANTS.filter((v) => v.side === side)
            .map((v) => v.id)
            .join(', ')}`,
        );
      if (!Array.isArray(readings) || readings.length === 0)
        throw bad(file, path, 'must be a non-empty array of reading names');
      for (const [i, name] of readings.entries()) {
        if (typeof name !== 'string' || !def.readings.some((r) => r.name === name))
          throw bad(
            file,
            `${path}[${i}]`,
            `unknown reading ${JSON.stringify(name)}; valid: ${def.readings.map((r) => r.name).join(', ')}`,
          );
        if (readings.indexOf(name) !== i) throw bad(file, `${path}[${i}]`, `"${name}" is named twice`);
      }
      out[side][id] = readings as string[];
    }
  }
  if (Object.keys(out.provider).length + Object.keys(out.consumer).length === 0)
    throw bad(file, '$.allow', 'names no variant: a wording must constrain or add at least one reading');
  return {
    id,
    text: value.text as string,
    source: value.source as string,
    rules: rules as string[],
    allow: out,
    file,
  };
}

/** Reads and checks a wording file (exit 2 naming the file, and the field, on any problem). */
export function readWording(file: string): Wording {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new WordingError(
      code === 'ENOENT' ? 'wording_not_found' : 'wording_unreadable',
      code === 'ENOENT' ? `no such file: ${file}` : `cannot read ${file}: ${(error as Error).message}`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw bad(file, '$', `not JSON: ${(error as Error).message}`);
  }
  return checkWording(file, parsed);
}

/** The notes a wording touches, ascending. */
export function notesOf(w: Wording): number[] {
  const notes = (['provider', 'consumer'] as const).flatMap((side) =>
    Object.keys(w.allow[side]).map((id) => variantDef(side, id)?.note ?? 0),
  );
  return [...new Set(notes)].sort((a, b) => a - b);
}

type Choice = (side: ReadingSide, id: string) => readonly string[];

/**
 * The pairings of `note` when each variant may take the readings `choose` gives: variants with a
 * single choice that is the reference's are left out of the readings (as the matrix does), so a
 * pairing of today's readings has the matrix's id.
 */
function pairings(note: number, choose: Choice): PlannedPairing[] {
  const sides = (['provider', 'consumer'] as const).map((side) => {
    let combos: Record<string, string>[] = [{}];
    for (const v of VARIANTS.filter((x) => x.note === note && x.side === side)) {
      // A variant with one reading of today's text, at that reading, is left unnamed (as the matrix
      // does): the pairing is then today's, under today's id.
      const named = (n: string) => !(specReadings(v).length < 2 && n === v.readings[0].name);
      const names = choose(side, v.id);
      combos = combos.flatMap((c) => names.map((n) => (named(n) ? Object.assign({}, c, { [v.id]: n }) : c)));
    }
    return combos;
  });
  const [providers, consumers] = sides as [Record<string, string>[], Record<string, string>[]];
  return pairingsAcross(note, providers, consumers);
}

const todays: Choice = (side, id) => {
  const def = variantDef(side, id);
  return def ? specReadings(def).map((r) => r.name) : [];
};

/** Today's pairings of a note: every reading of today's text (the matrix's pairings). */
export function baselinePairings(note: number): PlannedPairing[] {
  return pairings(note, todays);
}

/** The pairings a wording leaves of a note: its readings where it names a variant, today's elsewhere. */
export function proposedPairings(w: Wording, note: number): PlannedPairing[] {
  return pairings(note, (side, id) => w.allow[side][id] ?? todays(side, id));
}

/** A pairing's verdict, as the matrix gives it (properties and replays are the CLI's). */
export type PairingVerdict = 'interoperates' | 'breaks' | 'vacuous' | 'not-reached';

/** What a wording does to one break: the baseline's breaks, then the proposal's new ones. */
export type BreakOutcome = 'closed' | 'still-open' | 'new';

export interface ClassifiedBreak {
  readonly pairing: PlannedPairing;
  readonly outcome: BreakOutcome;
}

/**
 * Classifies the breaks: a baseline break the proposal excludes is closed, one it keeps is still
 * open (the same pairing runs the same scenarios: it breaks again, and the verdict given is the
 * proposal's run); a break among the pairings only the proposal has is new.
 */
export function classifyBreaks(
  baseline: readonly PlannedPairing[],
  proposal: readonly PlannedPairing[],
  verdict: (p: PlannedPairing) => PairingVerdict,
): ClassifiedBreak[] {
  const kept = new Set(proposal.map((p) => p.id));
  const before = new Set(baseline.map((p) => p.id));
  const out: ClassifiedBreak[] = [];
  for (const p of baseline)
    if (verdict(p) === 'breaks') out.push({ pairing: p, outcome: kept.has(p.id) ? 'still-open' : 'closed' });
  for (const p of proposal)
    if (!before.has(p.id) && verdict(p) === 'breaks') out.push({ pairing: p, outcome: 'new' });
  return out;
}
