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
 */
import { hash } from 'node:crypto';
import { caches } from '../../base/caches.ts';
import type { JsonObject } from '../../base/json.ts';
import type { App, AppFactory } from '../../sim/app.ts';
import type { AppContext } from '../../sim/context.ts';
import type { PackageSpec } from '../../sim/manifest.ts';
import type { StoreTransaction } from '../../sim/storage.ts';
import type { World } from '../../sim/world.ts';
import { CONFIRM_ACTIVITY } from '../sdk/confirmations.ts';
import { ScopeGrantPolicy } from '../sdk/grants.ts';
import { CETP_PROVIDER, providerPackage } from '../sdk/manifest.ts';
import { CetpV2ContentProvider, type ProviderConfig } from '../sdk/provider.ts';
import {
  type AccessDecision,
  type AuthorizationRequest,
  type CetpProviderDescriptor,
  durableMutationExecutor,
  type MutationExecutor,
  type MutationTool,
  type ProviderOptions,
  type ReadTool,
  type ToolCall,
  ToolFailure,
} from '../sdk/types.ts';

export const PAYMENTS_PACKAGE = 'com.example.payments';
export const PAYMENTS_AUTHORITY = 'com.example.payments.clawseed.tools';

/** The seed file `seedAccounts` writes into the payments package's files: owner package → accounts. */
const SEED_FILE = 'payments-seed/accounts.json';
const BALANCES = 'payments.balances';
const LEDGER = 'payments.ledger';
const TRANSFERS = 'payments.transfers';
const RECONCILIATIONS = 'payments.reconciliations';
const META = 'payments.meta';

export const TRANSFER_MAX_EUR = 10_000;
/** The pre-commit checks of a transfer, each taking TRANSFER_STEP_MS. */
export const TRANSFER_STEPS = [
  'Fraud screening',
  'Sanctions screening',
  'Payee verification',
  'Clearing route selection',
  'Settlement window check',
] as const;
export const TRANSFER_STEP_MS = 2_000;
export const RECONCILE_BATCHES = 10;
export const RECONCILE_BATCH_MS = 1_000;
/** Statement lines per month: 12 months pass the 262144-byte inline limit, 2 months stay well under. */
export const STATEMENT_ENTRIES_PER_MONTH = 150;

export interface SeedAccount {
  readonly id: string;
  /** Opening balance in EUR. */
  readonly balance: number;
}

type SeedFile = Record<string, SeedAccount[]>;

interface Account {
  readonly id: string;
  readonly openingCents: number;
}

interface LedgerLine extends JsonObject {
  transfer_id: string;
  booked_at_ms: number;
  to_iban: string;
  reference: string;
  amount_cents: number;
}

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

const toCents = (eur: number) => Math.round(eur * 100);
const toEur = (cents: number) => cents / 100;

