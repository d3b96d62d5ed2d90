/**
 * The agent-facing API of a generated consumer (what cetp-sim calls `ConsumerAgentApi`), a copy of
 * examples/scratch-agent/agent.ts parameterised by a `Policy` (policy.ts, conduct.ts): list the
 * tools of every usable provider, execute one by (provider_id, tool_name) (3.1-07), cancel.
 *
 * Before anything is sent, the args must be JSON within the session's max_request_bytes (4.1-08)
 * and fit the tool's input_schema. Then ONE request_id is drawn for the logical execution and, for
 * a write, journaled before the first attempt (4.1-04, 6-08). On every process start the journal's
 * open entries are resumed under their own request_ids (`resumeJournal`).
 */
import { type AppContext, type ConsumerAgentApi, protocol } from '../../../index.ts';
import { type Answer, answer, inWording, type UntrustedText } from './answers.ts';
import { Cancellation } from './cancellation.ts';
import { Channel } from './channel.ts';
import { Screen } from './confirmation.ts';
import { discover, type Provider } from './discovery.ts';
import { Execution, OPEN_CODES } from './execution.ts';
import { Journal } from './journal.ts';
import { LegacyConnection } from './legacy.ts';
import type { Policy } from './policy.ts';
import { Connection } from './session.ts';

export interface ListedTool {
  readonly providerId: string;
  readonly name: string;
  readonly version: 1 | 2;
  readonly title: UntrustedText;
  readonly description: UntrustedText | unknown;
  readonly inputSchema: unknown;
  readonly annotations: unknown;
}

type Link = { readonly provider: Provider } & (
  | { readonly v: 2; readonly connection: Connection }
  | { readonly v: 1; readonly connection: LegacyConnection }
);

/** Did the agent learn how the execution ended? (else the journal entry stays open) */
function settled(a: Answer): boolean {
  return a.kind !== 'outcome_unknown' && !(a.kind === 'rejected' && OPEN_CODES.has(a.code ?? ''));
}

export class ZooAgent implements ConsumerAgentApi<Cancellation> {
  readonly journal: Journal;
  private readonly screen: Screen;
  private links: Link[] = [];

  constructor(
    private readonly context: AppContext,
    private readonly policy: Policy,
  ) {
    this.journal = new Journal(context, policy.journal);
    this.screen = new Screen(context, policy.conduct);
  }

  /** Re-reads discovery (a PackageManager query, no Binder call); keeps what did not change. */
  private refresh(): Link[] {
    this.links = discover(this.context, this.policy.conduct).map((provider) => {
      const same = this.links.find(
        (l) =>
          l.provider.authority === provider.authority &&
          l.provider.uid === provider.uid &&
          l.provider.protocol === provider.protocol,
      );
      if (same) return same;
      const channel = new Channel(this.context, provider.authority, this.policy.callTimeoutMs);
      return provider.protocol === 2
        ? {
            provider,
            v: 2,
            connection: new Connection(this.context, channel, provider.packageName, this.policy),
          }
        : {
            provider,
            v: 1,
            connection: new LegacyConnection(this.context, channel, provider.packageName, this.policy),
          };
    });
    return this.links;
  }

  async listTools(): Promise<ListedTool[]> {
    const out: ListedTool[] = [];
    for (const link of this.refresh()) {
      const listed =
        link.v === 2
          ? await link.connection
              .connect()
              .then((c) => (c.ok ? { id: c.session.providerId, cat: c.session.catalogue } : null))
          : await link.connection
              .tools(true)
              .then((cat) => (cat ? { id: link.provider.packageName, cat } : null));
      if (!listed) continue;
      for (const t of listed.cat.tools.values()) {
        out.push({
          providerId: listed.id,
          name: t.name,
          version: link.v,
          title: t.title,
          description: this.policy.conduct.listedDescription(t.description),
          inputSchema: t.inputSchema,
          annotations: link.v === 2 ? t.annotations : null,
        });
      }
    }
    // By (provider_id, name) or (name, provider_id): never by discovery order or label (3.1-08).
    return this.policy.answers.listing === 'provider-then-name'
      ? out.sort((a, b) => cmp(a.providerId, b.providerId) || cmp(a.name, b.name))
      : out.sort((a, b) => cmp(a.name, b.name) || cmp(a.providerId, b.providerId));
  }

  cancellation(): Cancellation {
    return new Cancellation();
  }

  async executeJson(
    providerId: string,
    toolName: string,
    args: string,
    options: { readonly cancel?: Cancellation },
  ): Promise<Answer> {
    return inWording(await this.execute(providerId, toolName, args, options), this.policy.answers.wording);
  }

  private async execute(
    providerId: string,
    toolName: string,
    args: string,
    options: { readonly cancel?: Cancellation },
  ): Promise<Answer> {
    const source = { providerId, tool: toolName, requestId: null };
    const link = this.refresh().find(
      (l) => providerId === l.provider.packageName || providerId.startsWith(`${l.provider.packageName}.`),
    );
    if (!link) return answer(source, 'provider_not_found');
    if (link.v === 1) return link.connection.execute(toolName, args);
    const connected = await link.connection.connect(true);
    if (!connected.ok) {
      const v1 = new LegacyConnection(
        this.context,
        link.connection.channel,
        link.provider.packageName,
        this.policy,
      );
      return this.policy.conduct.afterFailedNegotiation(answer(source, 'provider_unavailable'), () =>
        v1.execute(toolName, args),
      );
    }
    const session = connected.session;
    if (session.providerId !== providerId) return answer(source, 'provider_not_found');
    const tool = session.catalogue.tools.get(toolName);
    if (!tool) return answer(source, 'tool_not_found');
    if (!argsFit(args, session.maxRequestBytes, tool.validateInput)) return answer(source, 'invalid_args');
    const requestId = this.context.seededUuid();
    const isWrite = tool.effect !== 'read';
    if (isWrite && this.policy.conduct.journalsWrites())
      await this.journal.begin({ requestId, packageName: link.provider.packageName, tool: toolName, args });
    const plan = {
      provider: link.provider,
      tool: toolName,
      args,
      requestId,
      cancel: options.cancel ?? null,
      resumed: false,
    };
    const result = await new Execution(
      this.context,
      link.connection,
      this.screen,
      plan,
      isWrite,
      this.policy,
    ).run();
    if (isWrite) await this.journal.end(requestId, settled(result));
    return result;
  }

  /** On start: every journaled write whose outcome we never learned, same id, same args bytes. */
  async resumeJournal(): Promise<Answer[]> {
    const out: Answer[] = [];
    for (const entry of await this.journal.takeOpen()) {
      const link = this.refresh().find((l) => l.provider.packageName === entry.packageName);
      if (link?.v !== 2) {
        await this.journal.end(entry.requestId, false);
        continue;
      }
      const plan = {
        provider: link.provider,
        tool: entry.tool,
        args: entry.args,
        requestId: this.policy.conduct.resumedRequestId(entry, this.context),
        cancel: null,
        resumed: true,
      };
      const result = await new Execution(
        this.context,
        link.connection,
        this.screen,
        plan,
        true,
        this.policy,
      ).run();
      await this.journal.end(entry.requestId, settled(result));
      out.push(result);
    }
    return out;
  }
}

function argsFit(args: string, maxBytes: number, validate: protocol.ToolValueValidator): boolean {
  if (protocol.utf8Length(args) > maxBytes) return false;
  try {
    return validate(JSON.parse(args)).length === 0;
  } catch {
    return false;
  }
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
