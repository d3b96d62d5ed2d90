/**
 * File results (spec §4.5): `data = {kind:"file", media_type, size_bytes, sha256}` beside a
 * `result_fd`. Verified, never trusted:
 *
 * - the fd must be read-only (4.5-04) and the media type JSON;
 * - a declared size over our local read limit is refused unread, and we read at most the declared
 *   size plus one byte, under a stall timeout (4.5-08) — an endless pipe cannot hold us;
 * - the bytes read must have exactly the declared size (4.5-05) and lowercase SHA-256 (4.5-06),
 *   then parse as JSON that fits the tool's output_schema (4.5-07);
 * - the fd is the result for this one response; no path is kept (4.5-10). Closing it is the
 *   caller's job, on every path (4.5-09).
 */
import type { AppContext, Bundle, JsonValue } from '../../../index.ts';
import type { Tool } from './catalogue.ts';
import type { Conduct } from './conduct.ts';

export const FILE_LIMIT_BYTES = 16 * 1_048_576;
const READ_TIMEOUT_MS = 30_000;

export type FileRead =
  | { readonly ok: true; readonly value: JsonValue }
  | { readonly ok: false; readonly why: string };

export async function readFileResult(
  context: AppContext,
  bundle: Bundle,
  declared: { media_type: string; size_bytes: number; sha256: string },
  tool: Tool,
  conduct: Conduct,
): Promise<FileRead> {
  const fd =
    bundle.typeOf('result_fd') === 'ParcelFileDescriptor'
      ? bundle.getParcelFileDescriptor('result_fd')
      : null;
  if (fd === null || fd.isClosed) return { ok: false, why: 'missing_fd' };
  if (fd.mode !== 'r') return { ok: false, why: 'fd_not_read_only' };
  if (declared.media_type.split(';')[0]?.trim().toLowerCase() !== 'application/json')
    return { ok: false, why: 'media_type' };
  if (declared.size_bytes > FILE_LIMIT_BYTES) return { ok: false, why: 'over_local_limit' };
  const limit = declared.size_bytes + 1;
  const waiter = context.waiter<Uint8Array | null>('zoo agent read result');
  context.spawn(
    'zoo-agent-read-result',
    async () => {
      try {
        const chunks: Uint8Array[] = [];
        let total = 0;
        for (;;) {
          const chunk = await fd.read(Math.min(65_536, limit - total));
          if (chunk.length === 0) break;
          chunks.push(chunk);
          total += chunk.length;
          if (total >= limit) break;
        }
        fd.checkError(); // a reliable pipe whose writer died
        const bytes = new Uint8Array(total);
        let at = 0;
        for (const c of chunks) {
          bytes.set(c, at);
          at += c.length;
        }
        waiter.wake(bytes);
      } catch {
        waiter.wake(null);
      }
    },
    { daemon: true },
  );
  const bytes = await context.waitFor(waiter, READ_TIMEOUT_MS);
  if (!(bytes instanceof Uint8Array)) return { ok: false, why: 'read_error' };
  if (bytes.length !== declared.size_bytes) return { ok: false, why: 'size' };
  if (!conduct.digestMatches(bytes, declared.sha256)) return { ok: false, why: 'sha256' };
  let value: JsonValue;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)) as JsonValue;
  } catch {
    return { ok: false, why: 'encoding' };
  }
  if (tool.validateOutput(value).length > 0) return { ok: false, why: 'output_schema' };
  return { ok: true, value };
}
