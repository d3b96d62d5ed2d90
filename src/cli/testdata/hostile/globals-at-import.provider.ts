/** A `--provider` module that replaces Math.random, Date.now and JSON.stringify while it loads (used by the tests). */
import { ALERTS } from './alerts.ts';

let n = 0;
Math.random = () => (n++ % 10) / 10;
Date.now = () => 0;
const stringify = JSON.stringify;
JSON.stringify = ((value: unknown, ...rest: never[]) => stringify(value, ...rest)) as typeof JSON.stringify;

export const providers = [ALERTS];
