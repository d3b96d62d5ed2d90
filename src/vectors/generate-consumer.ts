/**
 * Filling consumer vectors: the reference consumer performs each source's task against the
 * scripted provider; the requests it sends (of the methods the source records) are generalised —
 * the request_id it chose is captured on first use and compared afterwards — and the outcome it
 * hands its agent is recorded, as are the screens it opened through a PendingIntent. A file result
 * in a scripted reply is given as text in the source and becomes a blob of the corpus
 * (blobs/<sha256>), referred to by SHA-256 and size.
 */
import { REFERENCE } from '../fuzz/scenario/model.ts';
import { sha256Hex } from '../protocol/digest.ts';
import { type ConsumerJudge, consumerVectorJudge, runConsumerVector } from './consumer-engine.ts';
import type { ConsumerVector, LaunchedApp, ScriptedReply } from './consumer-format.ts';
import type { Expect, ReplyValue } from './format.ts';
import { generalise } from './generalise.ts';
import { isMatcher, match, matchJsonValue } from './matchers.ts';

/** A source: the vector without `requests`, `launches` and `outcome`, which the reference fills. */
export interface ConsumerSource
  extends Omit<ConsumerVector, 'requests' | 'launches' | 'outcome' | 'replies'> {
  readonly replies: readonly {
    readonly method: string;
    readonly n: number;
    readonly reply: Readonly<Record<string, ReplyValue | { readonly type: 'fd'; readonly text: string }>>;
  }[];
  /** The methods whose requests the vector states. */
  readonly record: readonly string[];
  /** What the reference consumer's outcome must be (checked, then recorded literally). */
  readonly check_outcome: Readonly<Record<string, unknown>>;
  /** Whose screens the reference consumer must have opened (checked when given). */
  readonly check_launches?: readonly LaunchedApp[];
}

/** Blobs by SHA-256. */
export type Blobs = Map<string, Uint8Array>;

function withBlobs(source: ConsumerSource, blobs: Blobs): ScriptedReply[] {
  return source.replies.map((r) => ({
    ...r,
    reply: Object.fromEntries(
      Object.entries(r.reply).map(([k, v]) => {
        if (v.type !== 'fd' || !('text' in v)) return [k, v as ReplyValue];
        const bytes = new TextEncoder().encode(v.text);
        const sha256 = sha256Hex(bytes);
        blobs.set(sha256, bytes);
        return [k, { type: 'fd', sha256, size: bytes.length } satisfies ReplyValue];
      }),
    ),
  }));
}

function recordingJudge(
  source: ConsumerSource,
  requests: Record<string, Expect[]>,
  seen: { launches: readonly LaunchedApp[]; outcome: unknown },
): ConsumerJudge {
  return {
    requests: (method, actuals, vars) => {
      // One at a time, binding each capture, so a later request refers to an earlier one's id. A
      // resume_token comes from a scripted reply: the consumer must send exactly that text back.
      const recorded = actuals.map((a) => {
        const e = generalise(a, vars, ['request_id'], ['resume_token']);
        match(e, a, vars);
        return e;
      });
      requests[method] = recorded;
      return recorded;
    },
    launches: (actual) => {
      const want = source.check_launches;
      if (want && want.join() !== actual.join())
        throw new Error(
          `${source.id}: the reference consumer opened [${actual.join(', ')}], the source says [${want.join(', ')}]`,
        );
      seen.launches = actual;
      return actual;
    },
    outcome: (actual) => {
      for (const [key, want] of Object.entries(source.check_outcome)) {
        const got = (actual as Record<string, unknown>)[key];
        const mismatches =
          isMatcher(want) || typeof want !== 'object' ? matchJsonValue(want, got, new Map(), key) : [];
        if (mismatches.length > 0)
          throw new Error(
            `${source.id}: the reference consumer's outcome contradicts the source: ${key} ${mismatches[0]?.message}`,
          );
      }
      seen.outcome = actual;
      return actual;
    },
  };
}

/** Fills one consumer source and proves the filled vector passes on the reference consumer. */
export async function fillConsumerVector(source: ConsumerSource, blobs: Blobs): Promise<ConsumerVector> {
  const { record, check_outcome: _check, check_launches: _launches, replies: _replies, ...meta } = source;
  const replies = withBlobs(source, blobs);
  const requests: Record<string, Expect[]> = Object.fromEntries(record.map((m) => [m, []]));
  const seen = { launches: [] as readonly LaunchedApp[], outcome: null as unknown };
  const blob = (sha: string) => blobs.get(sha) ?? new Uint8Array();
  const draft: ConsumerVector = { ...meta, replies, requests, launches: [], outcome: null };
  const run = await runConsumerVector(draft, {
    variant: REFERENCE,
    judge: recordingJudge(source, requests, seen),
    blob,
  });
  if (run.failures.length > 0) throw new Error(`${source.id}: ${run.failures[0]?.message}`);
  const vector: ConsumerVector = {
    ...meta,
    replies,
    requests,
    launches: seen.launches,
    outcome: seen.outcome,
  };
  const replayed = await runConsumerVector(vector, {
    variant: REFERENCE,
    judge: consumerVectorJudge(vector),
    blob,
  });
  if (replayed.failures.length > 0)
    throw new Error(
      `${source.id}: the filled vector fails on the reference consumer: ${replayed.failures[0]?.path} ${replayed.failures[0]?.message}`,
    );
  return vector;
}