/** The accounts the caller's UID owns (see the module comment). */
function accountsOf(call: ToolCall): Account[] {
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

function ownAccount(call: ToolCall, accountId: string): Account | undefined {
  return accountsOf(call).find((a) => a.id === accountId);
}

async function balanceCents(call: ToolCall, account: Account, tx?: StoreTransaction): Promise<number> {
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

const readAnnotations = {
  effect: 'read',
  risk: 'low',
  destructive: false,
  idempotent: true,
  openWorld: false,
  confirmation: 'never',
  execution: 'sync',
} as const;

const money = { type: 'number' } as const;

export const getBalance: ReadTool = {
  name: 'get_balance',
  title: 'Account balances',
  description: 'Lists your accounts and their current balances',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  outputSchema: {
    type: 'object',
    properties: {
      accounts: {
        type: 'array',
        items: {
          type: 'object',
          properties: { account_id: { type: 'string' }, balance: money, currency: { enum: ['EUR'] } },
          required: ['account_id', 'balance', 'currency'],
        },
      },
    },
    required: ['accounts'],
  },
  scopes: ['payments.read'],
  annotations: readAnnotations,
  read: async (call) => {
    const accounts: JsonObject[] = [];
    for (const account of accountsOf(call)) {
      const cents = await balanceCents(call, account);
      accounts.push({ account_id: account.id, balance: toEur(cents), currency: 'EUR' });
    }
    return { accounts };
  },
};

interface TransferArgs {
  from_account: string;
  to_iban: string;
  amount: number;
  currency: 'EUR';
  reference: string;
}

export const transfer: MutationTool = {
  name: 'transfer',
  title: 'Send money',
  description: 'Transfers money from one of your accounts to an IBAN',
  inputSchema: {
    type: 'object',
    properties: {
      from_account: { type: 'string', minLength: 1, maxLength: 34 },
      to_iban: { type: 'string', pattern: '^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$' },
      amount: { type: 'number', exclusiveMinimum: 0, maximum: TRANSFER_MAX_EUR },
      currency: { enum: ['EUR'] },
      reference: { type: 'string', maxLength: 140 },
    },
    required: ['from_account', 'to_iban', 'amount', 'currency', 'reference'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      transfer_id: { type: 'string' },
      status: { enum: ['booked'] },
      from_account: { type: 'string' },
      to_iban: { type: 'string' },
      amount: money,
      currency: { enum: ['EUR'] },
      reference: { type: 'string' },
      balance_after: money,
    },
    required: ['transfer_id', 'status', 'from_account', 'to_iban', 'amount', 'currency', 'balance_after'],
  },
  scopes: ['payments.transfer'],
  annotations: {
    effect: 'transaction',
    risk: 'high',
    destructive: true,
    idempotent: false,
    openWorld: true,
    confirmation: 'always',
    execution: 'sync_or_async',
  },
  validate: (call) => {
    const a = call.args as unknown as TransferArgs;
    if (!ownAccount(call, a.from_account)) return ['No such account.'];
    if (!isValidIban(a.to_iban)) return ['The payee IBAN is not valid.'];
    if (Math.abs(a.amount * 100 - Math.round(a.amount * 100)) > 1e-6)
      return ['The amount can have at most two decimals.'];
    // biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters is the point.
    if (/[\u0000-\u001f\u007f]/.test(a.reference)) return ['The reference contains control characters.'];
    return [];
  },
  describeForConfirmation: (call) => {
    const a = call.args as unknown as TransferArgs;
    const amount = `${a.amount.toFixed(2)} ${a.currency}`;
    return {
      object: `A transfer of ${amount} from account ${a.from_account} to ${a.to_iban}`,
      action: `Send ${amount}`,
      parameters: [
        ['Amount', a.amount.toFixed(2)],
        ['Currency', a.currency],
        ['Payee IBAN', a.to_iban],
        ['Reference', a.reference === '' ? '(none)' : a.reference],
        ['From account', a.from_account],
      ],
      irreversible: 'Once sent, the money cannot be recalled.',
    };
  },
  // The slow checks before the commit point: progress after each, stop as soon as cancel is asked.
  prepare: async (call, work) => {
    for (const [i, step] of TRANSFER_STEPS.entries()) {
      await call.context.sleep(TRANSFER_STEP_MS);
      if (await work.progress(i + 1, TRANSFER_STEPS.length, step)) return { checks_passed: i + 1 };
    }
    return { checks_passed: TRANSFER_STEPS.length };
  },
  mutate: async (call, tx) => {
    const a = call.args as unknown as TransferArgs;
    const account = ownAccount(call, a.from_account);
    if (!account) throw new ToolFailure('CONFLICT', 'The account is no longer available.');
    const amountCents = toCents(a.amount);
    const before = await balanceCents(call, account, tx);
    if (before < amountCents) throw new ToolFailure('CONFLICT', 'Insufficient funds.');
    const seq = (((await tx.get(META, 'transfer_seq')) as number | undefined) ?? 0) + 1;
    const transferId = `TRF-${String(seq).padStart(6, '0')}`;
    const now = call.context.currentTimeMillis();
    await tx.put(META, 'transfer_seq', seq);
    await tx.put(BALANCES, account.id, before - amountCents);
    await tx.put(TRANSFERS, transferId, {
      transfer_id: transferId,
      request_id: call.requestKey,
      owner_uid: call.caller.uid,
      from_account: account.id,
      to_iban: a.to_iban,
      amount_cents: amountCents,
      currency: a.currency,
      reference: a.reference,
      booked_at_ms: now,
    });
    const ledger = ((await tx.get(LEDGER, account.id)) as LedgerLine[] | undefined) ?? [];
    const line: LedgerLine = {
      transfer_id: transferId,
      booked_at_ms: now,
      to_iban: a.to_iban,
      reference: a.reference,
      amount_cents: amountCents,
    };
    await tx.put(LEDGER, account.id, [...ledger, line]);
    return {
      transfer_id: transferId,
      status: 'booked',
      from_account: account.id,
      to_iban: a.to_iban,
      amount: a.amount,
      currency: a.currency,
      reference: a.reference,
      balance_after: toEur(before - amountCents),
    };
  },
};

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
function generatedEntries(accountId: string, months: number, nowMs: number): readonly JsonObject[] {
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

export const exportStatement: ReadTool = {
  name: 'export_statement',
  title: 'Export account statement',
  description: 'Exports the statement of one of your accounts for the last months',
  inputSchema: {
    type: 'object',
    properties: {
      account: { type: 'string', minLength: 1, maxLength: 34 },
      months: { type: 'integer', minimum: 1, maximum: 24 },
    },
    required: ['account', 'months'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      account: { type: 'string' },
      entries: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            booking_id: { type: 'string' },
            date: { type: 'string' },
            counterparty: { type: 'string' },
            description: { type: 'string' },
            amount: money,
            currency: { enum: ['EUR'] },
          },
          required: ['booking_id', 'date', 'counterparty', 'description', 'amount', 'currency'],
        },
      },
    },
    required: ['account', 'entries'],
  },
  scopes: ['payments.read'],
  annotations: readAnnotations,
  validate: (call) =>
    ownAccount(call, (call.args as { account: string }).account) ? [] : ['No such account.'],
  read: async (call) => {
    const { account, months } = call.args as { account: string; months: number };
    const booked = ((await call.context.storage.get(LEDGER, account)) as LedgerLine[] | undefined) ?? [];
    const transfers = booked.map((l) => ({
      booking_id: l.transfer_id,
      date: new Date(l.booked_at_ms).toISOString().slice(0, 10),
      counterparty: l.to_iban,
      iban: l.to_iban,
      description: l.reference === '' ? 'Transfer' : l.reference,
      amount: -toEur(l.amount_cents),
      currency: 'EUR',
    }));
    const history = generatedEntries(account, months, call.context.currentTimeMillis());
    return { account, entries: [...transfers, ...history] };
  },
};

