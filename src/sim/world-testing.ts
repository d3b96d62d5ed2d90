/**
 * The echo world of the World's tests (world.test.ts, world-limits.test.ts): an echo provider app
 * and a client app allowed to see it.
 */
import { Bundle } from './binder/bundle.ts';
import { appSpec, clientSpec, EchoProvider } from './testing.ts';
import { World, type WorldOptions } from './world.ts';

export const ECHO_AUTHORITY = 'com.example.echo.tools';

export function echoWorld(options: WorldOptions = {}) {
  const world = new World(options);
  const echo = { instances: [] as EchoProvider[] };
  world.install(appSpec('com.example.echo', { authority: ECHO_AUTHORITY }), () => {
    const p = new EchoProvider();
    echo.instances.push(p);
    return { providers: { Provider: p } };
  });
  world.install(clientSpec('com.example.client', ['com.example.echo']), () => ({}));
  return { world, echo };
}

export function request(key: string, value: string): Bundle {
  const b = new Bundle();
  b.putString(key, value);
  return b;
}

/**
 * Runs `world` with `n` concurrent calls from com.example.c to authority `p`, each with extras `data`
 * of `chars` 'z's: their outcomes, 'ok' or the exception's name, in the order they ended.
 */
export async function concurrentCallOutcomes(world: World, n: number, chars: number): Promise<string[]> {
  const outcomes: string[] = [];
  world.spawnIn('com.example.c', 'main', async (ctx) => {
    for (let i = 0; i < n; i++)
      ctx.spawn(`c${i}`, async () => {
        const client = await ctx.contentResolver.acquireUnstableContentProviderClient('p');
        try {
          await client?.call('m', null, request('data', 'z'.repeat(chars)));
          outcomes.push('ok');
        } catch (e) {
          outcomes.push((e as Error).name);
        }
      });
  });
  await world.run();
  return outcomes;
}
