/**
 * LegacyClient — CETP v1, for a provider whose manifest declares v1 and not v2 (spec §8, CETP-0-02,
 * 8-07). The spec does not define v1's wire; cetp-sim assumes (interpretations.md): `list_tools`
 * answers `data = {"tools":[{name, description, input_schema}]}`, `execute_tool` takes `tool_name`
 * and `args` and answers `data` = the result JSON, errors are `status="error"`, `error_code`,
 * `error_message` — and no call carries protocol_version.
 *
 * v1 was a read-only data bridge: there are no request ids, sessions, annotations or output
 * schemas. Everything a v1 provider says is still untrusted (caps, JSON and schema checks, typed
 * wrappers). A v1 tool that the consumer's configuration knows to have side effects is hidden and
 * refused unless the local approval allows the call (8-12). This client is never used for a
 * provider that declares v2 (8-03, 8-08, 8-09).
 */

import type { JsonObject, JsonValue } from '../base/json.ts';
import { isKnownErrorCode, isToolName, utf8Length } from '../protocol/index.ts';
import type { AppContext } from '../sim/app/context.ts';
import { Bundle } from '../sim/binder/bundle.ts';
import { recordAudit } from './audit.ts';
import { compileToolSchema } from './catalogue.ts';
import { askLocalApproval } from './confirmation.ts';
import type { DiscoveredProvider } from './discovery.ts';
import type { ConsumerConfig } from './options.ts';
import { failure, type OutcomeSource, success, type ToolOutcome } from './outcomes.ts';
import { providerMessage } from './replies.ts';
import { decideTransportRetry } from './retry.ts';
import { type CallOutcome, closeFds, ProviderChannel } from './transport.ts';
import { type UntrustedText, untrustedText, untrustedValue } from './untrusted.ts';

export interface LegacyTool {
  readonly providerId: string;
  readonly name: string;
  readonly description: UntrustedText;
  readonly inputSchema: JsonObject;
  readonly validateInput: (value: unknown) => readonly { path?: string; code: string }[];
  /** Known (by local configuration) to have side effects (8-12). */
  readonly sideEffects: boolean;
}

export type LegacyState =
  | { readonly kind: 'idle' }
  | { readonly kind: 'ready'; readonly tools: ReadonlyMap<string, LegacyTool> }
  | { readonly kind: 'unavailable'; readonly reason: string }
  | { readonly kind: 'disabled'; readonly reason: string };

export class LegacyClient {
  readonly channel: ProviderChannel;
  private stateValue: LegacyState = { kind: 'idle' };

  constructor(
    readonly context: AppContext,
    readonly provider: DiscoveredProvider,
    readonly config: ConsumerConfig,
  ) {
    this.channel = new ProviderChannel(context, provider.authority, config);
  }

  /** A v1 provider has no provider_id: it is known by its package name. */
  get providerId(): string {
    return this.provider.packageName;
  }

  get state(): LegacyState {
    return this.stateValue;
  }

  /** Tools offered to the agent: side-effecting ones only when a local approval exists (8-12). */
  tools(): LegacyTool[] {
    if (this.stateValue.kind !== 'ready') return [];
    const hide = this.config.localApproval === 'none' && this.config.gates.on('CETP-8-12');
    return [...this.stateValue.tools.values()].filter((t) => !(hide && t.sideEffects));
  }

  async connect(): Promise<boolean> {
    if (this.stateValue.kind === 'ready') return true;
    if (this.stateValue.kind === 'disabled') return false;
    recordAudit(this.context, {
      event: 'provider.v1',
      package: this.provider.packageName,
      authority: this.provider.authority,
    });
    const outcome = await this.callWithRetries('list_tools', new Bundle(), null);
    if (outcome.kind !== 'reply') return this.fail(true, `transport_${outcome.kind}`);
    const bundle = outcome.bundle;
    closeFds(bundle);
    const data = this.successData(bundle);
    if (data === undefined) return this.fail(false, 'invalid_v1_list');
    const raw = (data as { tools?: unknown } | null)?.tools;
    if (!Array.isArray(raw)) return this.fail(false, 'invalid_v1_list');
    const tools = new Map<string, LegacyTool>();
    for (const t of raw.slice(0, this.config.limits.maxTools)) {
      const tool = this.readTool(t);
      if (tool && !tools.has(tool.name)) tools.set(tool.name, tool);
    }
    this.stateValue = { kind: 'ready', tools };
    return true;
  }

