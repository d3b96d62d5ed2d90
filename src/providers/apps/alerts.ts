/**
 * alerts — the spec's example provider (§3.3, §10): price alerts on securities, dual stack (v1 and
 * v2). Tools:
 * - get_quote (read, no scope): the only tool a v1 caller sees (2.1-06, NOTES 9);
 * - list_alerts (read, scope alerts.read, granted to any caller);
 * - create_alert (create, moderate, confirmation=provider_policy, sync_or_async; scope alerts.write,
 *   granted by the user in the provider's UI): asks for confirmation when the alert price is more
 *   than 20% away from the current quote — a runtime risk above the static declaration (3.4-12);
 * - delete_alert (delete ⇒ confirmation=always, destructive; scope alerts.write);
 * - clear_alerts (delete ⇒ confirmation=always, destructive; scope alerts.write): a sensitive tool
 *   hidden completely (7.2-02) from callers that do not hold a live alerts.write grant — listed only
 *   for them (7.2-01); a call of it by a caller it is hidden from is TOOL_NOT_FOUND (5-12), or a scope
 *   error under the provider reading `hiddenTool: 'scope_error'` (NOTES 14).
 * Business rules beyond the schema (7.3-04): known symbols only, price at most 10× the quote, only
 * the caller's own alerts can be deleted.
 */

import type { JsonObject } from '../../base/json.ts';
import type { AppFactory } from '../../sim/app/app.ts';
import type { AppContext } from '../../sim/app/context.ts';
import type { PackageSpec } from '../../sim/pm/manifest.ts';
import type { StoreTransaction } from '../../sim/storage/storage.ts';
import type { Intent } from '../../sim/ui/intent.ts';
import type { GrantRecord } from '../sdk/confirmations.ts';
import { defineProvider } from '../sdk/define.ts';
import { identityFingerprint } from '../sdk/identity.ts';
import { GRANTS } from '../sdk/records.ts';
import {
  type CallerIdentity,
  type MutationTool,
  type ProviderOptions,
  type ReadTool,
  type ToolCall,
  ToolFailure,
} from '../sdk/types.ts';
import { CONFIRMED_DELETE_ANNOTATIONS, READ_ANNOTATIONS } from './annotations.ts';
import { argsSchema, NO_ARGS, resultSchema } from './tool-schemas.ts';

export const ALERTS_PACKAGE = 'com.example.alerts';
export const ALERTS_AUTHORITY = 'com.example.alerts.clawseed.tools';

const QUOTES: Readonly<Record<string, number>> = { AAPL: 190, MSFT: 410, GOOG: 170, TSLA: 250, SAP: 180 };
/** Listed but delisted: the quote feed fails for it (an internal error the SDK must not leak). */
const DELISTED = 'DLST';

interface AlertRow extends JsonObject {
  alert_id: string;
  symbol: string;
  price: number;
  owner_uid: number;
}

const symbolSchema = { type: 'string', minLength: 1, maxLength: 12 } as const;

export const getQuote: ReadTool = {
  name: 'get_quote',
  title: 'Get quote',
  description: 'Returns the current price of a security',
  inputSchema: argsSchema({ symbol: symbolSchema }, ['symbol']),
  outputSchema: resultSchema({ symbol: { type: 'string' }, price: { type: 'number' } }, ['symbol', 'price']),
  scopes: [],
  annotations: { ...READ_ANNOTATIONS, openWorld: true },
  validate: (call) => {
    const { symbol } = call.args as { symbol: string };
    return QUOTES[symbol] === undefined && symbol !== DELISTED ? ['Unknown symbol.'] : [];
  },
  read: async (call) => {
    const { symbol } = call.args as { symbol: string };
    if (symbol === DELISTED) {
      // The quote feed fails for a delisted symbol: an internal error the SDK must not leak (5-25).
      throw new Error(
        `QuoteFeed.fetch(${symbol}) returned NaN at QuoteFeed.kt:88 (/data/data/${ALERTS_PACKAGE}/feed.db)`,
      );
    }
    return { symbol, price: QUOTES[symbol] ?? 0 };
  },
};

