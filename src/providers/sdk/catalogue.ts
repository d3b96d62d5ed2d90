/**
 * The provider's tool catalogue, validated at start-up (spec §3, §10): the provider descriptor
 * (provider_id under the package namespace, 3.1-02; scope names, 3.2-03/04), and every tool — name
 * pattern and uniqueness (3.1-03/04), annotation consistency (3.4-09, refused per 10-02), schema
 * dialect and same-document `$ref`s only (3.2-06 … 3.2-09), scopes declared in the catalogue, and a
 * mutation executor for every write tool (10-05). A tool that fails is disabled — not listed, not
 * executable — and logged; the rest of the provider keeps working.
 *
 * Compiled validators are memoised per tool object and by content (a pure cache: tools are immutable
 * app constants, and the same descriptor always compiles to the same validators and issues), so
 * restarting a provider in a fresh world does not recompile its schemas.
 */

import { caches } from '../../base/caches.ts';
import { BoundedMemo } from '../../base/memo.ts';
import {
  checkProviderInfo,
  checkToolDescriptor,
  type ProtocolIssue,
  type ProviderInfo,
  type ToolDescriptor,
  ToolSchemaCompiler,
  type ToolValueValidator,
} from '../../protocol/index.ts';
import { DRAFT_2020_12 } from '../../protocol/schemas/core.ts';
import type { AppContext } from '../../sim/app/context.ts';
import type { Gates } from './gates.ts';
import type { CallerIdentity, CetpProviderDescriptor, ProviderTool } from './types.ts';

export interface CompiledTool {
  readonly tool: ProviderTool;
  readonly validateInput: ToolValueValidator;
  readonly validateOutput: ToolValueValidator;
}

export interface Catalogue {
  readonly info: ProviderInfo;
  readonly tools: ReadonlyMap<string, CompiledTool>;
  /** Tools refused at start-up, with why. */
  readonly disabled: readonly { name: string; issues: readonly ProtocolIssue[] }[];
  /** Problems with the provider descriptor itself; non-empty means the provider serves no v2 tools. */
  readonly providerIssues: readonly ProtocolIssue[];
}

const compiled = caches.weakMap<ProviderTool, CompileResult>('providers/sdk/catalogue: compiled tools');
/** The same, by the descriptor's JSON and the scope catalogue (bounded: cleared when full). */
const byContent = caches.map<string, CompileResult>(
  'providers/sdk/catalogue: compiled tools by content',
  512,
);
const sharedCompiler = caches.lazy(
  'providers/sdk/catalogue: schema compiler',
  () => new ToolSchemaCompiler(),
);

/**
 * Whether `caller` may discover `tool` now (7.2-01, 7.2-02): the tool's own visibility policy, which
 * may read the app's state (a scope grant). With CETP-7.2-01 ablated every tool is visible. A
 * synchronous policy answers synchronously (no extra turn before the reply).
 */
export function visibleTo(
  tool: ProviderTool,
  caller: CallerIdentity,
  context: AppContext,
  gates: Gates,
): boolean | Promise<boolean> {
  if (!tool.isVisibleTo || !gates.on('CETP-7.2-01')) return true;
  return tool.isVisibleTo(caller, context);
}

/** The wire form of a tool's descriptor (snake_case annotations), for a session's capabilities. */
export function toolDescriptor(tool: ProviderTool, capabilities: readonly string[]): ToolDescriptor {
  const a = tool.annotations;
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    input_schema: tool.inputSchema,
    output_schema: tool.outputSchema,
    scopes: [...tool.scopes],
    annotations: {
      effect: a.effect,
      risk: a.risk,
      destructive: a.destructive,
      idempotent: a.idempotent,
      open_world: a.openWorld,
      confirmation: a.confirmation,
      // 3.4-10: sync_or_async only in a session that negotiated async_operations.
      execution:
        a.execution === 'sync_or_async' && capabilities.includes('async_operations')
          ? 'sync_or_async'
          : 'sync',
    },
  } as ToolDescriptor;
}

export function providerInfo(descriptor: CetpProviderDescriptor): ProviderInfo {
  return {
    provider_id: descriptor.providerId,
    provider_name: descriptor.providerName,
    description: descriptor.description,
    schema_dialect: DRAFT_2020_12,
    scopes: descriptor.scopes.map((s) => ({
      name: s.name,
      ...(s.title !== undefined ? { title: s.title } : {}),
      description: s.description,
      access: s.access,
      sensitivity: s.sensitivity,
    })),
  } as ProviderInfo;
}

