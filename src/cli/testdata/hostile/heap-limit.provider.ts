/**
 * A `--provider` module that refuses to load, saying the heap limit of the thread it loads in (used
 * by src/cli/worker/heap-limit.test.ts to see the limit a worker thread was given).
 */
import { getHeapStatistics } from 'node:v8';

throw new Error(`heap limit ${Math.round(getHeapStatistics().heap_size_limit / 2 ** 20)} MB`);
