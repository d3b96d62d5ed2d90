/**
 * Argument parsers shared by the commands. Each throws commander's InvalidArgumentError, which the
 * CLI reports as a usage error (exit 2, code `invalid_argument`) naming the flag and what it accepts.
 */
import { InvalidArgumentError, Option } from 'commander';
import {
  ANDROID_RELEASES,
  type AndroidRelease,
  DEFAULT_ANDROID,
  isAndroidRelease,
} from '../sim/core/release.ts';

export function parseIntArg(name: string, min = 0): (value: string) => number {
  return (value: string) => {
    if (!/^\d+$/.test(value)) throw new InvalidArgumentError(`${name} must be a whole number`);
    const n = Number(value);
    if (!Number.isSafeInteger(n) || n < min)
      throw new InvalidArgumentError(`${name} must be at least ${min}`);
    return n;
  };
}

/** A positive duration in seconds (decimals allowed): `--time 30`, `--time 2.5`. */
export function parseSecondsArg(name: string): (value: string) => number {
  return (value: string) => {
    if (!/^\d+(\.\d+)?$/.test(value) || Number(value) <= 0)
      throw new InvalidArgumentError(`${name} must be a positive number of seconds, e.g. 30 or 2.5`);
    return Number(value);
  };
}

export interface Shard {
  /** 1-based. */
  readonly index: number;
  readonly count: number;
}

/** `I/N` with 1 ≤ I ≤ N: the I-th of N shards. */
export function parseShardArg(value: string): Shard {
  const match = /^(\d+)\/(\d+)$/.exec(value);
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (!match || !Number.isSafeInteger(index) || !Number.isSafeInteger(count) || count < 1)
    throw new InvalidArgumentError(`--shard must be I/N with 1 ≤ I ≤ N (e.g. 1/4), got '${value}'`);
  if (index < 1 || index > count)
    throw new InvalidArgumentError(`--shard ${value}: I must be between 1 and ${count}`);
  return { index, count };
}

/** `--android 14|15|16`: the Android release profile (src/sim/core/release.ts). */
export function parseAndroidArg(value: string): AndroidRelease {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !isAndroidRelease(n))
    throw new InvalidArgumentError(
      `--android must be one of ${ANDROID_RELEASES.join(', ')} (default ${DEFAULT_ANDROID}), got '${value}'`,
    );
  return n;
}

/** The `--android <release>` option of a command whose worlds run on the profile `what` says. */
export function androidFlag(what: string): Option {
  return new Option(
    '--android <release>',
    `the Android release profile ${what}: ${ANDROID_RELEASES.join(', ')} (default ${DEFAULT_ANDROID}; src/sim/core/release.ts)`,
  ).argParser(parseAndroidArg);
}
