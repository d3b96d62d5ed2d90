/**
 * The accounts of payments (payments.ts): the seed file, the durable stores, which accounts a
 * caller's UID owns and their balances, money in cents, and the IBAN check. See payments.ts's module
 * comment for the rules.
 */
import type { JsonObject } from '../../base/json.ts';
import type { StoreTransaction } from '../../sim/storage/storage.ts';
import type { ToolCall } from '../sdk/types.ts';

/** The seed file `seedAccounts` writes into the payments package's files: owner package → accounts. */
export const SEED_FILE = 'payments-seed/accounts.json';
export const BALANCES = 'payments.balances';
export const LEDGER = 'payments.ledger';
export const TRANSFERS = 'payments.transfers';
export const RECONCILIATIONS = 'payments.reconciliations';
export const META = 'payments.meta';

export interface SeedAccount {
  readonly id: string;
  /** Opening balance in EUR. */
  readonly balance: number;
}

export type SeedFile = Record<string, SeedAccount[]>;

export interface Account {
  readonly id: string;
  readonly openingCents: number;
}

export interface LedgerLine extends JsonObject {
  transfer_id: string;
  booked_at_ms: number;
  to_iban: string;
  reference: string;
  amount_cents: number;
}

export const toCents = (eur: number) => Math.round(eur * 100);
export const toEur = (cents: number) => cents / 100;

/** The accounts the caller's UID owns (see the module comment). */
export function accountsOf(call: ToolCall): Account[] {
  const raw = call.context.readFile(SEED_FILE);
  const seeds = raw ? (JSON.parse(new TextDecoder().decode(raw)) as SeedFile) : {};
  const seeded = call.caller.packages.flatMap((p) =>
    (seeds[p] ?? []).map((a) => ({ id: a.id, openingCents: toCents(a.balance) })),
  );
  if (seeded.length > 0) return seeded;
  const uid = call.caller.uid;
  return [
    { id: `CHK-${uid}`, openingCents: 500_000 },
    { id: `SAV-${uid}`, openingCents: 2_000_000 },
  ];
}

export function ownAccount(call: ToolCall, accountId: string): Account | undefined {
  return accountsOf(call).find((a) => a.id === accountId);
}

export async function balanceCents(call: ToolCall, account: Account, tx?: StoreTransaction): Promise<number> {
  const stored = tx
    ? await tx.get(BALANCES, account.id)
    : await call.context.storage.get(BALANCES, account.id);
  return typeof stored === 'number' ? stored : account.openingCents;
}

/** ISO 13616 IBAN check: country, check digits, then mod 97 of the rearranged number is 1. */
export function isValidIban(iban: string): boolean {
  if (!/^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$/.test(iban)) return false;
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (const ch of rearranged) {
    const digits = /[A-Z]/.test(ch) ? String(ch.charCodeAt(0) - 55) : ch;
    for (const d of digits) remainder = (remainder * 10 + Number(d)) % 97;
  }
  return remainder === 1;
}
