/**
 * Runs one vector's steps in a fresh simulated world: the provider fixture and two agent apps (the
 * primary caller and a second UID), a scripted user who answers the confirmations in the order the
 * vector's `user` steps give. Every step goes over simulated Binder exactly as a device runner's
 * would; nothing calls the provider's objects.
 *
 * A `Judge` supplies each step's expectation: the vector's own when running, a generalisation of
 * what the reference answered when generating (generalise.ts). Both paths then match the reply the
 * same way, which is also how captures get bound.
 */
import type { ProviderFixture } from '../fuzz/scenario/fixtures.ts';
import type { Variant } from '../fuzz/scenario/model.ts';
import { sha256Hex } from '../protocol/digest.ts';
import { AGENT, agentPackage, OTHER_AGENT } from '../providers/testing.ts';
import type { AppContext } from '../sim/app/context.ts';
import type { Bundle } from '../sim/binder/bundle.ts';
import { World } from '../sim/world.ts';
import { LEND_BACKGROUND_START, readToEnd, USER_ANSWERS, VectorCaller } from './caller.ts';
import type { CallSpec, SendValue, Step, Vector } from './format.ts';
import { killTargetProcess } from './kill-target.ts';
import { match } from './matchers.ts';
import { type Actual, fromBundle, type Vars } from './typed.ts';
import {
  type Judge,
  type Judgement,
  judgeFd,
  judgeParallel,
  judgeReply,
  type ProviderVectorRecord,
  type StepFailure,
} from './verdicts.ts';

export type { FdDigest, Judge, StepFailure } from './verdicts.ts';
export { vectorJudge } from './verdicts.ts';

export interface EngineResult {
  /** Empty: every step matched. */
  readonly failures: readonly StepFailure[];
  /** What the run judged, as data (verdicts.ts): judged again where the provider never ran. */
  readonly record: ProviderVectorRecord;
}

class StepFailed extends Error {
  constructor(readonly failures: StepFailure[]) {
    super(failures[0]?.message ?? 'step failed');
  }
}

/** The running state of one vector in its world. */
class VectorSession {
  private last: Bundle | null = null;
  private readonly caller: VectorCaller;
  /** What the run judged, in order (the record). */
  readonly judgements: Judgement[] = [];

  constructor(
    private readonly world: World,
    private readonly fixture: ProviderFixture,
    private readonly vector: Vector,
    private readonly judge: Judge,
    private readonly primary: AppContext,
    readonly vars: Vars,
  ) {
    this.caller = new VectorCaller(world, fixture.authority, primary);
  }

  /** Judges a reply (recorded first: a judge that throws is judged again the same way). */
  private expectOk(index: number, actual: Actual): void {
    this.judgements.push({ kind: 'reply', step: index, actual });
    const failures = judgeReply(index, this.judge.reply(index, actual, this.vars), actual, this.vars);
    if (failures.length > 0) throw new StepFailed(failures);
  }

  /** Sends `spec` as its caller: the second UID's calls run in that app's process. */
  private async call(spec: CallSpec): Promise<Bundle | null> {
    return (await this.caller.call(spec, this.vars)).reply;
  }

  private read(reply: Bundle | null): Actual {
    return fromBundle(reply, { providerPackage: this.fixture.packageName });
  }

  private async callAndJudge(index: number, spec: CallSpec): Promise<void> {
    const reply = await this.call(spec);
    this.last = reply;
    this.expectOk(index, this.read(reply));
  }

  private callOf(index: number, step: Extract<Step, { op: 'repeat' }>): CallSpec {
    const earlier = this.vector.steps[step.step];
    if (earlier?.op !== 'call')
      throw new Error(`step ${index} repeats step ${step.step}, which is not a call`);
    const extras: Record<string, SendValue> | null = earlier.extras
      ? { ...earlier.extras, ...step.set }
      : null;
    return { ...earlier, caller: step.caller ?? earlier.caller ?? 'primary', extras };
  }

  private async parallel(index: number, step: Extract<Step, { op: 'parallel' }>): Promise<void> {
    const actuals: Actual[] = [];
    const waiters = Array.from({ length: step.count }, (_, i) => {
      const done = this.primary.waiter<null>(`parallel ${i}`);
      this.primary.spawn(`vector-parallel-${i}`, async () => {
        const reply = await this.call(step.call);
        this.last = reply;
        actuals.push(this.read(reply));
        done.wake(null);
      });
      return done;
    });
    for (const w of waiters) await w.wait();
    this.judgements.push({ kind: 'parallel', step: index, actuals });
    const groups = this.judge.parallel(index, actuals, this.vars);
    const failures = judgeParallel(index, groups, actuals, this.vars);
    if (failures.length > 0) throw new StepFailed(failures);
  }

