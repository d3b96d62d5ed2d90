/**
 * The tool catalogue of one provider, read from `list_tools` as untrusted input (§3, §7.3).
 *
 * Each descriptor is checked on its own (`protocol.checkToolList`): a bad one is dropped, never
 * patched (3.2-11, 3.2-12). Schemas are compiled under our own size and depth caps (7.3-01,
 * 7.3-02); titles and descriptions become clipped untrusted text.
 *
 * Caching (3.3-04, 3.3-05; session.ts): catalogues are kept by revision (how many and how long is
 * the generated policy's), but a catalogue is only ever USED for
 * the session it was listed in — after every negotiation `list_tools` is read again, and the
 * cached catalogue is reused only when that session's answer names the same revision.
 */
import { type JsonObject, protocol } from '../../../index.ts';
import { type UntrustedText, untrustedText } from './answers.ts';

/**
 * A schema compiler under our own caps, one per catalogue read: this folder is user code to the
 * CLI's module boundary (its `.cetp-sim-user-modules` marker, so a false alarm's `--consumer` module
 * can import it), and user code imports only cetp-sim's public entry — not its cache holder.
 */
const compilerFor = () => new protocol.ToolSchemaCompiler({ maxBytes: 65_536, maxDepth: 32 });

export interface Tool {
  readonly name: string;
  readonly effect: string;
  readonly title: UntrustedText;
  readonly description: UntrustedText;
  readonly inputSchema: JsonObject;
  readonly annotations: JsonObject;
  readonly validateInput: protocol.ToolValueValidator;
  readonly validateOutput: protocol.ToolValueValidator;
}

export interface Catalogue {
  readonly revision: string;
  readonly tools: ReadonlyMap<string, Tool>;
}

/** list_tools `data`, checked; null if the list itself is unusable. */
export function readCatalogue(
  data: unknown,
  capabilities: readonly string[],
  clip: number,
): Catalogue | null {
  const compiler = compilerFor();
  const checked = protocol.checkToolList(data, { negotiatedCapabilities: capabilities, compiler });
  if (checked.revision === null || checked.issues.length > 0) return null;
  const tools = new Map<string, Tool>();
  for (const d of checked.accepted.slice(0, 256)) {
    const input = compiler.compile(d.input_schema, 'input');
    const output = compiler.compile(d.output_schema, 'output');
    if (!input.ok || !output.ok) continue;
    tools.set(d.name, {
      name: d.name,
      effect: d.annotations.effect,
      title: untrustedText(d.title, 120),
      description: untrustedText(d.description, clip),
      inputSchema: d.input_schema as JsonObject,
      annotations: d.annotations as unknown as JsonObject,
      validateInput: input.value,
      validateOutput: output.value,
    });
  }
  return { revision: checked.revision, tools };
}

/** v1 descriptors (`{name, description, input_schema}`): no annotations, no output schema. */
export function readV1Catalogue(data: unknown, clip: number): Catalogue | null {
  const compiler = compilerFor();
  const raw = (data as { tools?: unknown } | null)?.tools;
  if (!Array.isArray(raw)) return null;
  const tools = new Map<string, Tool>();
  for (const t of raw.slice(0, 256) as { name?: unknown; description?: unknown; input_schema?: unknown }[]) {
    if (typeof t?.name !== 'string' || !protocol.isToolName(t.name) || tools.has(t.name)) continue;
    const schema = t.input_schema ?? { type: 'object' };
    const input = compiler.compile(schema, 'input');
    if (!input.ok || typeof schema !== 'object') continue;
    tools.set(t.name, {
      name: t.name,
      effect: 'read', // v1 is a read-only bridge (0-01)
      title: untrustedText(t.name, 120),
      description: untrustedText(t.description, clip),
      inputSchema: schema as JsonObject,
      annotations: {},
      validateInput: input.value,
      validateOutput: () => [],
    });
  }
  return { revision: 'v1', tools };
}
