/**
 * A reference authorization policy for provider apps (spec §7.1, §3.4, 10-01, 10-11): scopes are
 * granted per caller UID by the user in the provider's own UI (AUTH_REQUIRED), and each grant is
 * bound to the caller's identity — UID, all its packages and their current signing certificates —
 * and a validity period (7.1-06). A changed identity (re-signed app, new package in a shared UID)
 * invalidates the grant; shared UIDs are refused outright unless allowed (7.1-07). Scopes the user
 * cannot grant are denied. Default: nothing is allowed (10-01).
 */
import { readGrants } from './confirmations.ts';
import { identityFingerprint } from './identity.ts';
import type { AccessDecision, AuthorizationRequest } from './types.ts';

export interface GrantPolicyOptions {
  /** Scopes every caller has without asking (e.g. public read scopes). */
  readonly freeScopes?: readonly string[];
  /** Scopes the user may grant through the provider's UI; others are denied. */
  readonly grantableScopes: readonly string[];
  /** Accept callers whose UID has several packages (a shared UID). Default false (7.1-07). */
  readonly allowSharedUid?: boolean;
  /** Signing-certificate digests allowed to call at all; undefined = any signer. */
  readonly allowedSigners?: readonly string[];
}

export class ScopeGrantPolicy {
  constructor(private readonly options: GrantPolicyOptions) {}

  async authorize(request: AuthorizationRequest): Promise<AccessDecision> {
    const { caller, context } = request;
    if (caller.packages.length === 0) return { kind: 'deny', reason: 'The caller could not be identified.' };
    if (caller.packages.length > 1 && !this.options.allowSharedUid) {
      return { kind: 'deny', reason: 'Apps sharing a user ID are not allowed to use these tools.' };
    }
    const signers = this.options.allowedSigners;
    if (
      signers &&
      !caller.packages.every((p) => (caller.certDigests[p] ?? []).some((d) => signers.includes(d)))
    ) {
      return { kind: 'deny', reason: 'This app is not allowed to use these tools.' };
    }
    const now = context.currentTimeMillis();
    const identity = identityFingerprint(caller);
    const grants = await readGrants(context, caller.uid);
    const missing = request.scopes.filter(
      (scope) =>
        !this.options.freeScopes?.includes(scope) &&
        !grants.some((g) => g.scope === scope && g.identity === identity && g.expiresAtMs > now),
    );
    if (missing.length === 0) return { kind: 'allow' };
    if (missing.every((s) => this.options.grantableScopes.includes(s)))
      return { kind: 'needs_grant', scopes: missing };
    return { kind: 'deny', reason: 'This app is not allowed to use these tools.' };
  }
}
