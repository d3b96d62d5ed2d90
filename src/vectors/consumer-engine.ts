/**
 * Runs one consumer vector in a fresh world: the reference consumer app (with the variant's planted
 * bugs) and a scripted provider (src/consumer/testing.ts) that answers the vector's `replies` and
 * frames everything else honestly. The consumer performs the task; its requests on the wire (the
 * world's record of content calls) and the outcome it hands its agent are then matched against the
 * vector — by a judge, as for provider vectors, so generating and running share one path.
 */
import type { Variant } from '../../properties/scenario/model.ts';
import type { ToolOutcome } from '../consumer/outcomes.ts';
import { consumerCalls, consumerWorld, installScripted, runConsumer } from '../consumer/testing.ts';
import type { Bundle } from '../sim/bundle.ts';
import type { ConsumerVector } from './consumer-format.ts';
import type { EngineResult, StepFailure } from './engine.ts';
import type { Expect, JsonExpect } from './format.ts';
import { match, matchJsonValue } from './matchers.ts';
import { type Actual, fromBundle, toBundle, type Vars } from './typed.ts';

export interface ConsumerJudge {
  requests(method: string, actuals: readonly Actual[], vars: Vars): readonly Expect[];
  outcome(actual: unknown): JsonExpect;
}

export function consumerVectorJudge(vector: ConsumerVector): ConsumerJudge {
  return { requests: (method) => vector.requests[method] ?? [], outcome: () => vector.outcome };
}

/** What the agent got, as the vector states it. */
export function outcomeJson(outcome: ToolOutcome): { kind: string; code?: string } {
  return 'code' in outcome ? { kind: outcome.kind, code: outcome.code } : { kind: outcome.kind };
}

export interface ConsumerEngineOptions {
  readonly variant: Variant;
  readonly judge: ConsumerJudge;
  readonly blob: (sha256: string) => Uint8Array;
}

const PROVIDER = 'com.example.scripted';

export async function runConsumerVector(
  vector: ConsumerVector,
  options: ConsumerEngineOptions,
): Promise<EngineResult> {
  const world = consumerWorld({
    providers: [],
    consumer: { plantedBugs: options.variant.consumerBugs, disabledRules: options.variant.disabledRules },
    world: {
      seed: `consumer-vector:${vector.id}`,
      user: { kind: 'scripted', decisions: [], otherwise: 'approve' },
    },
  });
  installScripted(world, {
    packageName: PROVIDER,
    versions: vector.provider.versions,
    tools: vector.provider.tools as never,
    answer: (call) => {
      const scripted = vector.replies.find((r) => r.method === call.method && r.n === call.n);
      if (!scripted) return undefined;
      let serial = 0;
      return toBundle(scripted.reply, {
        vars: new Map([['request_id', call.requestId]]),
        nowMs: () => call.context.currentTimeMillis(),
        openBlob: (sha256) => {
          const path = `vector-blob-${++serial}-${sha256}`;
          call.context.writeFile(path, options.blob(sha256));
          return call.context.openFile(path, 'r');
        },
      });
    },
  });
  const { value } = await runConsumer(world, (bridge) =>
    bridge.execute(PROVIDER, vector.task.tool, vector.task.args as never),
  );
  const failures: StepFailure[] = [];
  const vars: Vars = new Map();
  const calls = consumerCalls(world, PROVIDER);
  for (const method of Object.keys(vector.requests).length > 0
    ? Object.keys(vector.requests)
    : methodsOf(calls)) {
    const sent = calls.filter((c) => c.method === method).map((c) => read(c.extras));
    const expected = options.judge.requests(method, sent, vars);
    if (sent.length !== expected.length)
      failures.push({
        step: -1,
        path: `$.requests.${method}`,
        message: `sent ${sent.length}, expected ${expected.length}`,
      });
    else
      expected.forEach((e, i) => {
        for (const m of match(e, sent[i], vars, `$.requests.${method}[${i}]`))
          failures.push({ ...m, step: -1 });
      });
  }
  const got = outcomeJson(value);
  for (const m of matchJsonValue(options.judge.outcome(got), got, vars, '$.outcome'))
    failures.push({ ...m, step: -1 });
  return { failures };
}

function methodsOf(calls: readonly { method: string }[]): string[] {
  return [...new Set(calls.map((c) => c.method))];
}

function read(extras: Bundle | null): Actual {
  return fromBundle(extras, { providerPackage: PROVIDER });
}
