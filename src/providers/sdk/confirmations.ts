/**
 * Provider-side confirmation and authorization resolutions (spec §4.3, §7.2).
 *
 * A resolution is a durable confirmation record plus an explicit, immutable PendingIntent to the
 * provider's own confirmation Activity (4.3-02, 7.2-04, 7.2-05). The Intent's data is unique per
 * confirmation (`cetp-confirm://<id>`), because PendingIntent identity ignores extras: two
 * confirmations must never share a token. The resume token is 32 random bytes bound to the caller's
 * UID, the tool, the request_id, the exact args digest and an expiry (4.3-04 … 4.3-06, 4.3-14), and
 * is used once (4.3-13). The Activity shows the concrete object, action, key parameters and what is
 * irreversible (7.2-06), records the user's decision durably, then finishes (4.3-11).
 */
import type { JsonObject, JsonValue } from '../../base/json.ts';
import type { RequestKey } from '../../protocol/index.ts';
import type { AppContext } from '../../sim/app/context.ts';
import type { StoreTransaction } from '../../sim/storage/storage.ts';
import { Activity, RESULT_CANCELED, RESULT_OK } from '../../sim/ui/activity.ts';
import { Intent } from '../../sim/ui/intent.ts';
import { FLAG_IMMUTABLE, FLAG_UPDATE_CURRENT, type PendingIntent } from '../../sim/ui/pending-intent.ts';
import type { Gates } from './gates.ts';
import {
  CONFIRMATIONS,
  type ConfirmationKind,
  type ConfirmationRecord,
  GRANTS,
  readConfirmation,
  TOKENS,
  withChanges,
  writeConfirmation,
} from './records.ts';
import type { ConfirmationText, ProviderScope } from './types.ts';

export const CONFIRM_ACTIVITY = 'CetpConfirmActivity';
const CONFIRM_SCHEME = 'cetp-confirm://';

export interface ResolutionRequest {
  readonly kind: ConfirmationKind;
  readonly requestKey: string;
  readonly uid: number;
  readonly callerPackages: readonly string[];
  readonly identity: string;
  readonly requestId: RequestKey;
  readonly tool: string;
  readonly argsDigest: string;
  readonly text: ConfirmationText | null;
  readonly scopes: readonly string[];
}

/** The trace note of a confirmation's lifecycle step (read by the checkers; never args or tokens). */
export function confirmationNote(record: ConfirmationRecord, event: string): JsonObject {
  return {
    cetp: 'confirmation',
    event,
    id: record.id,
    kind: record.kind,
    uid: record.uid,
    request_id: record.requestId,
    tool: record.tool,
    args_digest: record.argsDigest,
    scopes: [...record.scopes],
  };
}

/** Creates a confirmation record inside `tx`; returns it (with its new token). */
export async function createConfirmation(
  tx: StoreTransaction,
  context: AppContext,
  ttlMs: number,
  req: ResolutionRequest,
): Promise<ConfirmationRecord> {
  const record: ConfirmationRecord = {
    id: context.rng.hex(12),
    kind: req.kind,
    requestKey: req.requestKey,
    uid: req.uid,
    callerPackages: [...req.callerPackages],
    identity: req.identity,
    requestId: req.requestId,
    tool: req.tool,
    argsDigest: req.argsDigest,
    token: context.rng.hex(32),
    expiresAtMs: context.currentTimeMillis() + ttlMs,
    state: 'pending',
    text: req.text,
    scopes: [...req.scopes],
  };
  await writeConfirmation(tx, record);
  await tx.put(TOKENS, record.token, record.id);
  tx.annotate(confirmationNote(record, 'requested'));
  return record;
}

/**
 * The resolution PendingIntent for a confirmation: explicit, immutable, unique per confirmation (the
 * id in the Intent's data, since PendingIntent identity ignores extras).
 */
export function resolutionFor(context: AppContext, record: ConfirmationRecord): PendingIntent | null {
  const intent = Intent.explicit(context.packageName, CONFIRM_ACTIVITY, {
    data: `${CONFIRM_SCHEME}${record.id}`,
  });
  intent.extras.putString('confirmation_id', record.id);
  return context.getActivityPendingIntent(0, intent, FLAG_IMMUTABLE | FLAG_UPDATE_CURRENT);
}

export type TokenCheck =
  | { readonly ok: true; readonly record: ConfirmationRecord }
  | { readonly ok: false; readonly expired: ConfirmationRecord }
  | { readonly ok: false; readonly invalid: string; readonly ruleIds: readonly string[] };

export interface TokenBinding {
  readonly uid: number;
  readonly requestKey: RequestKey;
  readonly tool: string;
  readonly argsDigest: string;
  readonly nowMs: number;
}

/** What a resume token is held to beyond its caller, args and expiry. */
export interface TokenRules {
  /** Bound to the request_id, not only the tool (4.3-05). */
  readonly bindsRequest: boolean;
  /** Used once (4.3-13). */
  readonly singleUse: boolean;
}

export const STRICT_TOKENS: TokenRules = { bindsRequest: true, singleUse: true };

