/**
 * The simulated user: the person holding the device, who sees what an Activity displays and
 * answers it — approve, deny, press Back, or never answer — after some thinking time.
 *
 * A user is scripted (answers in order, for tests and generated scenarios), seeded (random answers
 * from the world's PRNG, for fuzzing), a policy that reads the screen (e.g. a careful user who
 * approves only when the amount is shown), or silent (never answers). Every answer is a trace event.
 */

import type { Rng } from '../core/rng.ts';
import type { Scheduler, Task } from '../core/scheduler.ts';
import type { Trace } from '../core/trace.ts';
import type { ShownScreen, UserAnswer } from './activity-types.ts';
import type { ComponentName } from './intent.ts';

/** What the simulated user needs of the world, passed in (the World implements it). */
export interface UserHost {
  readonly rng: Rng;
  readonly trace: Trace;
  readonly scheduler: Pick<Scheduler, 'sleep'>;
  spawn(name: string, body: () => Promise<void>, options?: { daemon?: boolean }): Task;
}

/** What the user does with a screen; 'ignore' never answers (the phone goes back in the pocket). */
export type UserDecision = UserAnswer | 'ignore';

export type UserSpec =
  | { readonly kind: 'silent' }
  | {
      readonly kind: 'scripted';
      /** Answers for the screens in the order they are shown. */
      readonly decisions: readonly UserDecision[];
      /** Answer once the script is used up (default: ignore). */
      readonly otherwise?: UserDecision;
      readonly thinkMs?: number;
    }
  | {
      readonly kind: 'seeded';
      readonly weights?: Partial<Record<UserDecision, number>>;
      readonly thinkMsMin?: number;
      readonly thinkMsMax?: number;
    }
  | {
      readonly kind: 'policy';
      readonly decide: (shown: ShownScreen) => UserDecision;
      readonly thinkMs?: number;
    };

const DEFAULT_THINK_MS = 1_500;

export class SimulatedUser {
  private readonly rng: Rng;
  private spec: UserSpec;
  private scriptIndex = 0;
  private readonly seen: ShownScreen[] = [];

  constructor(
    private readonly world: UserHost,
    spec: UserSpec,
  ) {
    this.rng = world.rng.fork('user');
    this.spec = spec;
  }

  /** Replaces how the user behaves from now on (scenario commands script the next answers). */
  setBehaviour(spec: UserSpec): void {
    this.spec = spec;
    this.scriptIndex = 0;
  }

  /** Every screen shown so far, in order (what the user saw). */
  get screensSeen(): readonly ShownScreen[] {
    return this.seen;
  }

  /** @internal — an Activity shows a screen; `answer` delivers the user's decision to it. */
  present(shown: ShownScreen, answer: (a: UserAnswer) => void): void {
    this.seen.push(shown);
    const { decision, thinkMs } = this.decide(shown);
    this.world.spawn(
      `user:${shown.activity.className}#${shown.activityId}`,
      async () => {
        await this.world.scheduler.sleep(thinkMs);
        this.world.trace.record('user.decision', {
          actor: 'user',
          decision,
          title: shown.screen.title,
          activity: `${shown.activity.packageName}/${shown.activity.className}`,
        });
        if (decision !== 'ignore') answer(decision);
      },
      { daemon: true },
    );
  }

  /** The user picks from a chooser (an implicit Intent several apps can handle). */
  chooseActivity(candidates: readonly ComponentName[]): ComponentName {
    const pick = this.rng.pick(candidates);
    this.world.trace.record('user.choose', {
      actor: 'user',
      chosen: `${pick.packageName}/${pick.className}`,
      among: candidates.map((c) => `${c.packageName}/${c.className}`),
    });
    return pick;
  }

  private decide(shown: ShownScreen): { decision: UserDecision; thinkMs: number } {
    const spec = this.spec;
    switch (spec.kind) {
      case 'silent':
        return { decision: 'ignore', thinkMs: 0 };
      case 'scripted': {
        const d = spec.decisions[this.scriptIndex++] ?? spec.otherwise ?? 'ignore';
        return { decision: d, thinkMs: spec.thinkMs ?? DEFAULT_THINK_MS };
      }
      case 'policy':
        return { decision: spec.decide(shown), thinkMs: spec.thinkMs ?? DEFAULT_THINK_MS };
      case 'seeded': {
        const w = { approve: 4, deny: 2, back: 1, ignore: 1, ...spec.weights };
        const entries = (Object.entries(w) as [UserDecision, number][]).filter(([, x]) => x > 0);
        const total = entries.reduce((s, [, x]) => s + x, 0);
        let r = this.rng.float() * total;
        let decision: UserDecision = 'ignore';
        for (const [d, x] of entries) {
          if (r < x) {
            decision = d;
            break;
          }
          r -= x;
        }
        const min = spec.thinkMsMin ?? 500;
        const max = Math.max(min, spec.thinkMsMax ?? 10_000);
        return { decision, thinkMs: this.rng.intBetween(min, max) };
      }
    }
  }
}
