/**
 * ExternalToolBridge — the agent-facing API over every discovered provider (spec §3.1, §8, §10).
 *
 * - refresh() discovers providers (discovery.ts) and keeps one client per authority: a CetpClient
 *   for v2, a LegacyClient for a v1-only manifest. A provider refused at discovery, or disabled by
 *   a failed negotiation, exposes no tool, v1 or v2 (8-03).
 * - listTools() lists the tools of every usable provider, sorted by (provider_id, tool_name) — never
 *   by scan order or label (3.1-08). The display name is local and may change (3.1-06).
 * - execute(provider_id, tool_name, args) routes by exactly that pair (3.1-07). A provider_id is
 *   routable only for a client whose package owns it (3.1-02); if two clients claim the same id,
 *   the one whose package IS that id wins and the other is not routable.
 * - Outcomes are typed (outcomes.ts), values are UntrustedValue, explanations are the consumer's.
 * - resumePending() picks up journaled executions after a consumer restart (journal.ts).
 */

import type { JsonObject, JsonValue } from '../base/json.ts';
import type { ToolAnnotations } from '../protocol/index.ts';
import type { AppContext } from '../sim/app/context.ts';
import { recordAudit } from './audit.ts';
import { CetpClient } from './client.ts';
import { type DiscoveredProvider, discoverProviders, type RefusedProvider } from './discovery.ts';
import { type ExecuteOptions, executeOnClient, resumeOnClient } from './invoke.ts';
import { ExecutionJournal } from './journal.ts';
import { LegacyClient } from './legacy.ts';
import { CancelSignal } from './operations.ts';
import { type ConsumerConfig, type ConsumerOptionsInit, resolveConsumerOptions } from './options.ts';
import { failure, type ToolOutcome } from './outcomes.ts';
import type { UntrustedText } from './untrusted.ts';

export interface AgentTool {
  readonly providerId: string;
  readonly name: string;
  readonly version: 1 | 2;
  /**
   * Local display name (may change; never used for routing): `provider_id › tool name`, built only
   * from identifiers the consumer checked — never from the provider's name or title, which are
   * untrusted text (7.3-01, 4.2-04) and reach the agent only as `title` / `description`.
   */
  readonly displayName: string;
  readonly title: UntrustedText;
  readonly description: UntrustedText;
  /** Untrusted data: the checked input schema. */
  readonly inputSchema: JsonObject;
  /** null for v1 tools, which declare none. */
  readonly annotations: ToolAnnotations | null;
}

export interface ProviderStatus {
  readonly packageName: string;
  readonly authority: string | null;
  readonly providerId: string | null;
  readonly version: 1 | 2 | null;
  readonly state: 'idle' | 'ready' | 'unavailable' | 'disabled' | 'refused';
  readonly reason: string | null;
}

type Client = CetpClient | LegacyClient;

export class ExternalToolBridge {
  readonly config: ConsumerConfig;
  readonly journal: ExecutionJournal;
  private readonly clients = new Map<string, Client>();
  private refused: readonly RefusedProvider[] = [];
  private refreshed = false;

  constructor(
    readonly context: AppContext,
    options: ConsumerOptionsInit | ConsumerConfig = {},
  ) {
    this.config = 'gates' in options ? options : resolveConsumerOptions(options);
    this.journal = new ExecutionJournal(context, this.config.parts);
  }

  /** Discovers providers; new ones get a client, vanished ones are dropped. */
  refresh(): void {
    const found = discoverProviders(this.context, this.config.gates);
    const keep = new Set(found.providers.map((p) => p.authority));
    for (const authority of [...this.clients.keys()])
      if (!keep.has(authority)) this.clients.delete(authority);
    for (const p of found.providers) {
      const existing = this.clients.get(p.authority);
      if (
        existing &&
        existing.provider.packageName === p.packageName &&
        existing.provider.providerUid === p.providerUid
      )
        continue;
      this.clients.set(p.authority, this.newClient(p));
    }
    const known = new Set(this.refused.map((r) => `${r.packageName}/${r.serviceName}/${r.reason}`));
    for (const r of found.refused) {
      if (known.has(`${r.packageName}/${r.serviceName}/${r.reason}`)) continue;
      recordAudit(this.context, {
        event: 'provider.disabled',
        package: r.packageName,
        provider_id: null,
        reason: r.reason,
        temporary: false,
      });
    }
    this.refused = found.refused;
    this.refreshed = true;
  }

