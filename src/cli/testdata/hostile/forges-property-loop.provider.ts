/**
 * A `--provider` module that reaches the judgement of its runs through a package it may import:
 * fast-check is a third-party package (not cetp-sim's), the same instance the worker's property loop
 * runs, and its AsyncProperty prototype is nobody's export. The module patches `run` so that every
 * run of every property answers "held" whatever the oracles found: in the worker's realm, no run
 * ever fails (used by the tests: the judge in the CLI's thread must fail it all the same).
 */
import fc from 'fast-check';
import { ALERTS } from './alerts.ts';

const property = fc.asyncProperty(fc.constant(0), async () => true);
const proto = Object.getPrototypeOf(property) as { run: (v: unknown) => Promise<unknown> };
const run = proto.run;
proto.run = async function forged(this: unknown, v: unknown) {
  await run.call(this, v);
  return null;
};

export const providers = [ALERTS];
