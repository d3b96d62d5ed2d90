/**
 * Rendering a result for one response (spec §4.2, §4.5). A value whose inline `data` fits
 * max_inline_result_bytes goes inline (4.2-02); a larger one, with large_results negotiated, goes
 * to a fresh file behind a read-only ParcelFileDescriptor with its media type, size and lowercase
 * SHA-256 (4.5-02 … 4.5-04) — one file per response (4.5-10), the provider's own fd closed once the
 * reply has been sent; without large_results it is RESULT_TOO_LARGE (4.5-11), which says whether an
 * effect was committed (NOTES 12a). The inline size is the UTF-8 length of `data` (NOTES 12c).
 */

import type { JsonValue } from '../../base/json.ts';
import { type ExecutionResult, fitsInlineData, sha256Hex, valueJsonOf } from '../../protocol/index.ts';
import type { AppContext } from '../../sim/app/context.ts';
import type { ParcelFileDescriptor } from '../../sim/fd/fd.ts';
import type { Runtime } from './execute/types.ts';
import { WireFailure } from './responses.ts';
import type { Session } from './sessions.ts';

export interface RenderedResult {
  readonly data: ExecutionResult;
  readonly fd: ParcelFileDescriptor | null;
  /** `JSON.stringify(data)` when rendering produced it anyway (an inline value it had to measure). */
  readonly dataJson: string | null;
}

export function renderResult(
  rt: Runtime,
  session: Session,
  value: JsonValue,
  committed: boolean,
): RenderedResult {
  const { context, gates } = rt;
  const inlineLimit = session.limits.maxInlineResultBytes;
  const data: ExecutionResult = { kind: 'inline', value };
  if (!gates.on('CETP-4.5-01')) return { data, fd: null, dataJson: null };
  // One serialisation serves the size check, the inline `data` string and, for a large value, the
  // file's bytes. It is the whole `data` string at once — one flat string, instead of the value's
  // JSON wrapped into `{"kind":"inline","value":…}` (a rope that every reader of the string would
  // flatten into a copy of its own).
  const dataJson = JSON.stringify(data);
  if (fitsInlineData(dataJson, inlineLimit)) return { data, fd: null, dataJson };
  const json = valueJsonOf(dataJson);
  if (!session.capabilities.includes('large_results')) {
    throw new WireFailure('RESULT_TOO_LARGE', {
      message: 'The result is too large to return inline and large results were not negotiated.',
      details: { outcome_committed: committed, inline_limit_bytes: inlineLimit },
    });
  }
  const bytes = new TextEncoder().encode(json);
  const path = `cetp-results/${context.seededUuid()}.json`;
  context.writeFile(path, bytes);
  const fd = context.openFile(path, 'r');
  rt.parts.releaseResultFd(context, fd, path);
  return {
    data: {
      kind: 'file',
      media_type: 'application/json',
      size_bytes: bytes.length,
      sha256: sha256Hex(bytes),
    },
    fd,
    dataJson: null,
  };
}

/**
 * The reference: the reply is parcelled when call() — the app's, which may await more after the
 * SDK's — has returned; our copy stays valid until then and is closed once that reply has been sent.
 */
export function releaseResultFd(context: AppContext, fd: ParcelFileDescriptor, path: string): void {
  context.binder.afterReply(fd, () => {
    fd.close();
    context.deleteFile(path);
  });
}
