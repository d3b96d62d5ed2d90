/**
 * Building response Bundles (spec §4.2, §4.4, §5). Errors always carry status, error_code, a safe
 * error_message, the code's retryable value, the echoed protocol_version and request_id (5-01 …
 * 5-03); a resolution error adds the PendingIntent (4.3-02). The protocol layer refuses malformed
 * errors; if the SDK ever built one, it answers INTERNAL_ERROR instead of sending it.
 */
import {
  type ErrorCode,
  type ErrorDetails,
  makeWireError,
  type ProtocolIssue,
  type V2MethodName,
  writeAcceptedBundle,
  writeErrorBundle,
  writeSuccessBundle,
} from '../../protocol/index.ts';
import type { ResponseByMethod } from '../../protocol/response.ts';
import { Bundle } from '../../sim/binder/bundle.ts';
import type { PendingIntent } from '../../sim/ui/pending-intent.ts';

/** The envelope an answer echoes; negotiate has none to echo (NOTES 20). */
export interface Echo {
  readonly method: V2MethodName;
  readonly requestId: string | null;
}

export interface ErrorInit {
  readonly message?: string;
  readonly details?: ErrorDetails;
  readonly retryAfterMs?: number;
  /** For conditional codes (NOTES 7): does a same-id re-send have a chance? */
  readonly retryable?: boolean;
  readonly resumeToken?: string;
  readonly resolution?: PendingIntent | null;
}

/** A wire error as a value: thrown inside the pipeline, turned into a Bundle at the edge. */
export class WireFailure extends Error {
  override readonly name = 'WireFailure';
  constructor(
    readonly code: ErrorCode,
    readonly init: ErrorInit = {},
  ) {
    super(`${code}${init.message ? `: ${init.message}` : ''}`);
  }
}

export function errorBundle(echo: Echo, code: ErrorCode, init: ErrorInit = {}): Bundle {
  // Set field by field, in this order: conditional spreads would take V8's slow path (Node 20).
  const options: Parameters<typeof makeWireError>[1] = {
    protocolVersion: 2,
    requestId: echo.method === 'negotiate' ? null : echo.requestId,
  };
  if (init.message !== undefined) options.message = init.message;
  if (init.details !== undefined) options.details = init.details;
  if (init.retryAfterMs !== undefined) options.retryAfterMs = init.retryAfterMs;
  if (init.retryable !== undefined) options.conditionHint = init.retryable;
  if (init.resumeToken !== undefined) options.resumeToken = init.resumeToken;
  const error = makeWireError(code, options);
  const bundle = new Bundle();
  const issues = writeErrorBundle(bundle, error, { method: echo.method });
  if (issues.length > 0) return internalError(echo, issues);
  if (init.resolution) bundle.putPendingIntent('resolution', init.resolution);
  return bundle;
}

export function failureBundle(echo: Echo, failure: WireFailure): Bundle {
  return errorBundle(echo, failure.code, failure.init);
}

/** `dataJson`: `JSON.stringify(data)`, when the caller has it already (see writeSuccessBundle). */
export function successBundle<M extends V2MethodName>(
  echo: Echo & { method: M },
  data: ResponseByMethod[M],
  dataJson?: string,
): Bundle {
  const bundle = new Bundle();
  const requestId = echo.requestId ?? '';
  const issues = writeSuccessBundle(
    bundle,
    echo.method,
    dataJson === undefined ? { requestId, data } : { requestId, data, dataJson },
  );
  return issues.length > 0 ? internalError(echo, issues) : bundle;
}

export function acceptedBundle(requestId: string, operationId: string, pollAfterMs: number): Bundle {
  const bundle = new Bundle();
  const issues = writeAcceptedBundle(bundle, {
    requestId,
    data: { operation_id: operationId, poll_after_ms: pollAfterMs },
  });
  return issues.length > 0 ? internalError({ method: 'execute_tool', requestId }, issues) : bundle;
}

/** The SDK tried to send something malformed: say so safely, without the details (5-25). */
function internalError(echo: Echo, _issues: ProtocolIssue[]): Bundle {
  const bundle = new Bundle();
  writeErrorBundle(
    bundle,
    makeWireError('INTERNAL_ERROR', {
      protocolVersion: 2,
      requestId: echo.method === 'negotiate' ? null : echo.requestId,
      conditionHint: false,
    }),
    { method: echo.method },
  );
  return bundle;
}