  /** Connects every provider (negotiate and list for v2, list for v1), in a fixed order. */
  async connectAll(): Promise<ProviderStatus[]> {
    if (!this.refreshed) this.refresh();
    for (const client of this.sortedClients()) await this.connectClient(client);
    return this.providers();
  }

  /** Connects one client; 'ok', or whether its failure is temporary. */
  private async connectClient(client: Client, patient = false): Promise<'ok' | 'temporary' | 'permanent'> {
    if (client instanceof LegacyClient) {
      if (await client.connect()) return 'ok';
      return client.state.kind === 'unavailable' ? 'temporary' : 'permanent';
    }
    // An execution the agent asked for waits out a transient failure; a listing does not.
    const r = patient ? await client.connectPatiently() : await client.connect();
    if (r.ok) return 'ok';
    const p = client.provider;
    const { gates } = this.config;
    const downgrades = this.config.parts.fallsBackToV1(gates);
    if (downgrades && p.versions.includes(1)) {
      // Planted bug (or the fallback rules ablated): a v2 provider that failed is used through v1.
      const legacy = new LegacyClient(this.context, { ...p, protocol: 1 }, this.config);
      this.clients.set(p.authority, legacy);
      return this.connectClient(legacy, patient);
    }
    return r.temporary ? 'temporary' : 'permanent';
  }

  providers(): ProviderStatus[] {
    const out: ProviderStatus[] = this.sortedClients().map((c) => {
      const s = c.state;
      return {
        packageName: c.provider.packageName,
        authority: c.provider.authority,
        providerId: c instanceof LegacyClient ? c.providerId : c.providerId,
        version: c instanceof LegacyClient ? 1 : 2,
        state: s.kind,
        reason: 'reason' in s ? s.reason : null,
      };
    });
    for (const r of this.refused) {
      out.push({
        packageName: r.packageName,
        authority: r.authority,
        providerId: null,
        version: null,
        state: 'refused',
        reason: r.reason,
      });
    }
    return out;
  }

  /** Every usable tool, sorted by (provider_id, name). */
  async listTools(): Promise<AgentTool[]> {
    this.refresh(); // a PackageManager query, no Binder call: picks up installs and removals
    await this.connectAll();
    const tools: AgentTool[] = [];
    for (const [providerId, client] of this.routes()) {
      // A v1 tool has no title of its own (its name stands in) and no annotations (8-04).
      const listed =
        client instanceof LegacyClient
          ? client.tools().map((t) => ({
              ...t,
              version: 1 as const,
              title: { trust: 'untrusted' as const, text: t.name, truncated: false },
              annotations: null,
            }))
          : client.tools().map((t) => ({ ...t, version: 2 as const }));
      for (const t of listed)
        tools.push({
          providerId,
          name: t.name,
          version: t.version,
          displayName: `${providerId} › ${t.name}`,
          title: t.title,
          description: t.description,
          inputSchema: t.inputSchema,
          annotations: t.annotations,
        });
    }
    return tools.sort((a, b) => cmp(a.providerId, b.providerId) || cmp(a.name, b.name));
  }

  /** A cancellation signal to pass in ExecuteOptions and raise from any task. */
  cancellation(): CancelSignal {
    return new CancelSignal();
  }

  /** Executes `tool_name` on the provider `provider_id` (3.1-07); args are serialised once. */
  execute(
    providerId: string,
    toolName: string,
    args: JsonValue,
    options: ExecuteOptions = {},
  ): Promise<ToolOutcome> {
    return this.executeJson(providerId, toolName, JSON.stringify(args), options);
  }

