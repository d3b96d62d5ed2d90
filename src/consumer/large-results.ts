/**
 * File results (spec §4.5): `data = {kind:"file", media_type, size_bytes, sha256}` beside a
 * read-only `result_fd`. The consumer:
 *
 * - refuses an fd that is not read-only (4.5-04, verified rather than trusted);
 * - refuses a declared size above its own local read limit without reading (CETP-4.5-08);
 * - reads at most the declared size plus one byte, so a longer file (or an endless pipe) is caught
 *   without being held, and gives up on a stream that stalls;
 * - checks the bytes read against size_bytes (4.5-05) and sha256 (4.5-06), then parses the JSON and
 *   validates it against the tool's output_schema (4.5-07);
 * - never keeps or reopens a path: the fd is the result, for this one response (4.5-10).
 *
 * Closing is the caller's job and happens on every path, success or not (4.5-09): the engine closes
 * every fd of every reply once it has handled it (see `settleReply` in execution.ts).
 */
import { createHash } from 'node:crypto';
import type { JsonValue } from '../base/json.ts';
import type { FileResult } from '../protocol/index.ts';
import type { AppContext } from '../sim/app/context.ts';
import type { Bundle } from '../sim/binder/bundle.ts';
import { TIMED_OUT } from '../sim/core/scheduler.ts';
import type { ParcelFileDescriptor } from '../sim/fd/fd.ts';
import type { ConsumerTool } from './catalogue.ts';
import type { ConsumerConfig } from './options.ts';
import type { IntegrityCheck } from './outcomes.ts';
import { runWithTimeout } from './transport.ts';

export type FileRead =
  | { readonly ok: true; readonly value: JsonValue }
  | { readonly ok: false; readonly check: IntegrityCheck };

/** An absolute ceiling even when the local read limit is ablated, so a run cannot read forever. */
const HARD_CEILING_BYTES = 256 * 1_048_576;

export async function readFileResult(
  context: AppContext,
  bundle: Bundle,
  descriptor: FileResult,
  tool: ConsumerTool,
  config: ConsumerConfig,
): Promise<FileRead> {
  const { gates, limits } = config;
  const fd =
    bundle.typeOf('result_fd') === 'ParcelFileDescriptor'
      ? bundle.getParcelFileDescriptor('result_fd')
      : null;
  if (fd === null) return { ok: false, check: 'missing_fd' };
  // 4.5-04 is the provider's duty; a writable fd is a sign of a result that is not what it claims.
  if (fd.isClosed || fd.mode !== 'r')
    return { ok: false, check: fd.isClosed ? 'read_error' : 'fd_not_read_only' };
  if (descriptor.media_type.split(';')[0]?.trim().toLowerCase() !== 'application/json') {
    return { ok: false, check: 'media_type' };
  }
  const localLimit = gates.on('CETP-4.5-08') ? limits.maxFileResultBytes : HARD_CEILING_BYTES;
  if (descriptor.size_bytes > localLimit) return { ok: false, check: 'over_local_limit' };
  // Read one byte past the declared size to notice a longer file; never past the local limit.
  const readLimit = gates.on('CETP-4.5-05') ? descriptor.size_bytes : localLimit;
  const read = await readBounded(context, fd, readLimit, descriptor.size_bytes, config);
  if (read === null) return { ok: false, check: 'read_error' };
  if (gates.on('CETP-4.5-05') && (read.overLimit || read.size !== descriptor.size_bytes)) {
    return { ok: false, check: 'size' };
  }
  if (read.overLimit) return { ok: false, check: 'over_local_limit' };
  if (gates.on('CETP-4.5-06') && !config.parts.digestMatches(read.sha256, descriptor.sha256)) {
    return { ok: false, check: 'sha256' };
  }
  if (read.text === null) return { ok: false, check: 'encoding' };
  let value: JsonValue;
  try {
    value = JSON.parse(read.text) as JsonValue;
  } catch {
    return { ok: false, check: 'encoding' };
  }
  if (gates.on('CETP-4.5-07', 'CETP-7.3-02') && tool.validateOutput(value).length > 0) {
    return { ok: false, check: 'output_schema' };
  }
  return { ok: true, value };
}

/**
 * What was read of a file result: its first `limit` bytes' length, SHA-256 and UTF-8 text (null if
 * they are not UTF-8), and whether there was more.
 */
interface StreamedRead {
  readonly size: number;
  readonly overLimit: boolean;
  readonly sha256: string;
  readonly text: string | null;
}

/** Chunks read through the fd, as ParcelFileDescriptor.readUpTo reads them (same reads, same trace). */
const CHUNK_BYTES = 64 * 1024;

/**
 * Reads up to `limit` bytes (+1 to detect more), hashing each chunk as it arrives and copying it
 * into one buffer of the expected size (grown by doubling only if the file is longer than
 * expected); the chunks are garbage at once, the buffer is dropped once decoded. So a 16 MiB result
 * is held as bytes + text, then text + value, never as chunks + bytes + text (measured with
 * bench/boundary/memory-child.ts; decoding chunk by chunk into string pieces measured worse: the
 * pieces and the joined text are both on the JS heap at once). The same reads as
 * `fd.readUpTo(limit)`; only the first `limit` bytes count.
 */
async function readStreamed(
  fd: ParcelFileDescriptor,
  limit: number,
  expected: number,
): Promise<StreamedRead> {
  const hash = createHash('sha256');
  let buffer = new Uint8Array(Math.max(0, Math.min(limit, expected)));
  let total = 0;
  let size = 0;
  for (;;) {
    const chunk = await fd.read(Math.min(CHUNK_BYTES, limit + 1 - total));
    if (chunk.length === 0) break;
    total += chunk.length;
    const counted = total > limit ? chunk.subarray(0, chunk.length - (total - limit)) : chunk;
    if (size + counted.length > buffer.length) {
      const grown = new Uint8Array(Math.min(limit, Math.max(size + counted.length, buffer.length * 2)));
      grown.set(buffer.subarray(0, size));
      buffer = grown;
    }
    buffer.set(counted, size);
    size += counted.length;
    hash.update(counted);
    if (total > limit) break;
  }
  let text: string | null;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(buffer.subarray(0, size));
  } catch {
    text = null;
  }
  return { size, overLimit: total > limit, sha256: hash.digest('hex'), text };
}

/** Reads up to `limit` bytes (+1 to detect more) with a stall timeout; null on any read error. */
async function readBounded(
  context: AppContext,
  fd: ParcelFileDescriptor,
  limit: number,
  expected: number,
  config: ConsumerConfig,
): Promise<StreamedRead | null> {
  const body = async () => {
    try {
      const result = await readStreamed(fd, limit, expected);
      fd.checkError(); // reliable pipes: a writer that died or closed with an error
      return result;
    } catch {
      return null;
    }
  };
  const timeoutMs = config.callTimeoutMs;
  if (timeoutMs === null) return body();
  const result = await runWithTimeout(context, 'cetp-read-result', timeoutMs, body, () => {});
  if (result === TIMED_OUT) {
    fd.close();
    return null;
  }
  return result;
}
