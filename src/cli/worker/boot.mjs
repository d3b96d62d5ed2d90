// A worker thread of the cetp-sim CLI starts here: TypeScript sources (cetp-sim's and the user's
// modules) load through tsx in this thread too, then the worker's own module takes the jobs.
import { register } from 'tsx/esm/api';

register();
await import('./worker.ts');
