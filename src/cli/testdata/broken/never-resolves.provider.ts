/** Every tool handler awaits a promise that never settles (a callback that is never called). */
import { brokenTools } from './kit.ts';

export const providers = [brokenTools(() => new Promise(() => {}))];
