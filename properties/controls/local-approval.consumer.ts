/**
 * Control: a consumer with its own approval UI. The reference consumer app, asking the user in its
 * own Activity ("Allow the agent to …?") before every call of a write tool of moderate risk or more
 * — an extra gate in front of the provider's confirmation, never a substitute (nothing of it is
 * sent to the provider).
 *
 * Unusual but legal: the spec forbids only letting such a UI *replace* the provider's — "不允许
 * Consumer 的确认界面代替高风险操作所需的 Provider 侧确认" (CETP-1-02) and "Consumer 的“已确认”布尔值
 * 无效" (CETP-4.3-10). A consumer may ask its user first; the user then sees two screens, and a
 * refusal on the first one means the provider is never called.
 */
import { consumerApp, consumerPackage } from '../../src/consumer/app.ts';
import { referenceConsumer } from '../../src/consumer/index.ts';
import { CAPABILITIES, type Capability } from '../../src/protocol/index.ts';
import type { World } from '../../src/sim/world.ts';

const isCapability = (c: string): c is Capability => (CAPABILITIES as readonly string[]).includes(c);

export const consumer = {
  ...referenceConsumer,
  name: 'local_approval',
  install(world: World, options: { readonly capabilities: readonly string[] }): void {
    world.install(
      consumerPackage(),
      consumerApp({
        capabilities: options.capabilities.filter(isCapability),
        resumeOnStart: true,
        localApproval: 'activity',
        localApprovalMinRisk: 'moderate',
      }),
    );
  },
};
