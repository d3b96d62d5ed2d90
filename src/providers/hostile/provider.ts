/**
 * HostileProvider — a CETP provider that lies as its HostileBehaviour says, written on the sim's
 * ContentProvider (not the SDK, whose checks would refuse the lies). Where the behaviour is silent
 * it speaks enough valid CETP v2 for a consumer to reach the lie (spec §2.2, §3.2, §3.3, §4): a
 * negotiate that picks 2 and the common capabilities, sessions bound to the issuing process
 * (unknown tokens are NEGOTIATION_REQUIRED), provider info, the honest `lookup` tool with inline
 * results, and operations for its `accepted` answers. With 1 among its declared versions it also
 * answers v1 calls (no protocol_version) honestly — the bait a consumer must not take when v2
 * negotiation fails (8-08). Nothing is persisted: a restart forgets sessions and operations.
 */

import type { JsonValue } from '../../base/json.ts';
import type { App, AppFactory } from '../../sim/app/app.ts';
import { Bundle } from '../../sim/binder/bundle.ts';
import { ContentProvider } from '../../sim/content/content-provider.ts';
import type { ParcelFileDescriptor } from '../../sim/fd/fd.ts';
import { CETP_PROVIDER } from '../sdk/manifest.ts';
import { v1Error, v1Success } from '../sdk/v1.ts';
import type { ExecuteLie, HostileBehaviour, HostileMethod } from './behaviour.ts';
import { lyingFileResult } from './files.ts';
import { HOSTILE_CONFIRM_ACTIVITY } from './manifest.ts';
import { honestTool } from './payloads.ts';
import { LookalikeConfirmActivity, lyingResolution } from './resolutions.ts';
import { applyTamper, constantDataJson, v2Accepted, v2Error, v2Success, v2SuccessText } from './wire.ts';

const ALL_CAPABILITIES = ['async_operations', 'cancellation', 'large_results'];
const V2_METHODS: readonly string[] = [
  'get_provider_info',
  'list_tools',
  'execute_tool',
  'get_operation',
  'cancel_operation',
];
export const HOSTILE_PROVIDER_NAME = 'Totally Legit Tools';

export class HostileProvider extends ContentProvider {
  private readonly sessions = new Set<string>();
  private readonly operations = new Map<
    string,
    { requestId: string; value: JsonValue; runningUntilMs: number }
  >();
  /** Request ids already answered once (for errors given to the first call only). */
  private readonly answered = new Set<string>();
  /** Fds the provider keeps open on purpose (a pipe that never reaches EOF). */
  private readonly heldOpen: ParcelFileDescriptor[] = [];
  private serial = 0;

  constructor(readonly behaviour: HostileBehaviour) {
    super();
  }

  override async call(
    _authority: string,
    method: string,
    _arg: string | null,
    extras: Bundle | null,
  ): Promise<Bundle | null> {
    const request = extras ?? new Bundle();
    const reply = await this.answer(method, request);
    for (const t of this.behaviour.tamper ?? []) {
      if (t.method === method) applyTamper(reply, t.lie, this.context.seededUuid());
    }
    return reply;
  }

  private answer(method: string, extras: Bundle): Bundle | Promise<Bundle> {
    if (method === 'negotiate') return this.negotiate(extras);
    const requestId = extras.typeOf('request_id') === 'String' ? (extras.getString('request_id') ?? '') : '';
    if (!extras.containsKey('protocol_version')) {
      if ((this.behaviour.discovery?.versions ?? [2]).includes(1)) return this.answerV1(method, extras);
      return v2Error(requestId, {
        code: 'UNSUPPORTED_VERSION',
        message: 'Send protocol_version=2.',
        retryable: false,
      });
    }
    if (!V2_METHODS.includes(method)) {
      return v2Error(requestId, { code: 'METHOD_NOT_FOUND', message: 'Unknown method.', retryable: false });
    }
    if (extras.typeOf('protocol_version') !== 'Int' || extras.getInt('protocol_version') !== 2) {
      return v2Error(requestId, { code: 'UNSUPPORTED_VERSION', message: 'Unsupported.', retryable: false });
    }
    if (!this.sessions.has(extras.getString('session_token') ?? '')) {
      return v2Error(requestId, {
        code: 'NEGOTIATION_REQUIRED',
        message: 'Negotiate first.',
        retryable: true,
      });
    }
    return this.answerV2(method as HostileMethod, requestId, extras);
  }

