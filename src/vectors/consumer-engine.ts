/**
 * Runs one consumer vector in a fresh world: the reference consumer app (with the variant's planted
 * bugs) and a scripted provider (src/consumer/testing.ts) that answers the vector's `replies` and
 * frames everything else honestly, beside the helper app that mints the PendingIntents a reply
 * says another app created (helper-app.ts). The consumer performs the task; its requests on the
 * wire (the world's record of content calls), whose screens it opened through a PendingIntent (the
 * trace's activity starts) and the outcome it hands its agent are then matched against the vector —
 * by a judge, as for provider vectors, so generating and running share one path.
 */

import type { ToolOutcome } from '../consumer/outcomes.ts';
import {
  CONSUMER,
  consumerCalls,
  consumerWorld,
  installScripted,
  runConsumer,
  SCRIPTED_ACTIVITY,
  type ScriptedCall,
} from '../consumer/testing.ts';
import type { Variant } from '../fuzz/scenario/model.ts';
import type { Bundle } from '../sim/binder/bundle.ts';
import type { PendingIntent } from '../sim/ui/pending-intent.ts';
import type { World } from '../sim/world.ts';
import type { ConsumerVector, LaunchedApp, ScriptedReply } from './consumer-format.ts';
import type { PendingIntentValue } from './format.ts';
import { createPendingIntent, HELPER_PACKAGE, installHelper, seeingHelper } from './helper-app.ts';
import { type Actual, fromBundle, toBundle } from './typed.ts';
import {
  type ConsumerJudge,
  type ConsumerVectorRecord,
  judgeConsumerRecord,
  type StepFailure,
} from './verdicts.ts';

export type { ConsumerJudge } from './verdicts.ts';
export { consumerVectorJudge } from './verdicts.ts';

/** What the agent got, as the vector states it. */
export function outcomeJson(outcome: ToolOutcome): { kind: string; code?: string } {
  return 'code' in outcome ? { kind: outcome.kind, code: outcome.code } : { kind: outcome.kind };
}

export interface ConsumerEngineResult {
  readonly failures: readonly StepFailure[];
  /** What the run judged, as data (verdicts.ts). */
  readonly record: ConsumerVectorRecord;
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
): Promise<ConsumerEngineResult> {
  const world = consumerWorld({
    providers: [],
    consumer: { plantedBugs: options.variant.consumerBugs, disabledRules: options.variant.disabledRules },
    world: {
      seed: `consumer-vector:${vector.id}`,
      user: { kind: 'scripted', decisions: [], otherwise: 'approve' },
      ...(options.variant.android !== undefined ? { android: options.variant.android } : {}),
    },
  });
  const scriptedActivity = { packageName: PROVIDER, activity: SCRIPTED_ACTIVITY };
  let tokens = 0;
  installScripted(world, {
    packageName: PROVIDER,
    versions: vector.provider.versions,
    tools: vector.provider.tools as never,
    patchPackage: seeingHelper,
    answer: async (call) => {
      const scripted = vector.replies.find((r) => r.method === call.method && r.n === call.n);
      if (!scripted) return undefined;
      const minted = new Map<PendingIntentValue, PendingIntent>();
      for (const v of pendingIntentsOf(scripted))
        minted.set(v, await createPendingIntent(call.context, v, ++tokens, scriptedActivity));
      return scriptedBundle(scripted, call, minted, options.blob);
    },
  });
  installHelper(world, scriptedActivity);
  const { value } = await runConsumer(world, (bridge) =>
    bridge.execute(PROVIDER, vector.task.tool, vector.task.args as never),
  );
  const calls = consumerCalls(world, PROVIDER);
  const methods = Object.keys(vector.requests).length > 0 ? Object.keys(vector.requests) : methodsOf(calls);
  const record: ConsumerVectorRecord = {
    kind: 'consumer',
    requests: methods.map((method) => [
      method,
      calls.filter((c) => c.method === method).map((c) => read(c.extras)),
    ]),
    launches: launchesOf(world),
    outcome: outcomeJson(value),
  };
  return { failures: judgeConsumerRecord(options.judge, record), record };
}

function pendingIntentsOf(scripted: ScriptedReply): PendingIntentValue[] {
  return Object.values(scripted.reply).filter((v): v is PendingIntentValue => v.type === 'pending_intent');
}

/** The scripted reply as a Bundle: the request's id, clock, blobs and the tokens created for it. */
function scriptedBundle(
  scripted: ScriptedReply,
  call: ScriptedCall,
  minted: ReadonlyMap<PendingIntentValue, PendingIntent>,
  blob: (sha256: string) => Uint8Array,
): Bundle {
  let serial = 0;
  return toBundle(scripted.reply, {
    vars: new Map([['request_id', call.requestId]]),
    nowMs: () => call.context.currentTimeMillis(),
    openBlob: (sha256) => {
      const path = `vector-blob-${++serial}-${sha256}`;
      call.context.writeFile(path, blob(sha256));
      return call.context.openFile(path, 'r');
    },
    pendingIntent: (v) => minted.get(v) as PendingIntent,
  });
}

/** Whose Activities the consumer started through a PendingIntent, in order. */
function launchesOf(world: World): LaunchedApp[] {
  return world.trace
    .ofKind('activity.start')
    .filter((e) => e.data.from === CONSUMER && e.data.via === 'pendingIntent')
    .map((e) => (e.data.to === HELPER_PACKAGE ? 'other' : 'provider'));
}

function methodsOf(calls: readonly { method: string }[]): string[] {
  return [...new Set(calls.map((c) => c.method))];
}

function read(extras: Bundle | null): Actual {
  return fromBundle(extras, { providerPackage: PROVIDER });
}
