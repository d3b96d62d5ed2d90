/**
 * Which shared vectors assume a reading (`cetp-sim matrix`, issue 20): the corpus's provider vectors
 * run against the reference providers made with each provider reading of a note, and its consumer
 * vectors against the reference consumer made with each consumer reading; a vector whose status
 * under a reading differs from its status under the reference readings depends on that reading.
 * Plain comparison: the runs themselves go through the worker pool (src/cli/commands/matrix.ts).
 */
import type { ReadingRun, ReadingSide } from '../protocol/readings.ts';
import type { OutcomeStatus, VectorOutcome } from './run.ts';

/** A vector whose verdict changes under a reading. */
export interface VectorDependency {
  readonly vector: string;
  readonly title: string;
  readonly file: string;
  readonly level: VectorOutcome['level'];
  readonly rules: readonly string[];
  readonly note: number;
  readonly side: ReadingSide;
  readonly readings: Readonly<Record<string, string>>;
  /** Its status under the reference readings, and under this reading. */
  readonly reference: OutcomeStatus;
  readonly status: OutcomeStatus;
  /** The first mismatch under this reading (or under the reference, if it passes only here). */
  readonly why: string;
}

function firstFailure(outcome: VectorOutcome | undefined): string {
  const f = outcome?.failures?.[0];
  if (!f) return '';
  return JSON.stringify(f).slice(0, 300);
}

/** The vectors whose status under `run` differs from the reference's. Ordered as the corpus. */
export function dependenciesOf(
  run: ReadingRun,
  reference: readonly VectorOutcome[],
  outcomes: readonly VectorOutcome[],
): VectorDependency[] {
  const byId = new Map(reference.map((o) => [o.id, o]));
  const deps: VectorDependency[] = [];
  for (const o of outcomes) {
    const ref = byId.get(o.id);
    if (!ref || ref.status === o.status) continue;
    deps.push({
      vector: o.id,
      title: o.title,
      file: o.file,
      level: o.level,
      rules: o.rules,
      note: run.note,
      side: run.side,
      readings: run.readings,
      reference: ref.status,
      status: o.status,
      why: o.status === 'fail' ? firstFailure(o) : firstFailure(ref),
    });
  }
  return deps;
}

/**
 * The generated table device teams read (spec/matrix/vector-readings.json): per vector, the
 * readings under which its verdict changes — the readings it assumes — with the judgement if any.
 */
export function vectorReadingsTable(
  deps: readonly VectorDependency[],
  judge: (d: VectorDependency) => { kind: string; why: string } | undefined,
): Record<string, unknown> {
  const table: Record<string, { level: string; rules: readonly string[]; readings: unknown[] }> = {};
  for (const d of deps) {
    const entry = table[d.vector] ?? { level: d.level, rules: d.rules, readings: [] };
    const verdict = judge(d);
    entry.readings.push({
      note: d.note,
      side: d.side,
      readings: d.readings,
      reference: d.reference,
      status: d.status,
      ...(verdict ? { judgement: verdict.kind, why: verdict.why } : { judgement: 'not yet judged' }),
    });
    table[d.vector] = entry;
  }
  return Object.fromEntries(Object.entries(table).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