interface CompileResult {
  readonly validators: Omit<CompiledTool, 'tool'> | null;
  readonly issues: readonly ProtocolIssue[];
}

function compileTool(tool: ProviderTool, scopeNames: readonly string[]): CompileResult {
  const cached = compiled.get(tool);
  if (cached) return cached;
  // Checked as served in a session with every capability, so execution=sync_or_async is allowed here.
  const descriptor = toolDescriptor(tool, ['async_operations']);
  // Tool objects made afresh per app instance (generated providers, tests) hit by content instead.
  const key = contentKey(descriptor, scopeNames);
  const same = key === null ? undefined : byContent.get(key);
  if (same) {
    compiled.set(tool, same);
    return same;
  }
  const compiler = sharedCompiler.get();
  const checked = checkToolDescriptor(descriptor, {
    negotiatedCapabilities: ['async_operations'],
    scopeNames,
    compiler,
  });
  const input = compiler.compile(tool.inputSchema, 'input', '/input_schema');
  const output = compiler.compile(tool.outputSchema, 'output', '/output_schema');
  const result: CompileResult = {
    validators: input.ok && output.ok ? { validateInput: input.value, validateOutput: output.value } : null,
    issues: checked.ok ? [] : checked.issues,
  };
  compiled.set(tool, result);
  if (key !== null) byContent.set(key, result);
  return result;
}

/** The content cache's key; null for a descriptor that is not plain JSON (never cached by content). */
function contentKey(descriptor: ToolDescriptor, scopeNames: readonly string[]): string | null {
  try {
    return JSON.stringify([descriptor, scopeNames]);
  } catch {
    return null;
  }
}

/** The descriptor's issues for a package, judged once per (descriptor, package): every process start asks. */
function providerIssuesOf(
  descriptor: CetpProviderDescriptor,
  info: ProviderInfo,
  packageName: string,
): readonly ProtocolIssue[] {
  let byPackage = infoIssues.get(descriptor);
  if (!byPackage) {
    byPackage = new BoundedMemo(64);
    infoIssues.set(descriptor, byPackage);
  }
  return byPackage.get(packageName, () => {
    const checked = checkProviderInfo(info, { packageName });
    return checked.ok ? [] : checked.issues;
  });
}

/** Descriptors are an app's constant configuration (long-lived keys: a WeakMap costs no GC here). */
const infoIssues = caches.weakMap<CetpProviderDescriptor, BoundedMemo<string, readonly ProtocolIssue[]>>(
  'providers/sdk/catalogue: provider-info issues by descriptor, then package',
);

export function buildCatalogue(
  descriptor: CetpProviderDescriptor,
  packageName: string,
  tools: readonly ProviderTool[],
  hasMutationExecutor: boolean,
  gates: Gates,
): Catalogue {
  const info = providerInfo(descriptor);
  const providerIssues = providerIssuesOf(descriptor, info, packageName);
  const scopeNames = descriptor.scopes.map((s) => s.name);
  const map = new Map<string, CompiledTool>();
  const disabled: { name: string; issues: readonly ProtocolIssue[] }[] = [];
  for (const tool of tools) {
    if (map.has(tool.name) || tools.filter((t) => t.name === tool.name).length > 1) {
      disabled.push({
        name: tool.name,
        issues: [
          {
            code: 'duplicate_name',
            message: `tool ${tool.name} is declared twice`,
            ruleIds: ['CETP-3.1-04'],
          },
        ],
      });
      continue;
    }
    if (gates.on('CETP-10-05') && tool.annotations.effect !== 'read' && !hasMutationExecutor) {
      disabled.push({
        name: tool.name,
        issues: [
          {
            code: 'no_mutation_executor',
            message: 'a write tool needs a mutation executor',
            ruleIds: ['CETP-10-05'],
          },
        ],
      });
      continue;
    }
    const { validators, issues } = compileTool(tool, scopeNames);
    // Rule ablation: an issue whose every rule is switched off no longer disables the tool.
    const live = issues.filter((i) => i.ruleIds.length === 0 || gates.on(...i.ruleIds));
    if (validators && live.length === 0) {
      // Field by field: a literal with a spread after its first key takes V8's slow path (Node 20).
      map.set(tool.name, {
        tool,
        validateInput: validators.validateInput,
        validateOutput: validators.validateOutput,
      });
    } else disabled.push({ name: tool.name, issues: validators ? live : issues });
  }
  return { info, tools: map, disabled, providerIssues };
}
