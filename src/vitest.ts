/**
 * `cetp-sim/vitest`: cetp-sim's properties as vitest tests. One call in your test file registers a
 * `describe` block with one test per property, each fuzzing your provider (or consumer) with the
 * engine `npx cetp-sim fuzz` uses:
 *
 *   import { describeProvider } from 'cetp-sim/vitest';
 *   import { providers } from './my-provider.ts';
 *   describeProvider(providers, { module: './my-provider.ts' });
 *
 * A provider fixture's own oracles (`invariants`, `model`) are checked in every run of every
 * property, and each is also a test of its own after the property tests (`invariant:<id>`,
 * `model:<name>`): it fails when a property's shrunk failure broke it, with that failure's story.
 *
 * A failing test's message carries the checker, the rule ids, the evidence, the shrunk trace, the
 * replay file and the exact `npx cetp-sim replay …` command; a property that exercised nothing fails
 * too (it judged nothing). `{ replay: FILE }` turns the block into one test that re-runs that replay
 * file against your code — the fast-check/vitest habit of pasting the reproduction back.
 *
 * vitest is an optional peer dependency of cetp-sim: only this entry needs it.
 */
import { beforeAll, describe, it } from 'vitest';
import { INVARIANT_PREFIX, MODEL_PREFIX } from './check/user-oracles.ts';
import { PROPERTY_CATALOGUE, type PropertyInfo } from './harness/catalogue.ts';
import { CliError } from './harness/errors.ts';
import {
  type ConsumerFuzzOptions,
  type FuzzOptions,
  fuzzConsumer,
  fuzzProvider,
  fuzzReference,
  type PropertyReport,
  traceText,
} from './harness/fuzz.ts';
import { exercisedLine, verdictMessage } from './harness/message.ts';
import { replay } from './harness/replay.ts';
import { checkConsumer, checkProviderFixtures } from './harness/subjects.ts';
import type { CancellationLike, ConsumerUnderTest, ProviderFixture } from './subjects/subjects.ts';

/** Per test (one property's campaign), unless `timeout` says otherwise: 10 minutes. */
export const DEFAULT_TEST_TIMEOUT_MS = 600_000;

interface SuiteOptions {
  /** The describe block's name; default `cetp-sim: <fixture names>`. */
  readonly name?: string;
  /** Per-test timeout in ms (vitest's third argument to `it`); default 10 minutes. */
  readonly timeout?: number;
  /** Re-run this replay file against your code instead of fuzzing (one test). */
  readonly replay?: string;
}

export type ProviderSuiteOptions = Omit<FuzzOptions, 'onResult'> & SuiteOptions;
export type ConsumerSuiteOptions = Omit<ConsumerFuzzOptions, 'onResult'> & SuiteOptions;

/** A failed property as an Error whose message is the whole story (vitest prints message and stack). */
export class PropertyFailure extends Error {
  override readonly name = 'PropertyFailure';
  /** `pasteBack`: the block takes `{ replay: FILE }`, so the message offers it. */
  constructor(
    readonly report: PropertyReport,
    pasteBack = true,
    headline?: string,
  ) {
    const story = verdictMessage(
      report,
      pasteBack ? { inTest: (file) => `{ replay: ${JSON.stringify(file)} }` } : {},
    );
    super(headline === undefined ? story : `${headline}\n${story}`);
    // The stack would point into cetp-sim; the message says where to look.
    this.stack = `${this.name}: ${this.message}`;
  }
}

/** How a suite registers its block: `describe`, `describe.skip` or `describe.only`. */
type Block = (name: string, body: () => void) => void;

function asList<T>(value: T | readonly T[]): readonly T[] {
  return Array.isArray(value) ? (value as readonly T[]) : [value as T];
}

function selectedInfos(option: FuzzOptions['property'], drives?: PropertyInfo['drives']): PropertyInfo[] {
  if (option === undefined)
    return PROPERTY_CATALOGUE.filter((p) => drives === undefined || p.drives === drives);
  const ids = asList(option);
  const bad = ids.filter((id) => !PROPERTY_CATALOGUE.some((p) => p.id === id));
  if (bad.length > 0)
    throw new CliError(
      'unknown_property',
      `unknown property ${bad.map((id) => `'${id}'`).join(', ')}; valid: ${PROPERTY_CATALOGUE.map((p) => p.id).join(', ')}`,
    );
  return PROPERTY_CATALOGUE.filter((p) => ids.includes(p.id));
}

/** `idempotency (CETP-9-05): …` — the rule ids it guards are in its failure message and in PROPERTY_CATALOGUE. */
function testTitle(p: PropertyInfo): string {
  return `${p.id} (${p.area}): ${p.title}`;
}