export const listAlerts: ReadTool = {
  name: 'list_alerts',
  title: 'List price alerts',
  description: "Lists the caller's price alerts",
  inputSchema: NO_ARGS,
  outputSchema: resultSchema(
    {
      alerts: {
        type: 'array',
        items: {
          type: 'object',
          properties: { alert_id: { type: 'string' }, symbol: { type: 'string' }, price: { type: 'number' } },
          required: ['alert_id', 'symbol', 'price'],
        },
      },
    },
    ['alerts'],
  ),
  scopes: ['alerts.read'],
  annotations: READ_ANNOTATIONS,
  read: async (call) => {
    const rows = call.context.storage.snapshot('alerts');
    const mine = [...rows.values()]
      .map((r) => r as AlertRow)
      .filter((r) => r.owner_uid === call.caller.uid)
      .map((r) => ({ alert_id: r.alert_id, symbol: r.symbol, price: r.price }));
    await call.context.yield();
    return { alerts: mine };
  },
};

function priceDeviation(symbol: string, price: number): number {
  const quote = QUOTES[symbol] ?? price;
  return Math.abs(price - quote) / quote;
}

export const createAlert: MutationTool = {
  name: 'create_alert',
  title: '创建价格提醒',
  description: '为指定证券创建价格提醒',
  inputSchema: argsSchema({ symbol: { type: 'string' }, price: { type: 'number', exclusiveMinimum: 0 } }, [
    'symbol',
    'price',
  ]),
  outputSchema: resultSchema({ alert_id: { type: 'string' } }, ['alert_id']),
  scopes: ['alerts.write'],
  annotations: {
    effect: 'create',
    risk: 'moderate',
    destructive: false,
    idempotent: false,
    openWorld: false,
    confirmation: 'provider_policy',
    execution: 'sync_or_async',
  },
  validate: (call) => {
    const { symbol, price } = call.args as { symbol: string; price: number };
    const quote = QUOTES[symbol];
    if (quote === undefined) return ['Unknown symbol.'];
    if (price > quote * 10) return ['The alert price is implausibly far from the current price.'];
    return [];
  },
  // Runtime risk above the static "moderate" (3.4-12): a price far from the quote is likely a mistake.
  needsConfirmation: (call) => {
    const { symbol, price } = call.args as { symbol: string; price: number };
    return priceDeviation(symbol, price) > 0.2;
  },
  describeForConfirmation: (call) => {
    const { symbol, price } = call.args as { symbol: string; price: number };
    return {
      object: `A new price alert on ${symbol}`,
      action: 'Create a price alert',
      parameters: [
        ['Security', symbol],
        ['Alert price', String(price)],
        ['Current price', String(QUOTES[symbol] ?? '?')],
      ],
      irreversible: null,
    };
  },
  mutate: async (call: ToolCall, tx: StoreTransaction) => {
    const { symbol, price } = call.args as { symbol: string; price: number };
    const seq = (((await tx.get('alerts.meta', 'seq')) as number | undefined) ?? 0) + 1;
    const alertId = `ALRT-${seq}`;
    await tx.put('alerts.meta', 'seq', seq);
    const row: AlertRow = { alert_id: alertId, symbol, price, owner_uid: call.caller.uid };
    await tx.put('alerts', alertId, row);
    return { alert_id: alertId };
  },
};

export const deleteAlert: MutationTool = {
  name: 'delete_alert',
  title: 'Delete price alert',
  description: 'Deletes one of your price alerts',
  inputSchema: argsSchema({ alert_id: { type: 'string', pattern: '^ALRT-[0-9]+$' } }, ['alert_id']),
  outputSchema: resultSchema({ deleted: { type: 'boolean' }, alert_id: { type: 'string' } }, [
    'deleted',
    'alert_id',
  ]),
  scopes: ['alerts.write'],
  annotations: CONFIRMED_DELETE_ANNOTATIONS,
  validate: async (call) => {
    const row = (await call.context.storage.get('alerts', (call.args as { alert_id: string }).alert_id)) as
      | AlertRow
      | undefined;
    return row && row.owner_uid === call.caller.uid ? [] : ['No such alert.'];
  },
  describeForConfirmation: async (call) => {
    const id = (call.args as { alert_id: string }).alert_id;
    const row = (await call.context.storage.get('alerts', id)) as AlertRow | undefined;
    return {
      object: row ? `Alert ${id} on ${row.symbol} at ${row.price}` : `Alert ${id}`,
      action: 'Delete the price alert',
      parameters: [['Alert', id]],
      irreversible: 'The alert and its history are deleted permanently.',
    };
  },
  mutate: async (call, tx) => {
    const id = (call.args as { alert_id: string }).alert_id;
    const row = (await tx.get('alerts', id)) as AlertRow | undefined;
    if (!row || row.owner_uid !== call.caller.uid)
      throw new ToolFailure('CONFLICT', 'The alert no longer exists.');
    await tx.delete('alerts', id);
    return { deleted: true, alert_id: id };
  },
};

