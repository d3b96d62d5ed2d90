/**
 * `cetp-sim merge FILE…`: joins the `--json` reports of the N shard jobs of one command (`fuzz`,
 * `mutants` or `ablate` run with `--shard I/N`, e.g. the jobs of a CI matrix) into the report one
 * run over everything would have printed: the same shape, its items in catalogue order. Each file is
 * checked against the schema of its command's report; files of different commands, different seeds
 * or with an item twice are refused (exit 2, naming file and field). The exit code is the one the
 * single run would have had: 1 if a shard failed (a property failed or exercised nothing, a planted
 * bug survived). Reports are data: nothing in them is loaded or run.
 */
import { readFileSync } from 'node:fs';
import { ablatableRules } from '../../fuzz/hunt.ts';
import { MUTANTS } from '../../fuzz/mutants.ts';
import { PROPERTIES, type PropertyDef, propertyById } from '../../fuzz/suites.ts';
import { CliError, EXIT_FAILED, EXIT_OK } from '../../harness/errors.ts';
import { CODE_ROOT } from '../../harness/root.ts';
import { Ajv2020, type ErrorObject } from '../../protocol/schemas/ajv.ts';
import { consumerImpact } from '../consumer-module.ts';
import type { Io } from '../io.ts';

/** An object with these `properties`, of which `required` must be there. */
const record = <P extends Record<string, unknown>>(required: readonly (keyof P & string)[], properties: P) =>
  ({ type: 'object', required, properties }) as const;
/** A whole report: a record with no other field. */
const report = <P extends Record<string, unknown>>(required: readonly (keyof P & string)[], properties: P) =>
  ({ ...record(required, properties), additionalProperties: false }) as const;

const STRING = { type: 'string' } as const;
const ITEMS = { type: 'array', items: record(['id'], { id: STRING }) } as const;

/** The reports `merge` reads, by command: what makes each one (its item list and top-level fields). */
const SCHEMAS = {
  fuzz: report(['seed', 'passed', 'properties'], {
    seed: { type: 'integer' },
    android: { type: 'integer' },
    passed: { type: 'boolean' },
    properties: ITEMS,
    consumer: record(['module', 'name'], { module: STRING, name: STRING }),
  }),
  mutants: report(['mutants'], {
    mutants: { type: 'array', items: record(['id', 'killed'], { id: STRING, killed: { type: 'boolean' } }) },
  }),
  ablate: report(['rules'], { rules: ITEMS }),
} as const;

type Command = keyof typeof SCHEMAS;
type Item = { readonly id: string } & Record<string, unknown>;

interface Report {
  readonly file: string;
  readonly command: Command;
  readonly items: readonly Item[];
  readonly raw: Record<string, unknown>;
}

/** Each report's list of items, by command. */
const ITEM_KEY = { fuzz: 'properties', mutants: 'mutants', ablate: 'rules' } as const;

export interface MergeFlags {
  readonly json: boolean;
}

function invalid(file: string, message: string): CliError {
  return new CliError('invalid_merge_input', `${file}: ${message}`);
}

function where(e: ErrorObject): string {
  return `${e.instancePath === '' ? '(root)' : e.instancePath}: ${e.message ?? e.keyword}`;
}

function commandOf(file: string, raw: unknown): Command {
  const keys = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? Object.keys(raw) : [];
  const command = (Object.keys(ITEM_KEY) as Command[]).find((c) => keys.includes(ITEM_KEY[c]));
  if (!command)
    throw invalid(
      file,
      '(root): not the --json report of cetp-sim fuzz, mutants or ablate (no properties, mutants or rules)',
    );
  return command;
}

function readReport(file: string): Report {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliError('merge_read_failed', `cannot read ${file}: ${(error as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw invalid(file, `not JSON: ${(error as Error).message}`);
  }
  const command = commandOf(file, raw);
  const validate = new Ajv2020({ strict: true, strictRequired: false }).compile(SCHEMAS[command]);
  if (!validate(raw)) {
    const first = validate.errors?.[0];
    throw invalid(file, first ? where(first) : 'bad shape');
  }
  const report = raw as unknown as Record<string, unknown>;
  return { file, command, items: report[ITEM_KEY[command]] as Item[], raw: report };
}

/** Every item once, ordered as the catalogue orders them (`order`: the catalogue's ids). */
function joined(reports: readonly Report[], order: readonly string[]): Item[] {
  const seen = new Map<string, string>();
  const items: Item[] = [];
  for (const { file, command, items: own } of reports)
    own.forEach((item, i) => {
      const at = `/${ITEM_KEY[command]}/${i}/id`;
      if (!order.includes(item.id)) throw invalid(file, `${at}: unknown ${command} item '${item.id}'`);
      const first = seen.get(item.id);
      if (first !== undefined)
        throw invalid(file, `${at}: '${item.id}' is in ${first} too (overlapping shards)`);
      seen.set(item.id, file);
      items.push(item);
    });
  return items.sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id));
}

/** One field that must read the same in every shard (seed, the consumer module). */
function same(reports: readonly Report[], field: string): unknown {
  const [first, ...rest] = reports as [Report, ...Report[]];
  const value = JSON.stringify(first.raw[field]);
  const other = rest.find((r) => JSON.stringify(r.raw[field]) !== value);
  if (other)
    throw invalid(
      other.file,
      `/${field}: ${JSON.stringify(other.raw[field])} but ${first.file} has ${value} (not shards of one run)`,
    );
  return first.raw[field];
}

function mergeFuzz(reports: readonly Report[]): { report: object; failed: boolean } {
  const seed = same(reports, 'seed');
  // The Android release profile the shards ran under (--android): the same in every shard.
  const android = same(reports, 'android');
  const consumer = same(reports, 'consumer') as { module: string; name: string } | undefined;
  const properties = joined(
    reports,
    PROPERTIES.map((p) => p.id),
  );
  const passed = properties.every((p) => p.status === 'passed');
  const defs = properties.map((p) => propertyById(p.id) as PropertyDef);
  return {
    report: {
      seed,
      ...(android !== undefined ? { android } : {}),
      passed,
      properties,
      ...(consumer
        ? { consumer: { module: consumer.module, name: consumer.name, ...consumerImpact(defs) } }
        : {}),
    },
    failed: !passed,
  };
}

function merged(reports: readonly Report[]): { report: object; failed: boolean } {
  switch ((reports[0] as Report).command) {
    case 'fuzz':
      return mergeFuzz(reports);
    case 'mutants': {
      const mutants = joined(
        reports,
        MUTANTS.map((m) => m.id),
      );
      return { report: { mutants }, failed: mutants.some((m) => m.killed === false) };
    }
    case 'ablate':
      return { report: { rules: joined(reports, ablatableRules(CODE_ROOT)) }, failed: false };
  }
}

export function mergeCommand(io: Io, files: readonly string[], _flags: MergeFlags): number {
  const reports = files.map(readReport);
  const first = reports[0] as Report;
  const stranger = reports.find((r) => r.command !== first.command);
  if (stranger)
    throw invalid(
      stranger.file,
      `(root): a ${stranger.command} report, but ${first.file} is a ${first.command} report`,
    );
  const { report, failed } = merged(reports);
  io.out(JSON.stringify(report));
  return failed ? EXIT_FAILED : EXIT_OK;
}
