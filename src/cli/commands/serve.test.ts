/**
 * `cetp-sim serve --stdio`: one response line per request line, in order, echoing the id; a
 * malformed line or request is one error line naming the field and the server keeps serving;
 * sessions replay deterministically (the same requests and seed give the same bytes); a planted
 * bug is served when asked. The whole protocol is exercised end to end by the Java runner
 * (test/java-runner.test.ts), which must reach the TypeScript runner's verdict on every vector.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { NEGOTIATE } from '../../../bench/serve.bench.ts';
import { PACKAGE_ROOT } from '../../harness/root.ts';
import { sessionCall } from '../testing.ts';
import { SERVE_PROTOCOL, Server, serveLines } from './serve.ts';
import { DEFAULT_VECTORS_DIR } from './vectors.ts';

const at = <T>(list: readonly T[], i: number): T => {
  const v = list[i];
  if (v === undefined) throw new Error(`no response ${i}`);
  return v;
};
const message = (r: Record<string, unknown> | undefined) =>
  (r?.error as { message?: string } | undefined)?.message;
const server = () => new Server({ seed: '0', dir: DEFAULT_VECTORS_DIR });

async function session(lines: readonly string[], s = server()): Promise<Record<string, unknown>[]> {
  const out: string[] = [];
  async function* input() {
    yield* lines;
  }
  await serveLines(s, input(), (line) => out.push(line));
  return out.map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('cetp-sim serve', () => {
  it('says what it serves', async () => {
    const [hello] = await session(['{"id":"h","op":"hello"}']);
    expect(hello).toMatchObject({ id: 'h', ok: true, protocol: SERVE_PROTOCOL });
    expect(hello?.abilities).toContain('user-action');
    expect(Object.keys(hello?.fixtures as object)).toContain('alerts');
    expect(hello?.variants).toContain('uid-after-await');
  });

  it('answers every malformed line with one error naming the field, and keeps serving', async () => {
    const res = await session([
      'not json',
      '[1,2]',
      '{"id":1,"op":"dance"}',
      '{"id":2,"op":"call","method":"negotiate","arg":null,"extras":null}',
      '{"id":3,"op":"open"}',
      '{"id":4,"op":"open","fixture":"nowhere"}',
      '{"id":5,"op":"open","fixture":"alerts","variant":"no-such-bug"}',
      '{"id":6,"op":"open","fixture":"alerts","color":"red"}',
      '{"id":7,"op":"open","fixture":"alerts"}',
      '{"id":8,"op":"call","method":"negotiate","arg":null}',
      '{"id":9,"op":"advance-clock","ms":-1}',
      '{"id":10,"op":"user","answer":"maybe","handle":"pi:1"}',
      '{"id":11,"op":"read-fd","handle":"fd:77"}',
      '{"id":13,"op":"call","method":"m","arg":null,"extras":{"n":{"type":"int","value":"x"}}}',
      '{"id":12,"op":"hello"}',
    ]);
    expect(res.map((r) => [r.id, (r.error as { code?: string } | undefined)?.code ?? 'ok'])).toEqual([
      [null, 'malformed_json'],
      [null, 'invalid_request'],
      [1, 'invalid_request'],
      [2, 'no_session'],
      [3, 'invalid_request'],
      [4, 'unknown_fixture'],
      [5, 'unknown_variant'],
      [6, 'invalid_request'],
      [7, 'ok'],
      [8, 'invalid_request'],
      [9, 'invalid_request'],
      [10, 'invalid_request'],
      [11, 'no_such_handle'],
      [13, 'invalid_request'],
      [12, 'ok'],
    ]);
    const paths = Object.fromEntries(
      res.map((r) => [String(r.id), (r.error as { path?: string } | undefined)?.path]),
    );
    expect(paths).toMatchObject({
      '1': '$.op',
      '3': '$',
      '5': '$.variant',
      '8': '$',
      '9': '$.ms',
      '10': '$.answer',
      '11': '$.handle',
      '13': '$.extras.n',
    });
    expect(message(res[2])).toContain('unknown op "dance"');
    expect(message(res[7])).toContain("'color'");
    expect(message(res[9])).toContain('extras');
  });

  it('replays a session deterministically: the same requests give the same bytes; a planted bug answers otherwise', async () => {
    const lines = [
      '{"id":1,"op":"open","fixture":"alerts","seed":"vector:x","fresh":["rid"]}',
      NEGOTIATE,
      '{"op":"call","method":"list_tools","arg":null,"extras":null}',
      '{"op":"kill"}',
      '{"op":"advance-clock","ms":1000}',
      NEGOTIATE,
    ];
    const a = await session(lines);
    const b = await session(lines);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(a.every((r) => r.ok === true)).toBe(true);
    expect(a[0]).toMatchObject({ caller_uid: expect.stringMatching(/^[0-9]+$/) });
    expect((at(a, 0).fresh as { rid: string }).rid).toMatch(/^[0-9a-f-]{36}$/);
    const reply = at(a, 1).reply as { type: string; value: Record<string, { type: string; value: unknown }> };
    expect(reply.type).toBe('bundle');
    expect(reply.value.status).toEqual({ type: 'string', value: 'success' });
    // Another seed is another device; sessions without a seed differ by the server's --seed.
    const other = await session([lines[0]?.replace('vector:x', 'vector:y') ?? '']);
    expect((at(other, 0).fresh as { rid: string }).rid).not.toBe((at(a, 0).fresh as { rid: string }).rid);
    const unseeded = (seed: string) =>
      session(
        ['{"op":"open","fixture":"alerts","fresh":["r"]}'],
        new Server({ seed, dir: DEFAULT_VECTORS_DIR }),
      );
    expect(JSON.stringify(await unseeded('1'))).toBe(JSON.stringify(await unseeded('1')));
    expect(JSON.stringify(await unseeded('1'))).not.toBe(JSON.stringify(await unseeded('2')));
  });

  it('hands out handles for PendingIntents, and a user answer through one changes what the provider says', async () => {
    const open = '{"op":"open","fixture":"alerts","seed":"vector:handles","fresh":["rid"]}';
    const first = await session([open, NEGOTIATE]);
    const rid = (at(first, 0).fresh as { rid: string }).rid;
    const data = (at(first, 1).reply as { value: { data: { value: string } } }).value.data.value;
    const token = (JSON.parse(data) as { session_token: string }).session_token;
    const create = JSON.stringify(
      sessionCall('execute_tool', token, rid, {
        tool_name: { type: 'string', value: 'create_alert' },
        args: { type: 'string', value: '{"symbol":"AAPL","price":190}' },
      }),
    );
    const res = await session([open, NEGOTIATE, create]);
    const value = (at(res, 2).reply as { value: Record<string, Record<string, unknown>> }).value;
    expect(value.status?.type).toBe('string');
    expect(value.resolution).toMatchObject({ type: 'pending_intent', creator: 'provider', immutable: true });
    const handle = value.resolution?.handle as string;
    const answered = await session([
      open,
      NEGOTIATE,
      create,
      JSON.stringify({ op: 'user', answer: 'deny', handle }),
      JSON.stringify({ op: 'user', answer: 'approve', handle: 'pi:999' }),
    ]);
    expect(answered[3]).toMatchObject({ ok: true });
    // The denial reaches the provider: the same request now answers with the user's refusal.
    const again = await session([
      open,
      NEGOTIATE,
      create,
      JSON.stringify({ op: 'user', answer: 'deny', handle }),
      create,
    ]);
    const before = JSON.stringify(at(res, 2).reply);
    expect(JSON.stringify(at(again, 4).reply)).not.toBe(before);
    expect(answered[4]).toMatchObject({ ok: false, error: { code: 'no_such_handle' } });
  });

  it('runs as a subprocess on stdin/stdout, and --help documents the protocol', () => {
    const r = spawnSync('node', ['bin/cetp-sim.js', 'serve', '--stdio'], {
      cwd: PACKAGE_ROOT,
      input: '{"id":1,"op":"hello"}\nnot json\n{"id":2,"op":"close"}\n',
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(JSON.parse(lines[1] ?? '')).toMatchObject({ ok: false, error: { code: 'malformed_json' } });
    expect(r.stderr).toBe('');
    const help = spawnSync('node', ['bin/cetp-sim.js', 'serve', '--help'], {
      cwd: PACKAGE_ROOT,
      encoding: 'utf8',
    });
    expect(help.stdout).toContain('read-fd {handle}');
    const usage = spawnSync('node', ['bin/cetp-sim.js', 'serve'], { cwd: PACKAGE_ROOT, encoding: 'utf8' });
    expect(usage.status).toBe(2);
    expect(usage.stderr).toContain('serve needs --stdio');
    expect(usage.stderr).not.toMatch(/at .*\.ts:/);
  }, 60_000);
});
