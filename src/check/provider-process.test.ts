/**
 * Kills read against the process a provider ran in (FIDELITY.md row 35.8c): with `android:process`
 * the app's main process is not the provider's, and user 10's instance runs in `<pkg>@u10`. The
 * checkers that ask whether a provider restarted (history.ts, frequencies.ts, lifecycle.ts) read a
 * kill's process through providerOfProcess; comparing it with the package name, as they did, counted
 * a main-process kill as a provider restart and missed a kill of `<pkg>:cetp`.
 */
import { describe, expect, it } from 'vitest';
import { type Observation, providerOfProcess } from './observation.ts';
import { callView } from './testing.ts';

function observation(calls: ReturnType<typeof callView>[]): Observation {
  return { calls, events: [], memo: new Map() } as unknown as Observation;
}

describe('providerOfProcess', () => {
  it('a provider in its own android:process: its process is the provider, the main process none', () => {
    const obs = observation([callView({ id: 1, provider: 'com.a', providerProcess: 'com.a:cetp' })]);
    expect(providerOfProcess(obs, 'com.a:cetp')).toBe('com.a');
    expect(providerOfProcess(obs, 'com.a')).toBeNull();
  });

  it("the same package in users 0 and 10: both processes are the package's provider", () => {
    const obs = observation([
      callView({ id: 1, provider: 'com.b' }),
      callView({ id: 2, provider: 'com.b', providerProcess: 'com.b@u10' }),
    ]);
    expect(providerOfProcess(obs, 'com.b')).toBe('com.b');
    expect(providerOfProcess(obs, 'com.b@u10')).toBe('com.b');
  });

  it('a package no call reached, or one in its own process, is its own name', () => {
    const obs = observation([callView({ id: 1, provider: 'com.c' })]);
    expect(providerOfProcess(obs, 'com.c')).toBe('com.c');
    expect(providerOfProcess(obs, 'com.fuzz.agent.a')).toBe('com.fuzz.agent.a');
  });
});
