/**
 * Control: read tools whose answers change between calls. The reference alerts and payments apps
 * exactly as they are, declared with no `propertyTools`, so every property calls every tool —
 * including list_alerts, get_balance and get_quote, whose answers change as writes commit, and which
 * the fuzzer re-sends under an old request_id (a shared or repeated id).
 *
 * Unusual but legal: only writes are deduplicated — §6 "所有 effect != read 的工具必须按 request_id
 * 去重" (CETP-6-01) — and a read is a read: §4.1 "对其他 method，request_id 标识一次可重试的读取 …
 * 新读取使用新 ID". A provider may answer a repeated read id afresh; the "same terminal result"
 * (CETP-6-05, 6-07) is owed for deduplicated requests only.
 */
import { ALERTS, PAYMENTS } from '../../src/fuzz/scenario/fixtures.ts';

export const providers = [ALERTS, PAYMENTS];
