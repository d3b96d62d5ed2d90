/**
 * What the app zoo's runner (../run.ts) and the consumer zoo's (../consumer/run.ts) share: the
 * options both take, a false alarm's fields, the module file a false alarm's replay command names,
 * the campaigns they run, and the order a mistake hunt tries the properties in. Each zoo keys its
 * subjects by its own word (`app`, `consumer`); objects keep the field order the JSON reports print.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CliError, type FuzzOptions, type FuzzReport, type PropertyReport } from '../../index.ts';
import type { AndroidRelease } from '../../sim/core/release.ts';

/** What both zoos are asked, whatever their subjects are. */
export interface ZooBaseOptions {
  /** The first subject's index (default 0): subjects `from … from+count-1`. */
  readonly from?: number;
  readonly seed: number;
  /** Property ids (default: every property the zoo judges). */
  readonly properties?: readonly string[];
  /** Runs per property (default: each property's CI budget). */
  readonly runs?: number;
  /** Mistake ids to apply (default none; `true`: every mistake). */
  readonly mistakes?: boolean | readonly string[];
  /** Where replay files and the subjects' modules go (relative to `cwd`); null: none. */
  readonly out?: string | null;
  readonly cwd?: string;
  /** Only the subjects whose index is `index` modulo `count`. */
  readonly shard?: { readonly index: number; readonly count: number };
  /** Progress, one line per subject or pair. */
  readonly onProgress?: (line: string) => void;
  /** The Android release profile the campaigns run (`--android`; src/sim/core/release.ts); absent: the default. */
  readonly android?: AndroidRelease;
}

/** A subject's index under the zoo's own word for it (`app`, `consumer`). */
export type Indexed<K extends string> = { readonly [key in K]: number };

/** A correct subject that failed a property: its index, what failed and how to replay it, its description. */
export type ZooFalseAlarm<K extends string, Description> = Indexed<K> &
  Readonly<ReturnType<typeof alarmFields>> & { readonly description: Description };

/** A mistake's verdict on one subject. */
export interface MistakeVerdict {
  readonly mistake: string;
  /** `caught`, `missed`, or `excluded` (the correct subject itself failed). */
  readonly verdict: 'caught' | 'missed' | 'excluded';
  /** `property/checker+checker`, or `fixture:<code>` / `invalid:<code>` when the subject was refused. */
  readonly by: string | null;
}

/** A (subject, mistake) pair's verdict. */
export type ZooPair<K extends string> = Indexed<K> & MistakeVerdict;

/** Each property's status for one correct subject. */
export type ZooVerdict<K extends string> = Indexed<K> & {
  readonly statuses: Readonly<Record<string, string>>;
};

/** The subjects' indices that `options.shard` keeps of `from … from+count-1`. */
export function subjectIndices(options: ZooBaseOptions, count: number, all = false): number[] {
  const every = Array.from({ length: count }, (_, i) => (options.from ?? 0) + i);
  return all ? every : every.filter((i) => inShard(options, i));
}

/** Whether subject `i` (and its pairs) belong to this shard. */
export function inShard(options: ZooBaseOptions, i: number): boolean {
  return options.shard === undefined || i % options.shard.count === options.shard.index;
}

/**
 * A mistake hunt's options; `shrink` false: a failure is not shrunk (whether and by what a
 * property fails is all a hunt asks).
 */
export type HuntOptions = Pick<ZooBaseOptions, 'seed' | 'runs' | 'android'> & { readonly shrink?: boolean };

/** `seed`, and `android`, `runs` and `shrink: false` when set: the start of every zoo campaign's options. */
export function campaignBase(options: HuntOptions, runs = options.runs) {
  return {
    seed: options.seed,
    ...(options.android !== undefined ? { android: options.android } : {}),
    ...(runs !== undefined ? { runs } : {}),
    ...(options.shrink === false ? { shrink: false } : {}),
  };
}

/** Writes a subject's module file `name` under `out` (only there); its path relative to `cwd`. */
function writeZooModule(options: ZooBaseOptions, name: string, text: string): string | undefined {
  if (options.out === null || options.out === undefined) return undefined;
  const cwd = resolve(options.cwd ?? process.cwd());
  const dir = resolve(cwd, options.out);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, name);
  writeFileSync(file, text);
  return file.startsWith(`${cwd}/`) ? `./${file.slice(cwd.length + 1)}` : file;
}

/**
 * How each zoo names a subject's files (`out/<kind><index>/` replays, `out/<kind><index><suffix>`
 * module) and what the module exports: `exported` = `factory(seed, index, mistake)` of the zoo's
 * module.ts, which rebuilds the subject from the zoo's seed and its index.
 */
const SUBJECT_FILES = {
  app: {
    suffix: '.provider.ts',
    factory: 'zooProviders',
    exported: 'providers',
    header: 'cetp-sim zoo: app',
  },
  consumer: {
    suffix: '.consumer.ts',
    factory: 'zooConsumer',
    exported: 'consumer',
    header: 'cetp-sim zoo --consumers: consumer',
  },
} as const;

/** A correct subject: its zoo's word for it, its index, the zoo's module.ts and the mistake planted in it. */
export interface CorrectSubject {
  readonly kind: keyof typeof SUBJECT_FILES;
  readonly index: number;
  readonly modulePath: string;
  readonly mistake: string | null;
}

