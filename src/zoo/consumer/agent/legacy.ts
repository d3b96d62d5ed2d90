/**
 * CETP v1, for a provider whose manifest declares 1 and not 2 (0-02, 8-07); never for one that
 * declares 2 (8-03, 8-08). The spec leaves v1's wire undefined; cetp-sim's reading: `list_tools`
 * answers `{"tools":[{name, description, input_schema}]}`, `execute_tool` takes `tool_name` and
 * `args`, no call carries protocol_version, and v1 is read-only — no request ids, no sessions.
 * What a v1 provider says is untrusted all the same.
 */
import { type AppContext, Bundle, type JsonValue } from '../../../index.ts';
import { type Answer, answer, ok, type Source, untrustedText } from './answers.ts';
import { type Catalogue, readV1Catalogue } from './catalogue.ts';
import { type CallResult, type Channel, closeAll } from './channel.ts';
import { backoffMs, type Policy } from './policy.ts';

export class LegacyConnection {
  private catalogue: Catalogue | null = null;

  constructor(
    private readonly context: AppContext,
    readonly channel: Channel,
    readonly packageName: string,
    private readonly policy: Policy,
  ) {}

  /** `listing`: an agent's listing, which re-reads the catalogue when the policy says so. */
  async tools(listing = false): Promise<Catalogue | null> {
    if (this.catalogue && !(listing && this.policy.v1Catalogue === 'every-listing')) return this.catalogue;
    const reply = await this.call('list_tools', new Bundle());
    if (reply.kind !== 'reply') return null;
    closeAll(reply.bundle);
    this.catalogue = readV1Catalogue(successData(reply.bundle), this.policy.answers.clipChars);
    return this.catalogue;
  }

  async execute(tool: string, args: string): Promise<Answer> {
    const source: Source = { providerId: this.packageName, tool, requestId: null };
    const catalogue = await this.tools();
    if (catalogue === null) return answer(source, 'provider_unavailable');
    const known = catalogue.tools.get(tool);
    if (!known) return answer(source, 'tool_not_found');
    const extras = new Bundle();
    extras.putString('tool_name', tool);
    extras.putString('args', args);
    const reply = await this.call('execute_tool', extras);
    if (reply.kind !== 'reply') return answer(source, 'provider_unavailable');
    closeAll(reply.bundle);
    const b = reply.bundle;
    if (b.getString('status') === 'error') {
      const code = b.getString('error_code') ?? 'UNRECOGNIZED';
      return answer(source, 'rejected', {
        code,
        providerMessage: untrustedText(b.getString('error_message'), this.policy.answers.clipChars),
      });
    }
    const data = successData(b);
    return data === undefined ? answer(source, 'invalid_response') : ok(source, 'inline', data);
  }

  /** v1 calls are reads: a lost one is simply asked again, a bounded number of times. */
  private async call(method: string, extras: Bundle): Promise<CallResult> {
    for (let retries = 0; ; retries++) {
      const reply = await this.channel.call(method, extras);
      if (reply.kind !== 'lost' || retries >= this.policy.maxRetries) return reply;
      await this.context.sleep(backoffMs(this.policy, retries));
    }
  }
}

function successData(b: Bundle): JsonValue | undefined {
  if (b.getString('status') !== 'success' || b.typeOf('data') !== 'String') return undefined;
  const raw = b.getString('data') ?? '';
  if (raw.length > 1_048_576) return undefined;
  try {
    return JSON.parse(raw) as JsonValue;
  } catch {
    return undefined;
  }
}
