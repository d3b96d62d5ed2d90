/**
 * The four tools of payments (payments.ts): get_balance, transfer, export_statement and
 * reconcile_accounts, with their schemas, annotations, business rules and effects.
 */
import type { JsonObject } from '../../base/json.ts';
import { type MutationTool, type ReadTool, ToolFailure } from '../sdk/types.ts';
import { READ_ANNOTATIONS } from './annotations.ts';
import {
  accountsOf,
  BALANCES,
  balanceCents,
  isValidIban,
  LEDGER,
  type LedgerLine,
  META,
  ownAccount,
  RECONCILIATIONS,
  TRANSFERS,
  toCents,
  toEur,
} from './payments-accounts.ts';
import { generatedEntries } from './payments-statement.ts';
import { argsSchema, NO_ARGS, resultSchema } from './tool-schemas.ts';

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

const money = { type: 'number' } as const;
/** An account of the caller, as the arguments name it. */
const accountId = { type: 'string', minLength: 1, maxLength: 34 } as const;

export const getBalance: ReadTool = {
  name: 'get_balance',
  title: 'Account balances',
  description: 'Lists your accounts and their current balances',
  inputSchema: NO_ARGS,
  outputSchema: resultSchema(
    {
      accounts: {
        type: 'array',
        items: {
          type: 'object',
          properties: { account_id: { type: 'string' }, balance: money, currency: { enum: ['EUR'] } },
          required: ['account_id', 'balance', 'currency'],
        },
      },
    },
    ['accounts'],
  ),
  scopes: ['payments.read'],
  annotations: READ_ANNOTATIONS,
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
  inputSchema: argsSchema(
    {
      from_account: accountId,
      to_iban: { type: 'string', pattern: '^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$' },
      amount: { type: 'number', exclusiveMinimum: 0, maximum: TRANSFER_MAX_EUR },
      currency: { enum: ['EUR'] },
      reference: { type: 'string', maxLength: 140 },
    },
    ['from_account', 'to_iban', 'amount', 'currency', 'reference'],
  ),
  outputSchema: resultSchema(
    {
      transfer_id: { type: 'string' },
      status: { enum: ['booked'] },
      from_account: { type: 'string' },
      to_iban: { type: 'string' },
      amount: money,
      currency: { enum: ['EUR'] },
      reference: { type: 'string' },
      balance_after: money,
    },
    ['transfer_id', 'status', 'from_account', 'to_iban', 'amount', 'currency', 'balance_after'],
  ),
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

/**
 * The backend's known imperfection, left in on purpose: default savings accounts (`SAV-<uid>`) are
 * still served by the legacy savings core, which reports each month's interest line with its amount
 * as a decimal string ("0.35"), where export_statement's published output schema says `number`.
 * The SDK's own output validation (CETP-4.2-03) is what keeps that off the wire: such a statement
 * is answered INTERNAL_ERROR (retryable), never a success that breaks the published contract. With
 * 4.2-03 switched off (rule ablation) the bad statement goes out and the output-schema oracle sees it.
 */
export const LEGACY_SAVINGS_PREFIX = 'SAV-';

function legacyInterestLines(account: string, months: number, nowMs: number): JsonObject[] {
  const lines: JsonObject[] = [];
  for (let m = 0; m < months; m++) {
    const d = new Date(nowMs);
    d.setUTCDate(1);
    d.setUTCMonth(d.getUTCMonth() - m);
    const ym = d.toISOString().slice(0, 7);
    lines.push({
      booking_id: `INT-${account}-${ym}`,
      date: `${ym}-01`,
      counterparty: 'Example Bank',
      description: 'Interest',
      amount: '0.35', // the legacy core's decimal string: breaks `amount: number`
      currency: 'EUR',
    });
  }
  return lines;
}

export const exportStatement: ReadTool = {
  name: 'export_statement',
  title: 'Export account statement',
  description: 'Exports the statement of one of your accounts for the last months',
  inputSchema: argsSchema(
    {
      account: accountId,
      months: { type: 'integer', minimum: 1, maximum: 24 },
    },
    ['account', 'months'],
  ),
  outputSchema: resultSchema(
    {
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
    ['account', 'entries'],
  ),
  scopes: ['payments.read'],
  annotations: READ_ANNOTATIONS,
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
    const now = call.context.currentTimeMillis();
    const history = generatedEntries(account, months, now);
    const legacy = account.startsWith(LEGACY_SAVINGS_PREFIX) ? legacyInterestLines(account, months, now) : [];
    return { account, entries: [...transfers, ...legacy, ...history] };
  },
};

export const reconcileAccounts: MutationTool = {
  name: 'reconcile_accounts',
  title: 'Reconcile accounts',
  description: 'Matches your booked transfers against the clearing house and records the reconciliation',
  inputSchema: NO_ARGS,
  outputSchema: resultSchema(
    {
      reconciled_accounts: { type: 'array', items: { type: 'string' } },
      discrepancies: { type: 'integer', minimum: 0 },
      reconciled_at: { type: 'string' },
    },
    ['reconciled_accounts', 'discrepancies', 'reconciled_at'],
  ),
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