/**
 * Whether `caller` holds a live grant of `scope` for its current identity (the grant policy's test,
 * 7.1-06), read from the committed store without a scheduling point: listing tools stays one step.
 */
export function holdsGrant(caller: CallerIdentity, context: AppContext, scope: string): boolean {
  const now = context.currentTimeMillis();
  const identity = identityFingerprint(caller);
  const grants = (context.storage.peek(GRANTS, String(caller.uid)) as GrantRecord[] | undefined) ?? [];
  return grants.some((g) => g.scope === scope && g.identity === identity && g.expiresAtMs > now);
}

/** clear_alerts' visibility policy as data (the list-matches-visibility oracle reads it). */
export const CLEAR_ALERTS_VISIBILITY = { tool: 'clear_alerts', scope: 'alerts.write' } as const;

export const clearAlerts: MutationTool = {
  name: 'clear_alerts',
  title: 'Clear price alerts',
  description: 'Deletes all of your price alerts',
  inputSchema: NO_ARGS,
  outputSchema: resultSchema({ deleted: { type: 'integer', minimum: 0 } }, ['deleted']),
  scopes: ['alerts.write'],
  annotations: CONFIRMED_DELETE_ANNOTATIONS,
  // 7.2-02: hidden completely from a caller without a live alerts.write grant (7.2-01 lists it only
  // for those who hold one).
  isVisibleTo: (caller, context) => holdsGrant(caller, context, CLEAR_ALERTS_VISIBILITY.scope),
  describeForConfirmation: (call) => {
    const mine = [...call.context.storage.snapshot('alerts').values()].filter(
      (r) => (r as AlertRow).owner_uid === call.caller.uid,
    ).length;
    return {
      object: `All your price alerts (${mine})`,
      action: 'Delete all your price alerts',
      parameters: [['Alerts', String(mine)]],
      irreversible: 'The alerts and their history are deleted permanently.',
    };
  },
  mutate: async (call, tx) => {
    let deleted = 0;
    for (const id of await tx.keys('alerts')) {
      const row = (await tx.get('alerts', id)) as AlertRow | undefined;
      if (row?.owner_uid !== call.caller.uid) continue;
      await tx.delete('alerts', id);
      deleted++;
    }
    return { deleted };
  },
};

export const ALERT_TOOLS = [getQuote, listAlerts, createAlert, deleteAlert, clearAlerts] as const;

/** The alerts app: read scopes free to any caller, write scopes granted by the user (10-11). */
export const ALERTS_PROVIDER = defineProvider({
  packageName: ALERTS_PACKAGE,
  authority: ALERTS_AUTHORITY,
  versions: [1, 2],
  cert: 'alerts-release',
  descriptor: {
    providerName: 'Example App',
    description: '管理价格提醒和自选列表',
    scopes: [
      {
        name: 'alerts.read',
        title: '查看价格提醒',
        description: '读取价格提醒',
        access: 'read',
        sensitivity: 'financial',
      },
      {
        name: 'alerts.write',
        title: '管理价格提醒',
        description: '创建、修改和删除提醒',
        access: 'write',
        sensitivity: 'financial',
      },
    ],
  },
  tools: ALERT_TOOLS,
  authorize: { freeScopes: ['alerts.read'] },
});

/** The alerts provider class (subclass it to change one method). */
export const AlertToolProvider = ALERTS_PROVIDER.Provider;

/** The alerts package: a dual-stack provider (versions "1,2"). */
export function alertsPackage(cert = 'alerts-release'): PackageSpec {
  return ALERTS_PROVIDER.package(cert);
}

/** The app factory: a fresh provider (and its confirmation Activity) per process. */
export function alertsApp(options: Partial<ProviderOptions> = {}): AppFactory {
  return ALERTS_PROVIDER.app(options);
}

/** An explicit Intent to the alerts confirmation Activity (tests that forge launches use it). */
export function alertsConfirmIntent(): Intent {
  return ALERTS_PROVIDER.confirmIntent();
}