function moduleText(s: CorrectSubject, seed: number): string {
  const { factory, exported, header } = SUBJECT_FILES[s.kind];
  return (
    `// ${header} ${s.index} of seed ${seed}${s.mistake ? `, mistake ${s.mistake}` : ''}\n` +
    `import { ${factory} } from ${JSON.stringify(s.modulePath)};\n` +
    `export const ${exported} = ${factory}(${seed}, ${s.index}, ${JSON.stringify(s.mistake)});\n`
  );
}

/**
 * Fuzzes a correct subject with `properties` through `fuzz`; its replay files go under its folder
 * in `out`, with its module file (kept only for a false alarm: its replay command names it).
 */
export async function fuzzCorrectSubject(
  options: ZooBaseOptions,
  properties: readonly string[],
  subject: CorrectSubject,
  fuzz: (options: FuzzOptions) => Promise<FuzzReport>,
) {
  const name = `${subject.kind}${subject.index}`;
  const file = `${name}${SUBJECT_FILES[subject.kind].suffix}`;
  const module = writeZooModule(options, file, moduleText(subject, options.seed));
  const out = options.out ?? null;
  const report = await fuzz({
    property: properties,
    ...campaignBase(options),
    replayDir: out === null ? null : join(out, name),
    ...(module !== undefined ? { module } : {}),
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
  });
  const failed = report.properties.filter((p) => p.status === 'failed');
  if (module !== undefined && failed.length === 0) rmSync(resolve(options.cwd ?? process.cwd(), module));
  return { report, statuses: Object.fromEntries(report.properties.map((p) => [p.id, p.status])), failed };
}

/**
 * Judges each correct subject in turn with `judge` (one progress line each, `noun index ok` or its
 * false alarms): the verdicts, the false alarms, and the subjects that had one.
 */
export async function judgeCorrectSubjects<V, A extends Parameters<typeof alarmProgress>[0][number]>(
  options: ZooBaseOptions,
  noun: string,
  indices: readonly number[],
  judge: (index: number) => Promise<{ readonly verdict: V; readonly alarms: readonly A[] }>,
) {
  const verdicts: V[] = [];
  const falseAlarms: A[] = [];
  const failed = new Set<number>();
  for (const index of indices) {
    const { verdict, alarms } = await judge(index);
    verdicts.push(verdict);
    falseAlarms.push(...alarms);
    if (alarms.length > 0) failed.add(index);
    options.onProgress?.(`${noun} ${index} ${alarmProgress(alarms)}`);
  }
  return { verdicts, falseAlarms, failed };
}

/** A false alarm's fields after the subject's index (the zoo adds the subject's description last). */
export function alarmFields(p: PropertyReport) {
  return {
    property: p.id,
    checkers: [...new Set(p.violations.map((v) => v.checker))].sort(),
    messages: p.violations.map((v) => v.message),
    seed: p.seed,
    path: p.failure?.path ?? null,
    replay: p.replay,
    replayCommand: p.replayCommand,
  };
}

/** The progress line of a correct subject: `ok`, or its false alarms. */
function alarmProgress(
  alarms: readonly { readonly property: string; readonly checkers: readonly string[] }[],
): string {
  if (alarms.length === 0) return 'ok';
  return `FALSE ALARM ${alarms.map((a) => `${a.property}/${a.checkers.join('+')}`).join(', ')}`;
}

/** The order a mistake hunt tries the properties in: the mistake's likely killers first. */
function killersFirst(killers: readonly string[], properties: readonly string[]): string[] {
  return [
    ...killers.filter((k) => properties.includes(k)),
    ...properties.filter((p) => !killers.includes(p)),
  ];
}

/** The catalogue's mistakes `option` names, in the order named (`true`: all; none by default). */
export function namedMistakes<M extends { readonly id: string }>(
  option: ZooBaseOptions['mistakes'],
  catalogue: readonly M[],
  noun: string,
): readonly M[] {
  if (option === undefined || option === false) return [];
  if (option === true) return catalogue;
  return option.map((id) => {
    const m = catalogue.find((x) => x.id === id);
    if (!m) throw new CliError('invalid_option', `--mistake ${id}: no such ${noun} (see docs/zoo.md)`);
    return m;
  });
}

/**
 * A mistake hunt: `campaign` property by property, the mistake's likely killers first, until one
 * fails. `property/checker+checker` (each checker's name as `name` gives it), `<refused>:<code>`
 * when the subject is refused, or null when no property caught the mistake.
 */
export async function huntMistakeWith(
  killers: readonly string[],
  properties: readonly string[],
  campaign: (property: string) => Promise<FuzzReport>,
  refused: string,
  name = (checker: string) => checker,
): Promise<string | null> {
  for (const property of killersFirst(killers, properties)) {
    try {
      const failed = (await campaign(property)).properties.find((p) => p.status === 'failed');
      if (failed)
        return `${property}/${[...new Set(failed.violations.map((v) => name(v.checker)))].sort().join('+')}`;
    } catch (error) {
      if (error instanceof CliError) return `${refused}:${error.code}`;
      throw error;
    }
  }
  return null;
}
