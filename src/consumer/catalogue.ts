/**
 * The consumer's view of a provider's descriptors (spec §3.1 – §3.4, §7.3): get_provider_info and
 * list_tools answers, checked as untrusted input.
 *
 * - Every tool descriptor is checked on its own (protocol/descriptor-checks): a missing required
 *   field or an unknown security enum value disables that tool, never the whole provider, and never
 *   silently defaults (CETP-3.2-11, 3.2-12); unknown fields are ignored (3.2-10). Schemas must be
 *   Draft 2020-12 with same-document `$ref`s only (3.2-06, 3.2-07, 3.2-09) and are compiled by the
 *   consumer's own compiler under its own size and depth caps (7.3-01, 7.3-02).
 * - Display text (titles, descriptions, the provider's name) is clipped UntrustedText (7.3-01).
 * - Tools are keyed by name within the provider; the bridge routes by (provider_id, tool_name)
 *   (3.1-07).
 *
 * Compiled validators are memoised in a module-level map keyed by the schema's JSON and the caps:
 * a pure cache (the same schema text always compiles to the same validator), bounded in size, so
 * it never changes behaviour — only how often Ajv runs across worlds in one test process.
 */

import { caches } from '../base/caches.ts';
import type { JsonObject } from '../base/json.ts';
import {
  checkProviderInfo,
  checkToolList,
  type ProtocolIssue,
  type ToolAnnotations,
  type ToolDescriptor,
  ToolSchemaCompiler,
  type ToolValueValidator,
  type WireResult,
  withoutDisabledRules,
} from '../protocol/index.ts';
import type { ConsumerConfig } from './options.ts';
import { type UntrustedText, untrustedText } from './untrusted.ts';

export interface ConsumerTool {
  readonly providerId: string;
  readonly name: string;
  readonly title: UntrustedText;
  readonly description: UntrustedText;
  /** Untrusted data: a checked JSON Schema the agent may use to shape arguments. */
  readonly inputSchema: JsonObject;
  readonly outputSchema: JsonObject;
  readonly scopes: readonly string[];
  readonly annotations: ToolAnnotations;
  readonly validateInput: ToolValueValidator;
  readonly validateOutput: ToolValueValidator;
}

export interface RejectedDescriptor {
  readonly name: string | null;
  /** Issue codes only (their messages may quote provider text). */
  readonly issues: readonly string[];
  readonly ruleIds: readonly string[];
}

export interface ToolCatalogue {
  readonly revision: string;
  readonly tools: ReadonlyMap<string, ConsumerTool>;
  readonly rejected: readonly RejectedDescriptor[];
}

export interface ProviderDetails {
  readonly providerId: string;
  readonly name: UntrustedText;
  readonly description: UntrustedText;
  readonly scopeNames: readonly string[];
}

const validatorMemo = caches.map<string, WireResult<ToolValueValidator>>(
  'consumer/catalogue: tool value validators by role, limits and schema',
  2_000,
);
const compilers = caches.map<string, ToolSchemaCompiler>(
  'consumer/catalogue: schema compilers by limits',
  64,
);

function compilerFor(config: ConsumerConfig): ToolSchemaCompiler {
  const key = `${config.limits.maxSchemaBytes}/${config.limits.maxSchemaDepth}`;
  let compiler = compilers.get(key);
  if (!compiler) {
    compiler = new ToolSchemaCompiler({
      maxBytes: config.limits.maxSchemaBytes,
      maxDepth: config.limits.maxSchemaDepth,
    });
    compilers.set(key, compiler);
  }
  return compiler;
}

/** Compiles (or recalls) a validator for a checked tool schema. */
export function compileToolSchema(
  schema: unknown,
  role: 'input' | 'output',
  config: ConsumerConfig,
): WireResult<ToolValueValidator> {
  const key = `${role}|${config.limits.maxSchemaBytes}|${config.limits.maxSchemaDepth}|${JSON.stringify(schema)}`;
  const known = validatorMemo.get(key);
  if (known) return known;
  const compiled = compilerFor(config).compile(schema, role);
  validatorMemo.set(key, compiled);
  return compiled;
}

