/**
 * Negotiated sessions (spec §2.2). A session token is 32 random bytes from the provider process's
 * PRNG (opaque, unpredictable inside the simulation; 64 hex bytes ≤ 256, 2.2-07/08), bound to the
 * calling UID and the caller's signing identity (2.2-09), the selected version and capabilities
 * (2.2-10), with an expiry (2.2-11). Sessions live in memory only: a provider restart invalidates
 * every token (2.2-12), and an invalid token is NEGOTIATION_REQUIRED (2.2-14).
 */
import type { Capability } from '../../protocol/index.ts';
import type { AppContext } from '../../sim/app/context.ts';
import type { Gates } from './gates.ts';
import type { ProviderLimits } from './types.ts';

export interface Session {
  readonly token: string;
  readonly uid: number;
  readonly identity: string;
  readonly version: number;
  readonly capabilities: readonly Capability[];
  readonly limits: ProviderLimits;
  readonly expiresAtMs: number;
}

export type SessionCheck =
  | { readonly ok: true; readonly session: Session }
  | {
      readonly ok: false;
      readonly reason: 'missing' | 'unknown' | 'expired' | 'foreign_uid' | 'identity_changed';
    };

/** The reference: a session is bound to the UID that negotiated it (2.2-09). */
export function sessionOwnedBy(gates: Gates, session: Session, uid: number): boolean {
  return !gates.on('CETP-2.2-09') || session.uid === uid;
}

export class SessionTable {
  private readonly sessions = new Map<string, Session>();

  constructor(
    private readonly context: AppContext,
    private readonly gates: Gates,
    /** Whether `session` may be used by `uid` (a provider part, 2.2-09). */
    private readonly ownedBy: (gates: Gates, session: Session, uid: number) => boolean = sessionOwnedBy,
  ) {}

  open(init: Omit<Session, 'token'>): Session {
    const token = this.context.rng.hex(32);
    // Spelled out, not `{ ...init, token }`: on Node 20 a spread followed by more properties takes
    // V8's slow path (~1 µs), and a session is opened on every negotiate.
    const session: Session = {
      uid: init.uid,
      identity: init.identity,
      version: init.version,
      capabilities: init.capabilities,
      limits: init.limits,
      expiresAtMs: init.expiresAtMs,
      token,
    };
    this.sessions.set(token, session);
    return session;
  }

  check(token: string | null, uid: number, identity: string): SessionCheck {
    if (token === null || token === '') return { ok: false, reason: 'missing' };
    const session = this.sessions.get(token);
    if (!session) return { ok: false, reason: 'unknown' };
    if (!this.ownedBy(this.gates, session, uid)) {
      return { ok: false, reason: 'foreign_uid' };
    }
    if (this.gates.on('CETP-2.2-11') && this.context.currentTimeMillis() >= session.expiresAtMs) {
      return { ok: false, reason: 'expired' };
    }
    if (this.gates.on('CETP-7.1-06') && session.uid === uid && session.identity !== identity) {
      return { ok: false, reason: 'identity_changed' };
    }
    return { ok: true, session };
  }

  /** Invalidates every session (a capability change, or the "expire sessions" fault). */
  clear(): void {
    this.sessions.clear();
  }

  get size(): number {
    return this.sessions.size;
  }
}
