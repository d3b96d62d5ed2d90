/**
 * Human renderings of a trace: plain text (one event a line) and a Mermaid sequence diagram.
 *
 * Mermaid convention: an event with `from` and `to` is an arrow between those participants
 * (processes, `system`, `user`); an event with `actor` is a note over it. Scheduler bookkeeping and
 * fd/log noise can be filtered out so a shrunk failure reads as a story.
 */
import type { JsonValue } from '../../base/json.ts';
import type { TraceEvent } from './trace.ts';

export interface RenderOptions {
  /** Event kinds (or kind prefixes followed by '.') to leave out. */
  readonly omit?: readonly string[];
  /** Keep only the last N events (after filtering). */
  readonly tail?: number;
}

/** Kinds that are noise in a story view. */
export const QUIET_KINDS: readonly string[] = ['log', 'fd.open', 'fd.close', 'fd.dup', 'fs.write'];

function keep(e: TraceEvent, omit: readonly string[]): boolean {
  return !omit.some((k) => e.kind === k || e.kind.startsWith(`${k}.`));
}

function select(events: readonly TraceEvent[], options: RenderOptions): TraceEvent[] {
  const filtered = events.filter((e) => keep(e, options.omit ?? []));
  return options.tail !== undefined ? filtered.slice(-options.tail) : filtered;
}

function renderValue(v: JsonValue): string {
  if (typeof v === 'string') return v.includes(' ') || v.length === 0 ? JSON.stringify(v) : v;
  return JSON.stringify(v);
}

/** `#12 step 7 +1500ms binder.call from=a to=b method=execute_tool`. */
export function renderText(events: readonly TraceEvent[], options: RenderOptions = {}): string {
  const list = select(events, options);
  const t0 = events[0]?.t ?? 0;
  return list
    .map((e) => {
      const fields = Object.entries(e.data)
        .map(([k, v]) => `${k}=${renderValue(v)}`)
        .join(' ');
      return `#${e.seq} step ${e.step} +${e.t - t0}ms ${e.kind}${fields ? ` ${fields}` : ''}`;
    })
    .join('\n');
}

function label(e: TraceEvent, skip: readonly string[]): string {
  const parts = Object.entries(e.data)
    .filter(([k]) => !skip.includes(k))
    .map(([k, v]) => `${k}=${renderValue(v)}`);
  const text = [e.kind, ...parts].join(' ');
  // Mermaid message text: no semicolons, '#' or newlines; keep it short.
  const clean = text.replace(/[;#\n\r]/g, ' ').replace(/\s+/g, ' ');
  return clean.length > 120 ? `${clean.slice(0, 117)}...` : clean;
}

/** A Mermaid `sequenceDiagram` of the events. */
export function renderMermaid(events: readonly TraceEvent[], options: RenderOptions = {}): string {
  const list = select(events, {
    omit: [...QUIET_KINDS, ...(options.omit ?? [])],
    ...(options.tail !== undefined ? { tail: options.tail } : {}),
  });
  const ids = new Map<string, string>();
  const id = (name: string): string => {
    let v = ids.get(name);
    if (!v) {
      v = `P${ids.size}`;
      ids.set(name, v);
    }
    return v;
  };
  const body: string[] = [];
  for (const e of list) {
    const from = e.data.from;
    const to = e.data.to;
    const actor = e.data.actor;
    if (typeof from === 'string' && typeof to === 'string') {
      const arrow = e.kind.endsWith('reply') || e.kind.includes('result') ? '-->>' : '->>';
      body.push(`  ${id(from)}${arrow}${id(to)}: ${label(e, ['from', 'to'])}`);
    } else if (typeof actor === 'string') {
      body.push(`  Note over ${id(actor)}: ${label(e, ['actor'])}`);
    } else {
      body.push(`  Note over ${id('system')}: ${label(e, [])}`);
    }
  }
  const header = [...ids.entries()].map(([name, v]) => `  participant ${v} as ${name}`);
  return ['sequenceDiagram', ...header, ...body].join('\n');
}
