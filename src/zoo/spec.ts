/**
 * The zoo's app descriptions: plain data that says what a generated provider app is — one kind of
 * record kept in the app's own table, the tools over it (read, create, update, delete, a large
 * export), their confirmation policy and execution, the authorization policy, and how ids are made.
 * Everything else (the defineProvider implementation, the fuzz fixture's argument pools, the
 * expected model of state and the invariants) is derived from a description (build.ts, model.ts),
 * so one description gives an app that is correct by construction, and a mistake (mistakes.ts) is a
 * named change to it.
 */
import type { JsonObject } from '../base/json.ts';
import type { ManifestVariant } from './variants.ts';

export type FieldType = 'string' | 'integer' | 'boolean' | 'object';

/** A field of the record (and of the create tool's input): nested objects have their own fields. */
export interface FieldSpec {
  readonly name: string;
  readonly type: FieldType;
  readonly optional: boolean;
  /** For `object`: its fields (strings and integers, some optional). */
  readonly fields?: readonly FieldSpec[];
}

/** The record kind an app keeps: `noun` rows in the table `plural`, ids `PREFIX-…`. */
export interface EntitySpec {
  readonly noun: string;
  readonly plural: string;
  readonly idPrefix: string;
  /** Where ids come from: a counter in the app's own meta table, or the app's seeded PRNG. */
  readonly ids: 'counter' | 'uuid';
  readonly fields: readonly FieldSpec[];
}

export type ReadKind = 'list' | 'get' | 'export';
export type WriteKind = 'create' | 'update' | 'delete';
export type ToolKind = ReadKind | WriteKind;

export interface ToolSpec {
  readonly kind: ToolKind;
  /** For writes: never, always, or provider_policy (needs the user's approval for "big" args). */
  readonly confirmation: 'never' | 'always' | 'provider_policy';
  readonly risk: 'low' | 'moderate' | 'high';
  /** For create and update: sync_or_async (an async operation when the session negotiated it). */
  readonly async: boolean;
  /** For async writes: how many steps of `stepMs` the long part before the commit takes. */
  readonly prepareSteps: number;
  readonly stepMs: number;
  /**
   * For async writes: whether the long part reports progress and stops when cancelled, or sleeps
   * through its steps without asking (the SDK still re-checks the cancel at its commit point, so the
   * operation ends `cancelled` with no effect; only how long a cancel takes differs, which no rule
   * bounds: docs/zoo.md, "Cancellation"). Derived, not drawn: a one-step long part does not ask.
   */
  readonly asksCancel: boolean;
}

/** Which scopes any caller has without asking (the rest the user grants, per caller). */
export type AuthSpec = 'user' | 'free-read' | 'free-all';

export interface AppSpec {
  /** The app's index in its zoo (its name and package are derived from it). */
  readonly index: number;
  readonly entity: EntitySpec;
  readonly tools: readonly ToolSpec[];
  readonly auth: AuthSpec;
  readonly versions: readonly (1 | 2)[];
  /** The business rule create enforces beyond the schema: this value of the first string field is refused. */
  readonly refusedValue: string;
  /** Manifest variants (variants.ts): own provider process, permission guard and grants, second user. */
  readonly manifest?: ManifestVariant;
}

/** The names derived from a description. */
export function namesOf(spec: AppSpec) {
  const { noun, plural, idPrefix } = spec.entity;
  return {
    fixture: `zoo${spec.index}`,
    packageName: `com.zoo.app${spec.index}`,
    table: plural,
    meta: `${plural}.meta`,
    idField: `${noun}_id`,
    idPrefix,
    readScope: `${noun}.read`,
    writeScope: `${noun}.write`,
    tool: (kind: ToolKind): string =>
      ({
        list: `list_${plural}`,
        get: `get_${noun}`,
        export: `export_${plural}`,
        create: `add_${noun}`,
        update: `update_${noun}`,
        delete: `delete_${noun}`,
      })[kind],
  };
}

export type Names = ReturnType<typeof namesOf>;

/** A stored row: the id, the owner's UID and the fields given. */
export interface Row extends JsonObject {
  readonly owner_uid: number;
}

export const READ_KINDS: readonly ReadKind[] = ['list', 'get', 'export'];

export function isRead(kind: ToolKind): kind is ReadKind {
  return (READ_KINDS as readonly string[]).includes(kind);
}
