/**
 * The generated statement history of payments' export_statement (payments-tools.ts): deterministic
 * lines per month, remembered in a bounded cache.
 */
import { hash } from 'node:crypto';
import { caches } from '../../base/caches.ts';
import type { JsonObject } from '../../base/json.ts';
import { toEur } from './payments-accounts.ts';

/** Statement lines per month: 12 months pass the 262144-byte inline limit, 2 months stay well under. */
export const STATEMENT_ENTRIES_PER_MONTH = 150;

const COUNTERPARTIES = [
  ['Stadtwerke Example GmbH', 'DE89370400440532013000', 'Electricity and water, customer no. 40417733'],
  ['Example Supermarkt KG', 'DE02120300000000202051', 'Card payment, store 0815, groceries and household'],
  ['Example Insurance AG', 'DE02500105170137075030', 'Household contents insurance, policy HR-7781-22'],
  ['ACME Employer Ltd', 'GB82WEST12345698765432', 'Salary, payroll run, employee number 000417'],
  ['Example Telecom SE', 'DE02100500000054540402', 'Mobile and broadband contract 555-0142, monthly fee'],
] as const;

/** A pure, deterministic 32-bit hash (so a statement is the same bytes on every call). */
function hash32(text: string): number {
  return hash('sha256', text, 'buffer').readUInt32BE(0);
}

function statementMonth(nowMs: number, monthsBack: number): { year: number; month: number } {
  const now = new Date(nowMs);
  const index = now.getUTCFullYear() * 12 + now.getUTCMonth() - monthsBack;
  return { year: Math.floor(index / 12), month: (index % 12) + 1 };
}

/**
 * The generated history of an account: STATEMENT_ENTRIES_PER_MONTH lines per month, newest month
 * first. It depends on the current month only, and generating it hashes every line, so it is
 * remembered (frozen; bounded: cleared when full) — large-result scenarios ask for it on every call.
 */
export function generatedEntries(accountId: string, months: number, nowMs: number): readonly JsonObject[] {
  const { year, month } = statementMonth(nowMs, 0);
  return statements.get(`${accountId}|${months}|${year}-${month}`, () =>
    Object.freeze(generateEntries(accountId, months, nowMs).map((e) => Object.freeze(e))),
  );
}

const statements = caches.memo<string, readonly JsonObject[]>(
  'providers/apps/payments: generated statements',
  64,
);

function generateEntries(accountId: string, months: number, nowMs: number): JsonObject[] {
  const entries: JsonObject[] = [];
  for (let m = 0; m < months; m++) {
    const { year, month } = statementMonth(nowMs, m);
    const ym = `${year}-${String(month).padStart(2, '0')}`;
    for (let i = 0; i < STATEMENT_ENTRIES_PER_MONTH; i++) {
      const h = hash32(`${accountId}/${ym}/${i}`);
      const [name, iban, description] = COUNTERPARTIES[h % COUNTERPARTIES.length] as readonly [
        string,
        string,
        string,
      ];
      const credit = name.startsWith('ACME');
      const cents = 100 + (h % 250_000);
      entries.push({
        booking_id: `BK-${accountId}-${ym}-${String(i).padStart(3, '0')}`,
        date: `${ym}-${String(1 + (h % 28)).padStart(2, '0')}`,
        counterparty: name,
        iban,
        description,
        amount: toEur(credit ? cents : -cents),
        currency: 'EUR',
      });
    }
  }
  return entries;
}