function replayTest(file: string, subjects: Parameters<typeof replay>[1], timeout: number): void {
  it(`replays ${file}`, { timeout }, async () => {
    const run = await replay(file, subjects);
    if (run.passed) return;
    const lines = [
      `cetp-sim replay ${file}: property ${run.property} still fails (rules ${run.rules.join(' ')})`,
      ...run.violations.flatMap((v) => [
        `  ✗ ${v.checker} (${v.class}; rules ${v.ruleIds.join(' ') || 'none'})`,
        `    ${v.message}`,
      ]),
      '  trace:',
      ...traceText(run.events)
        .split('\n')
        .map((l) => `    ${l}`),
    ];
    const error = new Error(lines.join('\n'));
    error.stack = error.message;
    throw error;
  });
}

/** Each property's campaign run once per block, whichever test asks first (property or user oracle). */
function once(
  fuzz: (id: string) => Promise<PropertyReport | undefined>,
): (id: string) => Promise<PropertyReport | undefined> {
  const campaigns = new Map<string, Promise<PropertyReport | undefined>>();
  return (id) => {
    let campaign = campaigns.get(id);
    if (!campaign) {
      campaign = fuzz(id);
      campaigns.set(id, campaign);
    }
    return campaign;
  };
}

/** The oracle ids and titles of the fixtures' own invariants and models (well-formed ones; the rest fail in beforeAll). */
function userOracleTitles(fixtures: readonly ProviderFixture[]): { id: string; title: string }[] {
  const out: { id: string; title: string }[] = [];
  for (const f of fixtures) {
    for (const inv of Array.isArray(f.invariants) ? f.invariants : [])
      if (typeof inv?.id === 'string')
        out.push({
          id: `${INVARIANT_PREFIX}${inv.id}`,
          title: `${INVARIANT_PREFIX}${inv.id} (${f.name}): ${inv.description ?? 'your invariant'}`,
        });
    if (f.model !== undefined)
      out.push({
        id: `${MODEL_PREFIX}${f.name}`,
        title: `${MODEL_PREFIX}${f.name}: its storage follows your model`,
      });
  }
  return out;
}

/**
 * One test per user oracle: it held in every run of every property (each property's runs up to its
 * first failure), or it fails with the story of the first property whose failure broke it.
 */
function userOracleTests(
  oracles: readonly { id: string; title: string }[],
  infos: readonly PropertyInfo[],
  timeout: number,
  fuzz: (id: string) => Promise<PropertyReport | undefined>,
): void {
  for (const oracle of oracles)
    it(oracle.title, { timeout }, async ({ annotate }) => {
      let runs = 0;
      for (const p of infos) {
        const report = await fuzz(p.id);
        if (!report) continue;
        runs += report.runs;
        if (report.violations.some((v) => v.checker === oracle.id))
          throw new PropertyFailure(report, true, `${oracle.id} broken in property ${p.id}`);
      }
      await annotate(`checked after each of ${runs} runs of ${infos.length} properties`, 'cetp-sim');
    });
}

function propertyTests(
  infos: readonly PropertyInfo[],
  timeout: number,
  pasteBack: boolean,
  fuzz: (id: string) => Promise<PropertyReport | undefined>,
): void {
  for (const p of infos)
    it(testTitle(p), { timeout }, async ({ annotate }) => {
      const report = await fuzz(p.id);
      if (!report) throw new Error(`cetp-sim: property ${p.id} did not run`);
      // What the runs exercised, beside the verdict (a green test means something only next to it).
      await annotate(`${report.runs} runs · ${exercisedLine(report.exercised)}`, 'cetp-sim');
      if (report.blindOracles.length > 0)
        await annotate(
          `write executions succeeded but the provider declared no business effect (AppContext.declareEffect), so ${report.blindOracles.join(', ')} could not judge it`,
          'warning',
        );
      if (!report.passed) throw new PropertyFailure(report, pasteBack);
    });
}