export const reconcileAccounts: MutationTool = {
  name: 'reconcile_accounts',
  title: 'Reconcile accounts',
  description: 'Matches your booked transfers against the clearing house and records the reconciliation',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  outputSchema: {
    type: 'object',
    properties: {
      reconciled_accounts: { type: 'array', items: { type: 'string' } },
      discrepancies: { type: 'integer', minimum: 0 },
      reconciled_at: { type: 'string' },
    },
    required: ['reconciled_accounts', 'discrepancies', 'reconciled_at'],
  },
  scopes: ['payments.admin'],
  annotations: {
    effect: 'update',
    risk: 'low',
    destructive: false,
    idempotent: true,
    openWorld: true,
    confirmation: 'never',
    execution: 'sync_or_async',
  },
  describeForConfirmation: (call) => ({
    object: `Accounts ${accountsOf(call)
      .map((a) => a.id)
      .join(', ')}`,
    action: 'Reconcile the accounts',
    parameters: [],
    irreversible: null,
  }),
  prepare: async (call, work) => {
    for (let batch = 1; batch <= RECONCILE_BATCHES; batch++) {
      await call.context.sleep(RECONCILE_BATCH_MS);
      const message = `Matched batch ${batch} of ${RECONCILE_BATCHES}`;
      if (await work.progress(batch, RECONCILE_BATCHES, message)) return null;
    }
    return null;
  },
  mutate: async (call, tx) => {
    const ids = accountsOf(call).map((a) => a.id);
    const at = new Date(call.context.currentTimeMillis()).toISOString();
    await tx.put(RECONCILIATIONS, call.requestKey, {
      owner_uid: call.caller.uid,
      accounts: ids,
      reconciled_at: at,
    });
    return { reconciled_accounts: ids, discrepancies: 0, reconciled_at: at };
  },
};

export const PAYMENT_TOOLS = [getBalance, transfer, exportStatement, reconcileAccounts] as const;

/** The provider's descriptor: one constant object, so what is judged per descriptor is judged once. */
const PAYMENTS_DESCRIPTOR: CetpProviderDescriptor = {
  providerId: PAYMENTS_PACKAGE,
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
};

export class PaymentsToolProvider extends CetpV2ContentProvider {
  private readonly policy = new ScopeGrantPolicy({
    freeScopes: ['payments.read'],
    grantableScopes: ['payments.transfer', 'payments.admin'],
  });

  constructor(private readonly options: Partial<ProviderOptions> = {}) {
    super();
  }

  protected override config(): ProviderConfig {
    return {
      descriptor: PAYMENTS_DESCRIPTOR,
      tools: PAYMENT_TOOLS,
      options: { versions: [2], ...this.options },
    };
  }

  protected override mutationExecutor(): MutationExecutor {
    return durableMutationExecutor(this.context);
  }

  protected override authorize(request: AuthorizationRequest): Promise<AccessDecision> {
    return this.policy.authorize(request);
  }
}

/** The payments package: a v2-only provider (version=2, versions="2", 2.1-07). */
export function paymentsPackage(cert = 'payments-release'): PackageSpec {
  return providerPackage({
    packageName: PAYMENTS_PACKAGE,
    authority: PAYMENTS_AUTHORITY,
    versions: [2],
    cert,
  });
}

/** The app factory: a fresh provider (and its confirmation Activity) per process. */
export function paymentsApp(options: Partial<ProviderOptions> = {}): AppFactory {
  return (_context: AppContext): App => {
    const provider = new PaymentsToolProvider(options);
    return {
      providers: { [CETP_PROVIDER]: provider },
      activities: { [CONFIRM_ACTIVITY]: CetpV2ContentProvider.confirmationActivity(() => provider) },
    };
  };
}
