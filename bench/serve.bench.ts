/**
 * `cetp-sim serve --stdio` sessions (issue #32, item 4): calls per second in one session of 100,
 * 1,000 and 10,000 pipelined calls, in process (the Server and serveLines the command runs; no
 * process start-up in the figure). A session keeps its world running between requests, so a call
 * costs the same whatever came before: the goal is a per-call cost at 10,000 calls within 1.5x of
 * that at 100. (Before, every request replayed the session: 1,000 calls took 18 s, 10,000 did not
 * finish in 300 s.)
 */

import { Server, serveLines } from '../src/cli/commands/serve.ts';
import { DEFAULT_VECTORS_DIR } from '../src/cli/commands/vectors.ts';

export const SERVE_SIZES = [100, 1_000, 10_000] as const;
export const SERVE_GOAL_RATIO = 1.5;

/** A serve request line: negotiate CETP v2 with no capabilities (the serve tests send it too). */
export const NEGOTIATE = JSON.stringify({
  op: 'call',
  method: 'negotiate',
  arg: null,
  extras: {
    consumer_versions: { type: 'int[]', value: [2] },
    consumer_capabilities: { type: 'string', value: '[]' },
  },
});
const LIST_TOOLS = '{"op":"call","method":"list_tools","arg":null,"extras":null}';

/** One session: open, negotiate, `calls` list_tools calls; the responses, all of them `ok`. */
export async function serveSession(calls: number): Promise<string[]> {
  const out: string[] = [];
  async function* lines() {
    yield '{"id":"open","op":"open","fixture":"alerts","seed":"bench:serve"}';
    yield NEGOTIATE;
    for (let i = 0; i < calls; i++) yield LIST_TOOLS;
  }
  await serveLines(new Server({ seed: '0', dir: DEFAULT_VECTORS_DIR }), lines(), (line) => out.push(line));
  return out;
}

export interface ServeFigure {
  readonly calls: number;
  readonly ms: number;
  readonly callsPerSecond: number;
  readonly msPerCall: number;
}

export async function serveBenchmark(log: (line: string) => void = () => {}) {
  await serveSession(200); // warm-up: compile the paths the sessions take
  const figures: ServeFigure[] = [];
  for (const calls of SERVE_SIZES) {
    const started = performance.now();
    const out = await serveSession(calls);
    const ms = performance.now() - started;
    const failed = out.filter((line) => !line.includes('"ok":true'));
    if (out.length !== calls + 2 || failed.length > 0)
      throw new Error(`serve: ${calls} calls gave ${out.length} responses, ${failed.length} not ok`);
    const figure = {
      calls,
      ms: Math.round(ms),
      callsPerSecond: Math.round((calls / ms) * 1000),
      msPerCall: Number((ms / calls).toFixed(4)),
    };
    log(`  ${String(calls).padStart(6)} calls: ${figure.ms} ms, ${figure.callsPerSecond} calls/s`);
    figures.push(figure);
  }
  const first = figures[0] as ServeFigure;
  const last = figures.at(-1) as ServeFigure;
  const ratio = Number((last.msPerCall / first.msPerCall).toFixed(2));
  return { figures, perCallRatio: ratio, goal: SERVE_GOAL_RATIO, meetsGoal: ratio <= SERVE_GOAL_RATIO };
}
