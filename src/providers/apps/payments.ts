/**
 * payments — a bank-like reference provider, v2-only (manifest version=2, versions="2", 2.1-07),
 * that exercises what alerts does not: a high-risk `transaction` tool, long asynchronous work with
 * progress and cooperative cancellation, and results too large for a Bundle. Tools:
 * - get_balance (read, scope payments.read, free): the caller's accounts and balances;
 * - transfer (transaction, high, destructive ⇒ confirmation=always, 3.4-09; sync_or_async; scope
 *   payments.transfer, granted by the user): five slow pre-commit checks with progress, then the
 *   debit and the booked transfer in one transaction bound to the request id (10-06). Insufficient
 *   funds is found at commit and is a recorded business failure (CONFLICT);
 * - export_statement (read, scope payments.read): a deterministic statement whose JSON passes the
 *   262144-byte inline limit from 12 months on (a file with large_results, else RESULT_TOO_LARGE);
 * - reconcile_accounts (update, low, confirmation=never, sync_or_async; scope payments.admin,
 *   granted by the user): ten seconds of matching with progress, then a reconciliation marker.
 * A known backend imperfection is left in on purpose (LEGACY_SAVINGS_PREFIX): a default savings
 * account's statement carries interest lines whose amount is a string, which breaks the published
 * output schema; the SDK's own output check (4.2-03) answers INTERNAL_ERROR instead of sending it.
 * Business rules beyond the schema (7.3-04): the debited account must belong to the calling UID,
 * the payee IBAN must pass the ISO 13616 mod-97 check, amounts have at most two decimals, and the
 * reference has no control characters.
 *
 * Accounts. `seedAccounts(world, ownerPackage, accounts)` provisions accounts for an app before a
 * run (standing for the bank's backend sync: it writes the app's seed file into the payments
 * package's files). A caller owns the seeded accounts of every package of its UID. A UID with no
 * seeded account owns two default accounts, `CHK-<uid>` (5,000.00 EUR) and `SAV-<uid>`
 * (20,000.00 EUR). Account ids are global. Balances live in the durable store once an account has
 * been debited; until then the opening balance applies, so reads never write (3.4-08).
 *
 * The accounts are in payments-accounts.ts, the tools in payments-tools.ts (the statement history
 * in payments-statement.ts); this module is the app and provider wiring, and re-exports the tools.
 */
import type { AppFactory } from '../../sim/app/app.ts';
import type { PackageSpec } from '../../sim/pm/manifest.ts';
import type { World } from '../../sim/world.ts';
import { defineProvider } from '../sdk/define.ts';
import type { ProviderOptions } from '../sdk/types.ts';
import { SEED_FILE, type SeedAccount, type SeedFile } from './payments-accounts.ts';
import { PAYMENT_TOOLS } from './payments-tools.ts';

export { isValidIban, type SeedAccount } from './payments-accounts.ts';
export { STATEMENT_ENTRIES_PER_MONTH } from './payments-statement.ts';
export {
  exportStatement,
  getBalance,
  LEGACY_SAVINGS_PREFIX,
  PAYMENT_TOOLS,
  RECONCILE_BATCH_MS,
  RECONCILE_BATCHES,
  reconcileAccounts,
  TRANSFER_MAX_EUR,
  TRANSFER_STEP_MS,
  TRANSFER_STEPS,
  transfer,
} from './payments-tools.ts';

export const PAYMENTS_PACKAGE = 'com.example.payments';
export const PAYMENTS_AUTHORITY = 'com.example.payments.clawseed.tools';

/**
 * Provisions accounts for `ownerPackage` (and so for its UID) before the world runs. Calling it
 * again for the same owner replaces that owner's accounts.
 */
export function seedAccounts(world: World, ownerPackage: string, accounts: readonly SeedAccount[]): void {
  const raw = world.fds.readFileBytes(PAYMENTS_PACKAGE, SEED_FILE);
  const seeds = raw ? (JSON.parse(new TextDecoder().decode(raw)) as SeedFile) : {};
  seeds[ownerPackage] = accounts.map((a) => ({ id: a.id, balance: a.balance }));
  world.fds.writeFile(PAYMENTS_PACKAGE, SEED_FILE, new TextEncoder().encode(JSON.stringify(seeds)));
}

/** The payments app: payments.read free to any caller, transfer and admin granted by the user. */
export const PAYMENTS_PROVIDER = defineProvider({
  packageName: PAYMENTS_PACKAGE,
  authority: PAYMENTS_AUTHORITY,
  versions: [2],
  cert: 'payments-release',
  descriptor: {
    providerName: 'Example Bank',
    description: 'Balances, transfers and statements of your Example Bank accounts',
    scopes: [
      {
        name: 'payments.read',
        title: 'View accounts',
        description: 'Read balances and statements',
        access: 'read',
        sensitivity: 'financial',
      },
      {
        name: 'payments.transfer',
        title: 'Send money',
        description: 'Transfer money from your accounts; every transfer is confirmed in the bank app',
        access: 'write',
        sensitivity: 'financial',
      },
      {
        name: 'payments.admin',
        title: 'Reconcile accounts',
        description: 'Reconcile booked transfers with the clearing house',
        access: 'write',
        sensitivity: 'financial',
      },
    ],
  },
  tools: PAYMENT_TOOLS,
  authorize: { freeScopes: ['payments.read'] },
});

/** The payments provider class (subclass it to change one method). */
export const PaymentsToolProvider = PAYMENTS_PROVIDER.Provider;

/** The payments package: a v2-only provider (version=2, versions="2", 2.1-07). */
export function paymentsPackage(cert = 'payments-release'): PackageSpec {
  return PAYMENTS_PROVIDER.package(cert);
}

/** The app factory: a fresh provider (and its confirmation Activity) per process. */
export function paymentsApp(options: Partial<ProviderOptions> = {}): AppFactory {
  return PAYMENTS_PROVIDER.app(options);
}