const providerSuite = (block: Block) =>
  function describeProvider(
    fixture: ProviderFixture | readonly ProviderFixture[],
    options: ProviderSuiteOptions = {},
  ): void {
    const fixtures = asList(fixture);
    const fail = (message: string): never => {
      const error = new CliError('invalid_fixture', `describeProvider: ${message}`);
      error.stack = `${error.name} [${error.code}]: ${error.message}`; // the message names the field
      throw error;
    };

    const infos = selectedInfos(options.property);
    const timeout = options.timeout ?? DEFAULT_TEST_TIMEOUT_MS;
    const name = options.name ?? `cetp-sim: provider ${fixtures.map((f) => f.name).join(', ')}`;
    block(name, () => {
      // A bad fixture fails the block once, with the message naming the field, before any property runs.
      beforeAll(() => checkProviderFixtures(fixtures, options.propertyTools, 'describeProvider', fail));
      if (options.replay !== undefined) return replayTest(options.replay, { providers: fixtures }, timeout);
      const fuzz = once(async (id) => {
        const { replay: _replay, name: _name, timeout: _timeout, ...fuzzOptions } = options;
        return (await fuzzProvider(fixtures, { ...fuzzOptions, property: id })).properties[0];
      });
      propertyTests(infos, timeout, true, fuzz);
      userOracleTests(userOracleTitles(fixtures), infos, timeout, fuzz);
    });
  };

const consumerSuite = (block: Block) =>
  function describeConsumer<C extends CancellationLike>(
    consumer: ConsumerUnderTest<C>,
    options: ConsumerSuiteOptions = {},
  ): void {
    const fail = (message: string): never => {
      throw new CliError('invalid_consumer', `describeConsumer: ${message}`);
    };
    checkConsumer(consumer, fail);
    const infos = selectedInfos(options.property, 'consumer');
    const timeout = options.timeout ?? DEFAULT_TEST_TIMEOUT_MS;
    const name = options.name ?? `cetp-sim: consumer ${consumer.name}`;
    block(name, () => {
      if (options.replay !== undefined)
        return replayTest(
          options.replay,
          { consumer, ...(options.providers !== undefined ? { providers: options.providers } : {}) },
          timeout,
        );
      const fuzz = once(async (id) => {
        const { replay: _replay, name: _name, timeout: _timeout, ...fuzzOptions } = options;
        return (await fuzzConsumer(consumer, { ...fuzzOptions, property: id })).properties[0];
      });
      propertyTests(infos, timeout, true, fuzz);
      // The providers' own oracles judge these runs too (`options.providers`).
      const providers = options.providers === undefined ? [] : asList(options.providers);
      userOracleTests(userOracleTitles(providers), infos, timeout, fuzz);
    });
  };

export type ReferenceSuiteOptions = Omit<FuzzOptions, 'onResult' | 'module' | 'propertyTools'> &
  Omit<SuiteOptions, 'replay'>;

const referenceSuite = (block: Block) =>
  function describeReference(options: ReferenceSuiteOptions = {}): void {
    const infos = selectedInfos(options.property);
    const timeout = options.timeout ?? DEFAULT_TEST_TIMEOUT_MS;
    const name =
      options.name ??
      `cetp-sim: the reference implementations${options.mutant ? ` with ${options.mutant}` : ''}`;
    block(name, () => {
      propertyTests(infos, timeout, false, async (id) => {
        const { name: _name, timeout: _timeout, ...fuzzOptions } = options;
        return (await fuzzReference({ ...fuzzOptions, property: id })).properties[0];
      });
    });
  };

/** With `.skip` and `.only`, as vitest's `describe` has them (and @fast-check/vitest's `test.prop`). */
function withModifiers<F extends object>(
  suite: (block: Block) => F,
): F & { readonly skip: F; readonly only: F } {
  return Object.assign(
    suite((name, body) => describe(name, body)),
    {
      skip: suite((name, body) => describe.skip(name, body)),
      // biome-ignore lint/suspicious/noFocusedTests: the entry offers `.only` to its users, as vitest does
      only: suite((name, body) => describe.only(name, body)),
    },
  );
}

/**
 * `describeProvider(fixture | fixtures, options?)`: a describe block with one test per property
 * (every property, or `options.property`) fuzzing your provider fixture(s). The fixtures are checked
 * at once (a bad one fails the file with a message naming the field).
 */
export const describeProvider = withModifiers(providerSuite);
/**
 * `describeConsumer(consumer, options?)`: a describe block with one test per consumer-driven property
 * (or `options.property`) fuzzing your consumer, against the reference providers or `options.providers`.
 */
export const describeConsumer = withModifiers(consumerSuite);
/**
 * `describeReference(options?)`: a describe block with one test per property (or `options.property`)
 * fuzzing cetp-sim's reference implementations — with `mutant`, a planted bug.
 */
export const describeReference = withModifiers(referenceSuite);

// The fixture's own oracles, for writing them beside the suite.
export type {
  AppState,
  Invariant,
  ModelRequest,
  RequestHistory,
  RunHistory,
  ToolModel,
} from './subjects/user-oracle-types.ts';
export { PROPERTY_CATALOGUE, type PropertyInfo, type PropertyReport };