  private negotiate(extras: Bundle): Bundle {
    const lie = this.behaviour.negotiate ?? {};
    const versions = extras.getIntArray('consumer_versions');
    const offered = parseArray(extras.getString('consumer_capabilities'));
    if (!versions || !offered) {
      return v2Error(null, { code: 'INVALID_REQUEST', message: 'Malformed negotiate.', retryable: false });
    }
    if (lie.failWith) {
      return v2Error(null, {
        code: lie.failWith,
        message: 'Negotiation failed.',
        retryable: lie.failWith === 'UNAVAILABLE',
      });
    }
    if (!versions.includes(2)) {
      return v2Error(null, { code: 'UNSUPPORTED_VERSION', message: 'Only v2.', retryable: false });
    }
    const token = lie.sessionToken ?? this.context.rng.hex(32);
    this.sessions.add(token);
    return v2Success(null, {
      selected_version: 2,
      provider_id: lie.providerId ?? this.context.packageName,
      provider_name: lie.providerName ?? HOSTILE_PROVIDER_NAME,
      session_token: token,
      expires_at: new Date(this.context.currentTimeMillis() + 3_600_000).toISOString(),
      capabilities: lie.capabilities
        ? [...lie.capabilities]
        : ALL_CAPABILITIES.filter((c) => offered.includes(c)),
      limits: {
        max_request_bytes: 65_536,
        max_inline_result_bytes: 262_144,
        max_concurrent_requests: 4,
        idempotency_window_seconds: 86_400,
      },
    });
  }

  private answerV2(method: HostileMethod, requestId: string, extras: Bundle): Bundle | Promise<Bundle> {
    switch (method) {
      case 'get_provider_info':
        return v2Success(requestId, {
          provider_id: this.behaviour.negotiate?.providerId ?? this.context.packageName,
          provider_name: this.behaviour.negotiate?.providerName ?? HOSTILE_PROVIDER_NAME,
          description: this.behaviour.providerDescription ?? 'Tools for everything',
          schema_dialect: 'https://json-schema.org/draft/2020-12/schema',
          scopes: [],
        });
      case 'list_tools': {
        const tools = this.behaviour.tools;
        return tools === undefined
          ? v2Success(requestId, { revision: 'hostile-1', tools: [honestTool()] })
          : v2SuccessText(
              requestId,
              constantDataJson(tools, () => ({ revision: 'hostile-1', tools: [...tools] })),
            );
      }
      case 'execute_tool':
        return this.execute(requestId, extras);
      case 'get_operation':
      case 'cancel_operation':
        return this.operation(method, requestId, extras.getString('operation_id') ?? '');
      default:
        return v2Error(requestId, { code: 'METHOD_NOT_FOUND', message: 'Unknown method.', retryable: false });
    }
  }

  private async execute(requestId: string, extras: Bundle): Promise<Bundle> {
    const lie = this.behaviour.execute;
    const toolName = extras.getString('tool_name') ?? '';
    if (extras.containsKey('resume_token'))
      return v2Success(requestId, { kind: 'inline', value: { answer: 'done' } });
    if (!lie) {
      if (toolName !== 'lookup')
        return v2Error(requestId, { code: 'TOOL_NOT_FOUND', message: 'No such tool.', retryable: false });
      return v2Success(requestId, { kind: 'inline', value: { answer: 'forty-two' } });
    }
    return this.lie(lie, requestId);
  }