  async execute(toolName: string, args: string, executionId: string): Promise<ToolOutcome> {
    const source: OutcomeSource = {
      providerId: this.providerId,
      tool: toolName,
      executionId,
      requestId: null,
    };
    if (!(await this.connect())) {
      return failure(source, {
        kind: 'provider_unavailable',
        temporary: this.stateValue.kind !== 'disabled',
      });
    }
    const tool = this.tools().find((t) => t.name === toolName);
    if (!tool) return failure(source, { kind: 'tool_not_found' });
    let value: unknown;
    try {
      value = JSON.parse(args);
    } catch {
      return failure(source, { kind: 'invalid_args', issues: ['args_not_json'] });
    }
    const issues = tool.validateInput(value);
    if (issues.length > 0)
      return failure(source, { kind: 'invalid_args', issues: issues.map((i) => i.code) });
    if (tool.sideEffects && this.config.gates.on('CETP-8-12')) {
      const ok = await askLocalApproval(this.context, this.config, {
        providerId: this.providerId,
        providerLabel: this.providerId,
        tool: tool.name,
        title: tool.name,
        effect: 'update',
        risk: 'high',
        destructive: false,
      });
      if (!ok || this.config.localApproval === 'none') return failure(source, { kind: 'declined_locally' });
    }
    recordAudit(this.context, {
      event: 'execution.start',
      execution_id: executionId,
      provider_id: this.providerId,
      tool: toolName,
      request_id: null,
      effect: 'read',
      version: 1,
    });
    const extras = new Bundle();
    extras.putString('tool_name', toolName);
    extras.putString('args', args);
    const outcome = await this.callWithRetries('execute_tool', extras, executionId);
    const result = this.readResult(source, outcome);
    if (outcome.kind === 'reply') closeFds(outcome.bundle);
    recordAudit(this.context, {
      event: 'execution.end',
      execution_id: executionId,
      request_id: null,
      outcome: result.kind,
      error_code: result.kind === 'rejected' ? result.code : null,
    });
    return result;
  }

  private readResult(source: OutcomeSource, outcome: CallOutcome): ToolOutcome {
    if (outcome.kind !== 'reply') return failure(source, { kind: 'provider_unavailable', temporary: true });
    const bundle = outcome.bundle;
    if (bundle.getString('status') === 'error') {
      const code = bundle.getString('error_code') ?? '';
      const message = providerMessage(bundle.getString('error_message'), this.config);
      return failure(source, {
        kind: 'rejected',
        code: isKnownErrorCode(code) ? code : 'UNRECOGNIZED',
        providerMessage: message.text === '' ? null : message,
      });
    }
    const data = this.successData(bundle);
    if (data === undefined)
      return failure(source, { kind: 'invalid_response', issues: ['invalid_v1_result'] });
    return success(source, untrustedValue(this.providerId, source.tool, 'inline', data));
  }

  /** The parsed `data` of a v1 success, within the consumer's caps; undefined otherwise. */
  private successData(bundle: Bundle): JsonValue | undefined {
    if (bundle.getString('status') !== 'success' || bundle.typeOf('data') !== 'String') return undefined;
    const raw = bundle.getString('data') ?? '';
    if (this.config.gates.on('CETP-7.3-01') && utf8Length(raw) > this.config.limits.maxInlineResultBytes)
      return undefined;
    try {
      return JSON.parse(raw) as JsonValue;
    } catch {
      return undefined;
    }
  }

  private readTool(raw: unknown): LegacyTool | null {
    if (typeof raw !== 'object' || raw === null) return null;
    const t = raw as { name?: unknown; description?: unknown; input_schema?: unknown };
    if (typeof t.name !== 'string' || !isToolName(t.name)) return null;
    const schema = t.input_schema ?? { type: 'object' };
    const compiled = compileToolSchema(schema, 'input', this.config);
    if (!compiled.ok || typeof schema !== 'object') return null;
    return {
      providerId: this.providerId,
      name: t.name,
      description: untrustedText(
        t.description,
        this.config.limits.maxDescriptionChars,
        this.config.gates.on('CETP-7.3-01'),
      ),
      inputSchema: schema as JsonObject,
      validateInput: compiled.value,
      sideEffects: this.config.v1SideEffectTools.includes(`${this.provider.packageName}/${t.name}`),
    };
  }

  /** v1 calls are reads: a transport failure is retried, bounded. */
  private async callWithRetries(
    method: string,
    extras: Bundle,
    executionId: string | null,
  ): Promise<CallOutcome> {
    for (let retries = 0; ; retries++) {
      if (executionId !== null) {
        recordAudit(this.context, {
          event: 'execution.attempt',
          execution_id: executionId,
          request_id: null,
          method,
          attempt: retries + 1,
          reason: retries === 0 ? 'first' : 'retry',
        });
      }
      const outcome = await this.channel.call(method, extras);
      if (outcome.kind === 'reply' || outcome.kind === 'refused') return outcome;
      const d = decideTransportRetry(retries, this.config);
      if (!d.retry) return outcome;
      await this.context.sleep(d.delayMs);
    }
  }

  private fail(temporary: boolean, reason: string): boolean {
    this.stateValue = temporary ? { kind: 'unavailable', reason } : { kind: 'disabled', reason };
    recordAudit(this.context, {
      event: 'provider.disabled',
      package: this.provider.packageName,
      provider_id: null,
      reason,
      temporary,
    });
    return false;
  }
}
