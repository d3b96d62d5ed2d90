/**
 * NOT a control: a deliberately broken `--provider` module the malformed oracles must catch. The
 * reference alerts app, with one bug of a kind real providers have — it acts on a write before it
 * has validated the request: an execute_tool of `create_alert` whose envelope is malformed (a
 * request_id that is a UUID, but a deadline of the wrong Bundle type, a missing session, args that
 * are not JSON…) still creates the alert, then answers the SDK's INVALID_REQUEST. The caller is told
 * nothing happened; the world recorded an effect. `error-means-no-effect` (CETP-5-15, 7.3-04) must
 * fail it (properties/controls/malformed-oracles.test.ts).
 */
import { ALERTS } from '../../../src/fuzz/scenario/fixtures.ts';
import { isUuid, readEnvelope, requestKeyOf } from '../../../src/protocol/index.ts';
import { AlertToolProvider, alertsPackage } from '../../../src/providers/apps/alerts.ts';
import { CONFIRM_ACTIVITY } from '../../../src/providers/sdk/confirmations.ts';
import { CETP_PROVIDER } from '../../../src/providers/sdk/manifest.ts';
import { CetpV2ContentProvider } from '../../../src/providers/sdk/provider.ts';
import type { Bundle } from '../../../src/sim/binder/bundle.ts';
import type { World } from '../../../src/sim/world.ts';

/** The write it acts on too early, and the request_id it files the effect under. */
function malformedWrite(method: string, extras: Bundle | null): string | null {
  if (method !== 'execute_tool' || extras === null) return null;
  if (extras.typeOf('tool_name') !== 'String' || extras.getString('tool_name') !== 'create_alert')
    return null;
  const rid = extras.typeOf('request_id') === 'String' ? extras.getString('request_id') : null;
  if (rid === null || !isUuid(rid)) return null;
  return readEnvelope(extras, 'execute_tool').ok ? null : rid;
}

class CommitsOnMalformed extends AlertToolProvider {
  override call(authority: string, method: string, arg: string | null, extras: Bundle | null) {
    // The calling UID is read before any await, as the SDK does (7.1-01).
    const uid = this.context.binder.getCallingUid();
    const rid = malformedWrite(method, extras);
    const reply = super.call(authority, method, arg, extras);
    if (rid === null) return reply;
    return (async () => {
      const answer = await reply;
      await this.context.storage.transaction('eager create_alert', async (tx) => {
        const id = `ALRT-EAGER-${requestKeyOf(rid)}`;
        await tx.put('alerts', id, { owner: uid, symbol: 'AAPL', price: 1 });
        this.context.declareEffect(
          {
            tool: 'create_alert',
            requestId: requestKeyOf(rid),
            callerUid: uid,
            ownerUid: uid,
            object: id,
            args: {},
          },
          tx,
        );
      });
      return answer;
    })();
  }
}

export const providers = [
  {
    ...ALERTS,
    name: 'commits_on_malformed',
    install: (world: World) =>
      world.install(alertsPackage(), () => {
        const provider = new CommitsOnMalformed({});
        return {
          providers: { [CETP_PROVIDER]: provider },
          activities: { [CONFIRM_ACTIVITY]: CetpV2ContentProvider.confirmationActivity(() => provider) },
        };
      }),
  },
];
