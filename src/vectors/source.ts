/**
 * Vector sources (src/vectors/sources/*.json): the data `vectors generate` fills into the corpus.
 * A source says what to send, in a shorthand that expands to plain typed steps (`negotiate`,
 * `execute`, `envelope: true`), and what the reference must have answered (`check`) — the
 * generator records the full answer, generalised (generalise.ts), and refined by `override`.
 * Sources are data, not code: nothing in them is evaluated.
 */

import type {
  Caller,
  CallSpec,
  Expect,
  KillTarget,
  SendValue,
  Step,
  UserAnswer,
  VectorHeader,
} from './format.ts';
import type { ConsumerSource } from './generate-consumer.ts';

/** What the reference's reply must hold: dot paths (into JSON text too) to literals or matchers. */
export type Check = Readonly<Record<string, unknown>>;

interface Judged {
  readonly check?: Check;
  readonly override?: Readonly<Record<string, unknown>>;
}

interface EnvelopeFields {
  readonly caller?: Caller;
  /** The fresh request-id variable (default: one per step). */
  readonly request?: string;
  readonly extras?: Readonly<Record<string, SendValue>>;
  /** Envelope keys to leave out (a malformed request). */
  readonly remove?: readonly string[];
}

export type SourceCall =
  | ({
      readonly op: 'call';
      readonly method: string;
      readonly arg?: string;
      readonly envelope?: boolean;
      /** Send the operation_id captured from the last accepted reply. */
      readonly operation?: boolean;
    } & EnvelopeFields)
  | ({
      readonly op: 'execute';
      readonly tool: string;
      /** JSON args; `$UID` in a string stands for the caller's UID. Or raw text. */
      readonly args: unknown;
      readonly raw_args?: boolean;
      /** Send the resume_token captured from the last challenge. */
      readonly resume?: boolean;
    } & EnvelopeFields)
  | {
      readonly op: 'negotiate';
      readonly caller?: Caller;
      readonly capabilities?: readonly string[];
      readonly versions?: readonly number[];
    };

export type SourceStep =
  | (SourceCall & Judged)
  | ({
      readonly op: 'repeat';
      readonly step: number;
      readonly set?: Readonly<Record<string, SendValue>>;
      readonly caller?: Caller;
    } & Judged)
  | ({ readonly op: 'parallel'; readonly count: number; readonly call: SourceCall } & Judged)
  | { readonly op: 'user'; readonly answer: UserAnswer }
  | { readonly op: 'kill'; readonly process?: KillTarget }
  | { readonly op: 'advance-clock'; readonly ms: number }
  | { readonly op: 'read-fd'; readonly key: string }
  | ({
      readonly op: 'poll-until';
      readonly call: SourceCall;
      readonly until: Expect;
      readonly max_polls: number;
    } & Judged);

export interface SourceVector extends VectorHeader {
  readonly provider: string;
  readonly steps: readonly SourceStep[];
}

export interface SourceFile {
  /** Consumer sources (generate-consumer.ts) say so; provider sources leave it out. */
  readonly side?: 'consumer';
  readonly area: string;
  readonly description: string;
  readonly vectors: readonly SourceVector[] | readonly ConsumerSource[];
}

const DEFAULT_DEADLINE_MS = 30_000;

/** The variable holding a caller's session token (captured from its negotiate reply). */
export function sessionVariable(caller: Caller | undefined): string {
  return caller === 'second' ? 'second_session_token' : 'session_token';
}
const ANY: Expect = { $match: 'any' };

/** Expands shorthand calls; collects the fresh request-id variables they use. */
class Expander {
  readonly fresh = new Set<string>();

  private envelope(index: number, f: EnvelopeFields): Record<string, SendValue> {
    const request = f.request ?? `step${index}_request`;
    this.fresh.add(request);
    const all: Record<string, SendValue> = {
      protocol_version: { type: 'int', value: 2 },
      session_token: { type: 'string', ref: sessionVariable(f.caller) },
      request_id: { type: 'string', ref: request },
      deadline_at_ms: { type: 'long', now_plus_ms: DEFAULT_DEADLINE_MS },
    };
    for (const key of f.remove ?? []) delete all[key];
    return all;
  }

  call(index: number, s: SourceCall): CallSpec {
    const caller = s.caller ?? 'primary';
    if (s.op === 'negotiate') {
      return {
        caller,
        method: 'negotiate',
        arg: null,
        extras: {
          consumer_versions: { type: 'int[]', value: s.versions ?? [2, 1] },
          consumer_capabilities: { type: 'string', value: JSON.stringify(s.capabilities ?? []) },
        },
      };
    }
    if (s.op === 'call') {
      const operation: Record<string, SendValue> = s.operation
        ? { operation_id: { type: 'string', ref: 'operation_id' } }
        : {};
      const extras = s.envelope
        ? { ...this.envelope(index, s), ...operation, ...s.extras }
        : (s.extras ?? null);
      return { caller, method: s.method, arg: s.arg ?? null, extras };
    }
    const args = s.raw_args ? String(s.args) : JSON.stringify(s.args);
    const parts = args.split('$UID').flatMap((text, i) => (i === 0 ? [text] : [{ ref: 'caller_uid' }, text]));
    const extras: Record<string, SendValue> = {
      ...this.envelope(index, s),
      tool_name: { type: 'string', value: s.tool },
      args: parts.length === 1 ? { type: 'string', value: args } : { type: 'string', parts },
      ...(s.resume ? { resume_token: { type: 'string', ref: 'resume_token' } } : {}),
      ...s.extras,
    };
    for (const key of s.remove ?? []) delete extras[key];
    return { caller, method: 'execute_tool', arg: null, extras };
  }

  step(index: number, s: SourceStep): Step {
    switch (s.op) {
      case 'negotiate':
      case 'call':
      case 'execute':
        return { op: 'call', ...this.call(index, s), expect: ANY };
      case 'repeat':
        return {
          op: 'repeat',
          step: s.step,
          ...(s.set ? { set: s.set } : {}),
          ...(s.caller ? { caller: s.caller } : {}),
          expect: ANY,
        };
      case 'parallel':
        return { op: 'parallel', count: s.count, call: this.call(index, s.call), expect: [] };
      case 'poll-until':
        return {
          op: 'poll-until',
          call: this.call(index, s.call),
          until: s.until,
          max_polls: s.max_polls,
          expect: ANY,
        };
      case 'read-fd':
        return { op: 'read-fd', key: s.key, expect: { size: 0, sha256: '0'.repeat(64) } };
      default:
        return s;
    }
  }
}

/** The plain steps of a source (expectations still to be filled) and its fresh variables. */
export function expandSteps(source: SourceVector): { steps: Step[]; fresh: string[] } {
  const expander = new Expander();
  const steps = source.steps.map((s, i) => expander.step(i, s));
  return { steps, fresh: [...expander.fresh] };
}