/** Finds and checks a resume token against what the call presents (4.3-04 … 4.3-06, 4.3-13, 4.3-14). */
export async function checkResumeToken(
  tx: StoreTransaction,
  token: string,
  binding: TokenBinding,
  gates: Gates,
  /** Accept an already-used token of this same request (a retried resume after a lost reply, NOTES 2):
   *  the caller replays the recorded decision and must not consume it again. */
  allowConsumed = false,
  rules: TokenRules = STRICT_TOKENS,
): Promise<TokenCheck> {
  const id = (await tx.get(TOKENS, token)) as string | undefined;
  const record = id === undefined ? undefined : await readConfirmation(tx, id);
  if (!record) return { ok: false, invalid: 'unknown resume_token', ruleIds: ['CETP-4.3-03'] };
  if (gates.on('CETP-4.3-04') && record.uid !== binding.uid) {
    return { ok: false, invalid: 'resume_token belongs to another caller', ruleIds: ['CETP-4.3-04'] };
  }
  if (
    gates.on('CETP-4.3-05') &&
    (record.tool !== binding.tool || (rules.bindsRequest && record.requestId !== binding.requestKey))
  ) {
    return {
      ok: false,
      invalid: 'resume_token belongs to another request or tool',
      ruleIds: ['CETP-4.3-05'],
    };
  }
  if (gates.on('CETP-4.3-14') && record.argsDigest !== binding.argsDigest) {
    return { ok: false, invalid: 'args differ from the confirmed args', ruleIds: ['CETP-4.3-14'] };
  }
  if (gates.on('CETP-4.3-13') && rules.singleUse && !allowConsumed && record.state === 'consumed') {
    return { ok: false, invalid: 'resume_token was already used', ruleIds: ['CETP-4.3-13'] };
  }
  if (gates.on('CETP-4.3-06') && binding.nowMs >= record.expiresAtMs) return { ok: false, expired: record };
  return { ok: true, record };
}

/** Marks a confirmation used (single use, 4.3-13). */
export async function consumeConfirmation(tx: StoreTransaction, record: ConfirmationRecord): Promise<void> {
  if (record.state === 'consumed') return;
  const decision = record.state === 'approved' ? 'approved' : 'denied';
  await writeConfirmation(tx, withChanges(record, { state: 'consumed', decision }));
  tx.annotate(confirmationNote(record, 'consumed'));
}

export interface GrantRecord {
  readonly scope: string;
  readonly identity: string;
  readonly grantedAtMs: number;
  readonly expiresAtMs: number;
}

/** The durable scope grants of a UID (7.1-06): bound to the caller's identity and a validity period. */
export async function readGrants(context: AppContext, uid: number): Promise<GrantRecord[]> {
  return ((await context.storage.get(GRANTS, String(uid))) as GrantRecord[] | undefined) ?? [];
}

/** What the confirmation Activity needs to know about the provider it belongs to. */
export interface ConfirmationHost {
  readonly providerName: string;
  readonly scopeCatalogue: readonly ProviderScope[];
  readonly grantTtlMs: number;
}

/**
 * The provider's own confirmation Activity (4.3-09): reads the confirmation its PendingIntent names,
 * shows it, and persists the user's decision before finishing, so a resume — even after a provider
 * restart — sees it.
 */
export class CetpConfirmActivity extends Activity {
  constructor(private readonly host: ConfirmationHost) {
    super();
  }

  override async onCreate(): Promise<void> {
    const data = this.intent.data ?? '';
    const id = data.startsWith(CONFIRM_SCHEME)
      ? data.slice(CONFIRM_SCHEME.length)
      : (this.intent.extras.getString('confirmation_id') ?? '');
    const record = (await this.context.storage.get(CONFIRMATIONS, id)) as ConfirmationRecord | undefined;
    if (record?.state !== 'pending') {
      this.setResult(RESULT_CANCELED);
      this.finish();
      return;
    }
    const answer = await this.show(this.screenFor(record));
    if (answer === 'back') {
      await this.decide(record, 'dismissed');
      return;
    }
    await this.decide(record, answer === 'approve' ? 'approved' : 'denied');
    const result = new Intent();
    result.extras.putString('decision', answer === 'approve' ? 'approved' : 'denied');
    this.setResult(RESULT_OK, result);
    this.finish();
  }

  private async decide(
    record: ConfirmationRecord,
    state: 'approved' | 'denied' | 'dismissed',
  ): Promise<void> {
    const now = this.context.currentTimeMillis();
    await this.context.storage.transaction(`confirmation ${state}`, async (tx) => {
      const current = await readConfirmation(tx, record.id);
      if (current?.state !== 'pending') return;
      await writeConfirmation(tx, withChanges(current, { state }));
      tx.annotate(confirmationNote(current, state));
      if (state === 'approved' && current.kind === 'grant') {
        const grants = ((await tx.get(GRANTS, String(current.uid))) as GrantRecord[] | undefined) ?? [];
        const kept = grants.filter((g) => !current.scopes.includes(g.scope));
        for (const scope of current.scopes) {
          kept.push({
            scope,
            identity: current.identity,
            grantedAtMs: now,
            expiresAtMs: now + this.host.grantTtlMs,
          });
        }
        await tx.put(GRANTS, String(current.uid), kept as unknown as JsonValue);
      }
    });
  }

  private screenFor(record: ConfirmationRecord): { title: string; lines: string[] } {
    const who = record.callerPackages.join(', ') || `uid ${record.uid}`;
    if (record.kind === 'grant') {
      const lines = record.scopes.map((name) => {
        const s = this.host.scopeCatalogue.find((x) => x.name === name);
        return s ? `${s.title ?? s.name}: ${s.description} (${s.access}, ${s.sensitivity})` : name;
      });
      return {
        title: `Allow ${who} to use ${this.host.providerName}?`,
        lines: [...lines, `Requested by ${who}`],
      };
    }
    const t = record.text;
    if (!t)
      return { title: `${this.host.providerName}: confirm ${record.tool}`, lines: [`Requested by ${who}`] };
    return {
      title: `${this.host.providerName}: ${t.action}`,
      lines: [
        `Object: ${t.object}`,
        `Action: ${t.action}`,
        ...t.parameters.map(([k, v]) => `${k}: ${v}`),
        t.irreversible ? `Cannot be undone: ${t.irreversible}` : 'This can be undone.',
        `Requested by ${who}`,
      ],
    };
  }
}