/** get_provider_info data, checked (3.1-02, 3.2-01, 3.2-06, 3.2-11, 3.2-12). */
export function readProviderDetails(
  value: unknown,
  packageName: string,
  sessionProviderId: string,
  config: ConsumerConfig,
): ProviderDetails | { readonly invalid: readonly string[] } {
  const checked = checkProviderInfo(value, { packageName });
  const issues = checked.ok ? [] : withoutDisabledRules(checked.issues, new Set(config.gates.disabledRules));
  if (!checked.ok && issues.length > 0) return { invalid: issues.map((i) => i.code) };
  const info = (checked.ok ? checked.value : value) as {
    provider_id: string;
    provider_name?: unknown;
    description?: unknown;
    scopes?: { name: string }[];
  };
  if (info.provider_id !== sessionProviderId && config.gates.on('CETP-3.1-01')) {
    return { invalid: ['provider_id_changed'] };
  }
  const { limits, gates } = config;
  const enforce = gates.on('CETP-7.3-01');
  return {
    providerId: info.provider_id,
    name: untrustedText(info.provider_name, limits.maxTitleChars, enforce),
    description: untrustedText(info.description, limits.maxDescriptionChars, enforce),
    scopeNames: Array.isArray(info.scopes) ? info.scopes.map((s) => s.name) : [],
  };
}

/** list_tools data, checked tool by tool. */
export function readToolList(
  value: unknown,
  providerId: string,
  capabilities: readonly string[],
  scopeNames: readonly string[],
  config: ConsumerConfig,
): ToolCatalogue | { readonly invalid: readonly string[] } {
  const { limits, gates } = config;
  const rejected: RejectedDescriptor[] = [];
  let listed = value;
  const raw = (value as { tools?: unknown } | null)?.tools;
  if (Array.isArray(raw) && raw.length > limits.maxTools && gates.on('CETP-7.3-01')) {
    // Too many tools: keep the first maxTools (in the provider's order), reject the rest unread.
    listed = { ...(value as object), tools: raw.slice(0, limits.maxTools) };
    rejected.push({ name: null, issues: ['too_many_tools'], ruleIds: ['CETP-7.3-01'] });
  }
  const checked = checkToolList(listed, {
    negotiatedCapabilities: capabilities,
    scopeNames,
    compiler: compilerFor(config),
  });
  if (checked.revision === null || checked.issues.length > 0) {
    return { invalid: checked.issues.map((i) => i.code) };
  }
  const descriptors: ToolDescriptor[] = [...checked.accepted];
  const disabled = new Set(gates.disabledRules);
  for (const r of checked.rejected) {
    const live = withoutDisabledRules(r.issues, disabled);
    const tool = (listed as { tools: unknown[] }).tools[r.index];
    if (live.length === 0 && isToolShaped(tool)) {
      // Rule ablation: the rules that rejected this descriptor are switched off, so it is used as sent.
      descriptors.push(tool as ToolDescriptor);
      continue;
    }
    rejected.push({ name: r.name, issues: codes(r.issues), ruleIds: ruleIdsOf(r.issues) });
  }
  const tools = new Map<string, ConsumerTool>();
  const enforce = gates.on('CETP-7.3-01');
  for (const d of descriptors) {
    const input = compileToolSchema(d.input_schema, 'input', config);
    const output = compileToolSchema(d.output_schema, 'output', config);
    if (!input.ok || !output.ok) {
      const issues = [...(input.ok ? [] : input.issues), ...(output.ok ? [] : output.issues)];
      rejected.push({ name: d.name, issues: codes(issues), ruleIds: ruleIdsOf(issues) });
      continue;
    }
    tools.set(d.name, {
      providerId,
      name: d.name,
      title: untrustedText(d.title, limits.maxTitleChars, enforce),
      description: untrustedText(d.description, limits.maxDescriptionChars, enforce),
      inputSchema: d.input_schema as JsonObject,
      outputSchema: d.output_schema as JsonObject,
      scopes: [...d.scopes],
      annotations: d.annotations,
      validateInput: input.value,
      validateOutput: output.value,
    });
  }
  return { revision: checked.revision, tools, rejected };
}

function isToolShaped(tool: unknown): boolean {
  if (typeof tool !== 'object' || tool === null) return false;
  const t = tool as Record<string, unknown>;
  return (
    typeof t.name === 'string' &&
    typeof t.input_schema === 'object' &&
    typeof t.output_schema === 'object' &&
    typeof t.annotations === 'object' &&
    t.annotations !== null &&
    Array.isArray(t.scopes)
  );
}

function codes(issues: readonly ProtocolIssue[]): string[] {
  return [...new Set(issues.map((i) => i.code))];
}

function ruleIdsOf(issues: readonly ProtocolIssue[]): string[] {
  return [...new Set(issues.flatMap((i) => i.ruleIds))];
}