  private async user(step: Extract<Step, { op: 'user' }>): Promise<void> {
    const pi = this.last?.getPendingIntent('resolution');
    if (!pi) throw new Error('a user step needs a reply with a resolution PendingIntent');
    const launcher = this.caller.lastCaller;
    if (step.answer === 'never') {
      const launch = async () =>
        void (await launcher.startIntentSenderForResult(pi, null, 0, LEND_BACKGROUND_START));
      this.primary.spawn('vector-unanswered', launch, { daemon: true });
      return;
    }
    await launcher.startIntentSenderForResult(pi, null, 0, LEND_BACKGROUND_START);
  }

  private async readFd(index: number, step: Extract<Step, { op: 'read-fd' }>): Promise<void> {
    const pfd = this.last?.getParcelFileDescriptor(step.key);
    if (!pfd)
      throw new StepFailed([
        { step: index, path: `$.${step.key}`, message: 'no file descriptor in the reply' },
      ]);
    const bytes = await readToEnd(pfd);
    const got = { size: bytes.length, sha256: sha256Hex(bytes) };
    this.judgements.push({ kind: 'fd', step: index, key: step.key, got });
    const failures = judgeFd(index, step.key, this.judge.fd(index, got, this.vars), got, this.vars);
    if (failures.length > 0) throw new StepFailed(failures);
  }

  private async pollUntil(index: number, step: Extract<Step, { op: 'poll-until' }>): Promise<void> {
    for (let poll = 0; poll < step.max_polls; poll++) {
      const reply = await this.call(step.call);
      const actual = this.read(reply);
      if (match(step.until, actual, new Map(this.vars)).length === 0) {
        this.last = reply;
        return this.expectOk(index, actual);
      }
      await this.primary.sleep(pollAfterMs(reply));
    }
    throw new StepFailed([
      { step: index, path: '$', message: `the condition did not hold within ${step.max_polls} polls` },
    ]);
  }

  async step(index: number, step: Step): Promise<void> {
    switch (step.op) {
      case 'call':
        return this.callAndJudge(index, step);
      case 'repeat':
        return this.callAndJudge(index, this.callOf(index, step));
      case 'parallel':
        return this.parallel(index, step);
      case 'user':
        return this.user(step);
      case 'kill':
        this.caller.reset();
        return this.world.killProcess(killTargetProcess(this.world, this.fixture, step.process), {
          kind: 'killed',
          reason: 'vector kill step',
        });
      case 'advance-clock':
        return this.primary.sleep(step.ms);
      case 'read-fd':
        return this.readFd(index, step);
      case 'poll-until':
        return this.pollUntil(index, step);
    }
  }
}

/** The poll interval a reply asks for (data.poll_after_ms), else one second. */
function pollAfterMs(reply: Bundle | null): number {
  try {
    const data = JSON.parse(reply?.getString('data') ?? 'null') as { poll_after_ms?: unknown } | null;
    const ms = data?.poll_after_ms;
    return typeof ms === 'number' && ms > 0 && ms <= 60_000 ? ms : 1_000;
  } catch {
    return 1_000;
  }
}

export interface EngineOptions {
  readonly fixture: ProviderFixture;
  readonly variant: Variant;
  readonly judge: Judge;
}

/** Runs `vector` in a fresh world; deterministic (the world is seeded by the vector id). */
export async function runVectorInWorld(vector: Vector, options: EngineOptions): Promise<EngineResult> {
  const decisions = vector.steps.flatMap((s) =>
    s.op === 'user' ? [USER_ANSWERS[s.answer] ?? 'ignore'] : [],
  );
  const world = new World({
    seed: `vector:${vector.id}`,
    user: { kind: 'scripted', decisions },
    ...(options.variant.android !== undefined ? { android: options.variant.android } : {}),
  });
  options.fixture.install(world, options.variant);
  world.install(agentPackage(AGENT), () => ({}));
  world.install(agentPackage(OTHER_AGENT), () => ({}));
  let failures: StepFailure[] = [];
  let finished = false;
  const record: { vars: (readonly [string, unknown])[]; judgements: Judgement[] } = {
    vars: [],
    judgements: [],
  };
  world.spawnIn(AGENT, 'vector', async (ctx) => {
    const vars: Vars = new Map<string, unknown>([['caller_uid', String(ctx.uid)]]);
    for (const name of vector.fresh) vars.set(name, ctx.seededUuid());
    record.vars = [...vars];
    const session = new VectorSession(world, options.fixture, vector, options.judge, ctx, vars);
    record.judgements = session.judgements;
    let index = 0;
    try {
      for (; index < vector.steps.length; index++) await session.step(index, vector.steps[index] as Step);
    } catch (error) {
      failures =
        error instanceof StepFailed
          ? error.failures
          : [
              {
                step: index,
                path: '$',
                message: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
              },
            ];
    }
    finished = true;
  });
  await world.run();
  if (!finished && failures.length === 0)
    failures = [{ step: -1, path: '$', message: 'the vector never finished (a call was never answered)' }];
  return { failures, record: { kind: 'provider', ...record } };
}
