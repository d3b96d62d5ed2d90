/**
 * The oracle over what a file result really contains (§4.5): for every successful reply of a
 * provider under test that declares `{kind:"file", size_bytes, sha256}` and hands over a
 * `result_fd`, the bytes behind that descriptor — as the world knows them, never as the provider or
 * the consumer says — have exactly the declared size and (lowercase) SHA-256, and the descriptor is
 * read-only.
 *
 * Where the bytes come from (src/sim/ground-truth.ts, src/sim/fd/fd.ts; reading them adds no trace
 * event): a pipe's content is every byte written into it (`fileResults`), judged once every writer
 * has closed (a writer still open — EOF never came — leaves the content unfinished: not judged); a
 * file's content is the file the descriptor was opened on, judged only when nothing could have
 * changed it after the reply (no write through any descriptor to that path, no torn write of it at
 * a power loss). Replies whose bytes cannot be known are counted as not judged (`fileResultsJudged`).
 */
import { sha256Hex } from '../../protocol/digest.ts';
import type { FileResultRecord } from '../../sim/ground-truth.ts';
import type { Checker } from '../checker.ts';
import { consistency, judgeEach, source } from '../checker-kit.ts';
import { type BundleReplyView, type CallView, memoOn, type Observation } from '../observation.ts';

/** One file result on the wire: the call, the reply that carried it, and what it declared. */
interface FileResultView {
  readonly call: CallView;
  readonly declaredSize: unknown;
  readonly declaredSha256: unknown;
  /** The descriptor's mode ('r', 'w', 'rw'), null when the reply carried no descriptor. */
  readonly mode: string | null;
  /** The bytes behind it as the world knows them, or null (not known: not judged). */
  readonly bytes: Uint8Array | null;
}

function isFileData(data: unknown): data is { kind: 'file'; size_bytes?: unknown; sha256?: unknown } {
  return typeof data === 'object' && data !== null && (data as { kind?: unknown }).kind === 'file';
}

/** Paths written through a descriptor or torn at a power loss: their content is not the reply's. */
export function alteredPaths(obs: Observation): Set<string> {
  const out = new Set<string>();
  for (const r of obs.record.truth.fileResults) if (r.target.startsWith('file:')) out.add(r.target);
  for (const e of obs.events) if (e.kind === 'fs.torn') out.add(`file:${String(e.data.path)}`);
  return out;
}

export function bytesBehind(
  reply: BundleReplyView,
  byTarget: ReadonlyMap<string, FileResultRecord>,
  altered: ReadonlySet<string>,
): { mode: string | null; bytes: Uint8Array | null } {
  const entry = reply.bundle.getEntry('result_fd');
  const pfd = entry?.type === 'ParcelFileDescriptor' ? entry.value : null;
  if (!pfd) return { mode: null, bytes: null };
  const d = pfd.description;
  if (d.target.kind === 'pipe') {
    const written = byTarget.get(`pipe#${d.target.pipe.id}:write`);
    if (d.target.pipe.writers > 0) return { mode: d.mode, bytes: null };
    return { mode: d.mode, bytes: written?.bytes ?? new Uint8Array(0) };
  }
  return { mode: d.mode, bytes: altered.has(d.label) ? null : d.target.file.bytes };
}

/** Every successful file result a provider under test put on the wire (delivered or lost). */
/** The world's file results by target path (the last one recorded for a path wins). */
export function fileResultsByTarget(obs: Observation): ReadonlyMap<string, FileResultRecord> {
  return memoOn(obs, FILE_RESULTS_BY_TARGET, () => {
    const byTarget = new Map<string, FileResultRecord>();
    for (const r of obs.record.truth.fileResults) byTarget.set(r.target, r);
    return byTarget;
  });
}
const FILE_RESULTS_BY_TARGET: unique symbol = Symbol('cetp.check.fileResultsByTarget');

function fileResults(obs: Observation, providers: readonly string[]): FileResultView[] {
  const byTarget = fileResultsByTarget(obs);
  const altered = alteredPaths(obs);
  const out: FileResultView[] = [];
  for (const call of obs.calls) {
    if (!providers.includes(call.provider)) continue;
    for (const reply of [call.reply, call.lostAnswer]) {
      if (reply?.kind !== 'bundle' || reply.status !== 'success' || !isFileData(reply.data)) continue;
      out.push({
        call,
        declaredSize: reply.data.size_bytes,
        declaredSha256: reply.data.sha256,
        ...bytesBehind(reply, byTarget, altered),
      });
    }
  }
  return out;
}

/** How many file results of providers under test were judged for their bytes, and how many could not be. */
export function fileResultsJudged(
  obs: Observation,
  providers: readonly string[],
): { judged: number; notJudged: number } {
  const all = fileResults(obs, providers);
  const judged = all.filter((r) => r.bytes !== null).length;
  return { judged, notJudged: all.length - judged };
}

/** The file results of providers under test, each shown by the call that carried it. */
const FILE_RESULTS = source(
  (obs, ctx) => fileResults(obs, ctx.providersUnderTest),
  (r) => ({ calls: [r.call.id] }),
);

export const fileResultMatches = judgeEach(FILE_RESULTS, {
  id: 'file-result-matches',
  ruleIds: ['CETP-4.5-02', 'CETP-4.5-03', 'CETP-4.5-04'],
  description:
    'Every successful file result carries a read-only result_fd whose bytes, as the world recorded them, have exactly the declared size_bytes and lowercase SHA-256.',
  fields: [
    consistency(
      'the bytes behind the descriptor as the world recorded them (size, digest, read-only)',
      'res:fileResult:result_fd',
      'json:execution_result/size_bytes',
      'json:execution_result/sha256',
      'json:operation_status/result/size_bytes',
      'json:operation_status/result/sha256',
    ),
  ],
  judge(r) {
    const where = `${r.call.method} ${r.call.toolName ?? ''} ${r.call.caller} → ${r.call.provider}`;
    if (r.mode === null) return `${where}: a file result without a result_fd descriptor`;
    const found: string[] = [];
    if (r.mode !== 'r') found.push(`${where}: result_fd is not read-only (mode ${r.mode})`);
    if (r.bytes === null) return found;
    if (r.declaredSize !== r.bytes.length)
      found.push(
        `${where}: size_bytes ${JSON.stringify(r.declaredSize)} but the descriptor holds ${r.bytes.length} bytes`,
      );
    const digest = sha256Hex(r.bytes);
    if (r.declaredSha256 !== digest)
      found.push(
        `${where}: sha256 ${JSON.stringify(r.declaredSha256)} but the descriptor's bytes hash to ${digest}`,
      );
    return found;
  },
});

export const FILE_CHECKERS: readonly Checker[] = [fileResultMatches];
