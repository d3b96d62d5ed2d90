/**
 * The PendingIntent a holder sees (pending-intent.ts: the system's records and registry), with its
 * flags. A leaf below Bundle (binder/bundle.ts carries tokens): it names the token's record by the
 * fields it reads, so the Bundle → PendingIntent → Intent → Bundle chain of values is no import
 * circle.
 */
import type { ComponentName } from './component-name.ts';

export const FLAG_ONE_SHOT = 1 << 30;
export const FLAG_NO_CREATE = 1 << 29;
export const FLAG_CANCEL_CURRENT = 1 << 28;
export const FLAG_UPDATE_CURRENT = 1 << 27;
export const FLAG_IMMUTABLE = 1 << 26;
export const FLAG_MUTABLE = 1 << 25;
export const FLAG_ALLOW_UNSAFE_IMPLICIT_INTENT = 1 << 24;

/** PendingIntent flags, possibly combined with Intent.FILL_IN_* flags (which govern fillIn). */
export type PendingIntentFlags = number;

/**
 * The system record behind a token as a holder's side names it: every field but the base Intent's
 * extras (pending-intent.ts PendingIntentRecord is the one).
 */
export interface TokenRecord {
  readonly id: number;
  readonly creatorUid: number;
  readonly creatorPackage: string;
  readonly flags: number;
  readonly canceled: boolean;
  readonly creatorTargetSdk: number;
  readonly creatorAllowsBackgroundStart: boolean;
  readonly intent: { readonly component: ComponentName | null; readonly package: string | null };
}

/** A holder's handle on a token. Equality is token identity (`sameToken`). */
export class PendingIntent {
  constructor(
    /** @internal */ readonly record: TokenRecord,
    /** The components the base Intent resolves to now (the ActivityManager's resolution). */
    private readonly resolver: () => ComponentName[],
  ) {}

  getCreatorUid(): number {
    return this.record.creatorUid;
  }

  getCreatorPackage(): string {
    return this.record.creatorPackage;
  }

  isImmutable(): boolean {
    return (this.record.flags & FLAG_IMMUTABLE) !== 0;
  }

  isActivity(): boolean {
    return true;
  }

  /** PendingIntent.queryIntentComponents (API 34): the components the base Intent resolves to now. */
  queryIntentComponents(): ComponentName[] {
    return this.resolver();
  }

  /** Hidden API isTargetedToPackage(): explicit component or package set. */
  isTargetedToPackage(): boolean {
    return this.record.intent.component !== null || this.record.intent.package !== null;
  }

  sameToken(other: PendingIntent | null): boolean {
    return other !== null && other.record === this.record;
  }

  toString(): string {
    return `PendingIntent{#${this.record.id} ${this.record.creatorPackage}}`;
  }
}
