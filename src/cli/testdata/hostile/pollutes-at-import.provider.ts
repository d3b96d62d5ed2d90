/** A `--provider` module that replaces a built-in method while it loads (used by the tests). */
import { ALERTS } from './alerts.ts';

const includes = Array.prototype.includes;
Array.prototype.includes = function (this: unknown[], ...args: Parameters<typeof includes>) {
  return includes.apply(this, args);
};

export const providers = [ALERTS];
