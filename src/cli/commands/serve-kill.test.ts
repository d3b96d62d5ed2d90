/**
 * `serve`'s `kill` request names its target like a vector's kill step (src/vectors/kill-target.ts):
 * `{"op":"kill","process":"provider"}` kills the provider's process — for an app whose provider has
 * `android:process` another process than the main one, which `{"op":"kill"}` (as before) kills. The
 * old session killed the package's main process either way: the provider's session survived the
 * `provider` kill (list_tools answered success, not NEGOTIATION_REQUIRED). A bad target is an
 * invalid_request naming `$.process`.
 */
import { describe, expect, it } from 'vitest';
import { NEGOTIATE } from '../../../bench/serve.bench.ts';
import { ALERTS } from '../../fuzz/scenario/fixtures.ts';
import { REFERENCE } from '../../fuzz/scenario/model.ts';
import { withProviderProcess } from '../../vectors/split-fixture.ts';
import { sessionCall } from '../testing.ts';
import { Server, serveLines } from './serve.ts';
import type { Action } from './serve-requests.ts';
import { LiveSession } from './serve-session.ts';
import { DEFAULT_VECTORS_DIR } from './vectors.ts';

/** list_tools in the envelope, under the session `token` negotiate handed out. */
const listTools = (token: string): Action =>
  sessionCall('list_tools', token, '00000000-0000-4000-8000-000000000001');

type Reply = { reply?: { value?: Record<string, { value?: unknown }> } };

/** After negotiating and a kill of `process`: list_tools' status or error code. */
async function afterKill(process: 'main' | 'provider' | undefined): Promise<string> {
  const fixture = withProviderProcess(ALERTS, ':cetp');
  const session = await LiveSession.open({ fixture, seed: 'kill', fresh: [], variant: REFERENCE });
  try {
    const negotiated = (await session.act(JSON.parse(NEGOTIATE) as Action)) as Reply;
    const token = (JSON.parse(String(negotiated.reply?.value?.data?.value)) as { session_token: string })
      .session_token;
    expect((await session.act(process ? { op: 'kill', process } : { op: 'kill' })).ok).toBe(true);
    const reply = ((await session.act(listTools(token))) as Reply).reply?.value;
    return String(reply?.error_code?.value ?? reply?.status?.value);
  } finally {
    session.close();
  }
}

describe('serve: the kill request names its process', () => {
  it('for a provider in android:process, `provider` kills it (the session is gone); `main` and no target leave it', async () => {
    expect(await afterKill('provider')).toBe('NEGOTIATION_REQUIRED');
    expect(await afterKill('main')).toBe('success');
    expect(await afterKill(undefined)).toBe('success');
  });

  it('a bad target is an invalid_request naming $.process; the server keeps serving', async () => {
    const out: string[] = [];
    async function* input() {
      yield '{"op":"open","fixture":"alerts"}';
      yield '{"id":1,"op":"kill","process":"zygote"}';
      yield '{"id":2,"op":"kill","process":"provider"}';
    }
    await serveLines(new Server({ seed: '0', dir: DEFAULT_VECTORS_DIR }), input(), (l) => out.push(l));
    const [, bad, good] = out.map(
      (l) => JSON.parse(l) as { ok: boolean; error?: { code: string; path: string } },
    );
    expect(bad?.error).toMatchObject({ code: 'invalid_request', path: '$.process' });
    expect(good?.ok).toBe(true);
  });
});