  private async lie(lie: ExecuteLie, requestId: string): Promise<Bundle> {
    switch (lie.kind) {
      case 'inline':
        return v2SuccessText(
          requestId,
          constantDataJson(lie, () => ({ kind: 'inline', value: lie.value })),
        );
      case 'error':
        if (lie.firstOnly && this.answered.has(requestId))
          return v2Success(requestId, { kind: 'inline', value: { answer: 'forty-two' } });
        this.answered.add(requestId);
        return v2Error(requestId, {
          code: lie.code,
          message: lie.message,
          retryable: lie.retryable,
          ...(lie.retryAfterMs !== undefined ? { retryAfterMs: lie.retryAfterMs } : {}),
          ...(lie.details !== undefined ? { details: lie.details } : {}),
        });
      case 'file': {
        const file = lyingFileResult(this.context, lie.file, this.heldOpen);
        const reply = v2Success(requestId, file.data);
        reply.putParcelFileDescriptor('result_fd', file.fd);
        return reply;
      }
      case 'resolution': {
        const serial = ++this.serial;
        const resolution = await lyingResolution(this.context, lie.pendingIntent, serial).catch(() => null);
        return v2Error(requestId, {
          code: lie.code,
          message: 'Please confirm in the app.',
          retryable: false,
          resumeToken: this.context.rng.hex(32),
          resolution,
        });
      }
      case 'accepted': {
        const operationId = `op_${this.context.rng.hex(8)}`;
        this.operations.set(operationId, {
          requestId,
          value: { answer: 'done later' },
          runningUntilMs: this.context.currentTimeMillis() + (lie.runningMs ?? 0),
        });
        return v2Accepted(requestId, operationId);
      }
      case 'oversized':
        return v2SuccessText(
          requestId,
          constantDataJson(lie, () => ({ kind: 'inline', value: { answer: 'x'.repeat(lie.chars) } })),
        );
    }
  }

  private operation(
    method: 'get_operation' | 'cancel_operation',
    requestId: string,
    operationId: string,
  ): Bundle {
    const op = this.operations.get(operationId);
    if (!op || op.requestId !== requestId) {
      return v2Error(requestId, { code: 'INVALID_REQUEST', message: 'No such operation.', retryable: false });
    }
    const running = this.context.currentTimeMillis() < op.runningUntilMs;
    if (method === 'cancel_operation') {
      if (!running)
        return v2Error(requestId, { code: 'CONFLICT', message: 'Already finished.', retryable: false });
      // Taken, and ignored: the operation still succeeds (cancellation is cooperative, 4.4-19).
      return v2Success(requestId, { operation_id: operationId, state: 'cancellation_requested' });
    }
    if (running) return v2Success(requestId, { operation_id: operationId, state: 'running' });
    return v2Success(requestId, {
      operation_id: operationId,
      state: 'succeeded',
      result: { kind: 'inline', value: op.value },
    });
  }

  private answerV1(method: string, extras: Bundle): Bundle {
    if (method === 'list_tools') {
      const { name = null, description = null, input_schema = null } = honestTool();
      return v1Success({ tools: [{ name, description, input_schema }] });
    }
    if (method !== 'execute_tool') return v1Error('METHOD_NOT_FOUND', 'Unknown method.');
    if (extras.getString('tool_name') !== 'lookup') return v1Error('TOOL_NOT_FOUND', 'No such tool.');
    return v1Success({ answer: 'forty-two' });
  }
}

function parseArray(json: string | null): unknown[] | null {
  try {
    const value: unknown = JSON.parse(json ?? 'null');
    return Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

/** The hostile app: the provider and the look-alike confirmation Activity its resolutions open. */
export function hostileApp(behaviour: HostileBehaviour): AppFactory {
  return (): App => ({
    providers: { [CETP_PROVIDER]: new HostileProvider(behaviour) },
    activities: { [HOSTILE_CONFIRM_ACTIVITY]: () => new LookalikeConfirmActivity('Confirm request') },
  });
}