  /** As execute, with the exact args JSON text (sent, and re-sent, byte for byte). */
  async executeJson(
    providerId: string,
    toolName: string,
    json: string,
    options: ExecuteOptions = {},
  ): Promise<ToolOutcome> {
    const client = await this.route(providerId);
    if (client === null || 'unavailable' in client) {
      const source = { providerId, tool: toolName, executionId: this.context.seededUuid(), requestId: null };
      if (client === null) return failure(source, { kind: 'provider_not_found' });
      return failure(source, { kind: 'provider_unavailable', temporary: client.unavailable === 'temporary' });
    }
    if (client instanceof LegacyClient) return client.execute(toolName, json, this.context.seededUuid());
    return executeOnClient(client, toolName, json, options);
  }

  /** Resumes every journaled execution that has not ended (after a consumer restart). */
  async resumePending(options: ExecuteOptions = {}): Promise<ToolOutcome[]> {
    if (!this.refreshed) this.refresh();
    const outcomes: ToolOutcome[] = [];
    for (const entry of await this.journal.pending()) {
      const client = this.sortedClients().find(
        (c): c is CetpClient => c instanceof CetpClient && c.provider.packageName === entry.packageName,
      );
      if (!client) {
        outcomes.push(
          failure(
            {
              providerId: entry.providerId,
              tool: entry.tool,
              executionId: entry.executionId,
              requestId: entry.requestId,
            },
            { kind: 'outcome_unknown', reason: 'provider_gone' },
          ),
        );
        continue;
      }
      outcomes.push(await resumeOnClient(client, entry, options));
    }
    return outcomes;
  }

  /** The client routable for `providerId`, connecting the candidates that could own it. */
  private async route(
    providerId: string,
  ): Promise<Client | { unavailable: 'temporary' | 'permanent' } | null> {
    const owns = (client: Client) => {
      const pkg = client.provider.packageName;
      return providerId === pkg || providerId.startsWith(`${pkg}.`);
    };
    if (!this.refreshed || !this.sortedClients().some(owns)) this.refresh();
    let sawTemporary = false;
    let candidates = 0;
    for (const client of this.sortedClients()) {
      if (!owns(client)) continue;
      candidates++;
      if ((await this.connectClient(client, true)) === 'temporary') sawTemporary = true;
    }
    const found = this.routes().get(providerId);
    if (found) return found;
    if (sawTemporary) return { unavailable: 'temporary' };
    // A provider refused at discovery (e.g. 2.1-08) or disabled is known, but unusable.
    const refused = this.refused.some((r) => r.packageName === providerId);
    return candidates > 0 || refused ? { unavailable: 'permanent' } : null;
  }

  /** provider_id → client, for ready clients; conflicts resolved by package ownership (3.1-02). */
  private routes(): Map<string, Client> {
    const byId = new Map<string, Client[]>();
    for (const client of this.sortedClients()) {
      const id =
        client instanceof LegacyClient
          ? client.state.kind === 'ready'
            ? client.providerId
            : null
          : client.providerId;
      if (id === null) continue;
      byId.set(id, [...(byId.get(id) ?? []), client]);
    }
    const routes = new Map<string, Client>();
    for (const [id, candidates] of byId) {
      const chosen =
        candidates.length === 1 ? candidates[0] : candidates.find((c) => c.provider.packageName === id);
      if (chosen) routes.set(id, chosen);
    }
    return new Map([...routes].sort(([a], [b]) => cmp(a, b)));
  }

  private sortedClients(): Client[] {
    return [...this.clients.values()].sort(
      (a, b) =>
        cmp(a.provider.packageName, b.provider.packageName) ||
        cmp(a.provider.authority, b.provider.authority),
    );
  }

  private newClient(p: DiscoveredProvider): Client {
    const v1 = p.protocol === 1;
    return v1
      ? new LegacyClient(this.context, p, this.config)
      : new CetpClient(this.context, p, this.config, this.journal);
  }
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
