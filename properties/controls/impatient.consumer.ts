/**
 * Control: an impatient consumer. The reference consumer app, configured to wait only 150 ms of
 * simulated time for any Binder call before it counts the call as timed out and re-sends it under
 * the same request_id (its retry budget is the default one).
 *
 * Unusual but legal: the spec sets no minimum call timeout. It says (§4.1, CETP-4.1-15) "Consumer
 * 超时并不代表 Provider 已停止；对于有副作用或异步调用，Consumer 必须使用相同 request_id 查询或重试，
 * 不能生成新 ID 猜测结果" and (§6, CETP-6-08) "Consumer 遇到 Binder 断开或超时时，只能以相同 ID
 * 重试或查询状态" — which is exactly what this consumer does, often, and with the earlier call's
 * reply still on its way. An oracle that judges the re-send by that late reply (which the consumer
 * had not seen when it re-sent) raises a false alarm.
 */
import { consumerApp, consumerPackage } from '../../src/consumer/app.ts';
import { referenceConsumer } from '../../src/consumer/index.ts';
import { CAPABILITIES, type Capability } from '../../src/protocol/index.ts';
import type { World } from '../../src/sim/world.ts';

const isCapability = (c: string): c is Capability => (CAPABILITIES as readonly string[]).includes(c);

export const consumer = {
  ...referenceConsumer,
  name: 'impatient',
  install(
    world: World,
    options: {
      readonly variant: {
        readonly consumerBugs: readonly string[];
        readonly disabledRules: readonly string[];
      };
      readonly capabilities: readonly string[];
    },
  ): void {
    world.install(
      consumerPackage(),
      consumerApp({
        plantedBugs: [],
        disabledRules: [],
        capabilities: options.capabilities.filter(isCapability),
        resumeOnStart: true,
        callTimeoutMs: 150,
      }),
    );
  },
};
