/**
 * File results (spec §4.5) as the consumer verifies them: size, digest, schema, a local read limit,
 * no stable path — and every fd closed, accepted or not.
 */
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../protocol/index.ts';
import { HOSTILE_CASES, HOSTILE_PACKAGE, installHostile } from '../providers/hostile/index.ts';
import * as kit from './testing.ts';

async function hostileFile(id: string) {
  const world = kit.consumerWorld({ providers: [] });
  installHostile(world, (HOSTILE_CASES.find((c) => c.id === id) ?? { behaviour: {} }).behaviour);
  const { value, report } = await kit.runConsumer(world, (b) =>
    b.execute(HOSTILE_PACKAGE, 'lookup', { query: 'statement' }),
  );
  return { value, report, world };
}

function scriptedFiles(answer: (c: kit.ScriptedCall) => ReturnType<typeof kit.success>, consumer = {}) {
  const world = kit.consumerWorld({ providers: [], consumer });
  kit.installScripted(world, {
    tools: [
      kit.toolDescriptor('export', {
        output_schema: { type: 'object', properties: { rows: { type: 'array' } }, required: ['rows'] },
      }),
    ],
    answer: (c) => (c.method === 'execute_tool' ? answer(c) : undefined),
  });
  return world;
}

describe('hostile file results', () => {
  for (const [id, expected] of [
    ['file-size-wrong', { kind: 'integrity', check: 'size' }],
    ['file-much-larger-than-declared', { kind: 'integrity', check: 'size' }],
    ['file-sha256-wrong', { kind: 'integrity', check: 'sha256' }],
    ['file-sha256-uppercase', { kind: 'invalid_response' }],
    ['file-fd-writable', { kind: 'integrity', check: 'fd_not_read_only' }],
    ['file-pipe-never-eof', { kind: 'integrity', check: 'read_error' }],
    ['file-pipe-writer-dies', { kind: 'integrity', check: 'read_error' }],
  ] as const) {
    it(`CETP-4.5-05 CETP-4.5-06 CETP-4.5-08 CETP-4.5-09: ${id} is refused (${'check' in expected ? expected.check : expected.kind}) and its fd closed`, async () => {
      const { value, report } = await hostileFile(id);
      expect(value).toMatchObject(expected);
      // The hostile provider may leak its own fds (a write end held open on purpose); the consumer may not.
      expect(report.fdLeaks.filter((l) => l.process === kit.CONSUMER)).toEqual([]);
      expect(report.crashes.filter((c) => c.task.includes(kit.CONSUMER))).toEqual([]);
    });
  }
});

/** A value whose JSON is ~`kib` KiB: many 64 KiB read chunks, multi-byte characters across their edges. */
function bigRows(kib: number): { rows: string[] } {
  const rows: string[] = [];
  for (let i = 0, n = 0; n < kib * 1024; i++) {
    const row = `行${i} 价格 € ${'x'.repeat(i % 97)} 🧾`;
    rows.push(row);
    n += new TextEncoder().encode(row).length + 3;
  }
  return { rows };
}

describe('verification of a file read in many chunks (hashed while read, decoded once)', () => {
  it('CETP-4.5-05 CETP-4.5-06: a 300 KiB file with multi-byte characters is accepted, its value whole', async () => {
    const content = bigRows(300);
    const world = scriptedFiles((c) => kit.fileReply(c, content));
    const { value, report } = await kit.runConsumer(world, (b) =>
      b.execute(kit.SCRIPTED_PACKAGE, 'export', {}),
    );
    expect(value).toMatchObject({ kind: 'ok', untrusted: { transport: 'file', value: content } });
    expect(report.fdLeaks).toEqual([]);
  });

  it('CETP-4.5-06: one byte changed in the last chunk of a 300 KiB file fails the digest', async () => {
    const bytes = new TextEncoder().encode(JSON.stringify(bigRows(300)));
    const served = bytes.slice();
    const at = served.lastIndexOf(0x78); // an 'x' near the end
    served[at] = 0x79;
    const world = scriptedFiles((c) => kit.rawFileReply(c, served, { sha256: sha256Hex(bytes) }));
    const { value } = await kit.runConsumer(world, (b) => b.execute(kit.SCRIPTED_PACKAGE, 'export', {}));
    expect(value).toMatchObject({ kind: 'integrity', check: 'sha256' });
  });

  it('bytes that are not UTF-8, with the declared size and digest, are refused as encoding', async () => {
    const served = new TextEncoder().encode(JSON.stringify({ rows: ['a', 'b'] }));
    served[served.indexOf(0x61)] = 0xff;
    const world = scriptedFiles((c) => kit.rawFileReply(c, served));
    const { value, report } = await kit.runConsumer(world, (b) =>
      b.execute(kit.SCRIPTED_PACKAGE, 'export', {}),
    );
    expect(value).toMatchObject({ kind: 'integrity', check: 'encoding' });
    expect(report.fdLeaks).toEqual([]);
  });

  it('with CETP-4.5-05 ablated, a file longer than declared is read whole (up to the local limit)', async () => {
    const content = bigRows(200);
    const world = scriptedFiles((c) => kit.fileReply(c, content, { size_bytes: 1_000 }), {
      disabledRules: ['CETP-4.5-05'],
    });
    const { value } = await kit.runConsumer(world, (b) => b.execute(kit.SCRIPTED_PACKAGE, 'export', {}));
    expect(value).toMatchObject({ kind: 'ok', untrusted: { transport: 'file', value: content } });
  });
});

describe('verification', () => {
  it('CETP-4.5-07: a file with the right size and digest but content that breaks output_schema is refused', async () => {
    const world = scriptedFiles((c) => kit.fileReply(c, { lines: [] }));
    const { value, report } = await kit.runConsumer(world, (b) =>
      b.execute(kit.SCRIPTED_PACKAGE, 'export', {}),
    );
    expect(value).toMatchObject({ kind: 'integrity', check: 'output_schema' });
    expect(report.fdLeaks).toEqual([]);
  });

  it('CETP-4.5-05 CETP-4.5-06: a file that matches its declaration and schema is accepted', async () => {
    const world = scriptedFiles((c) => kit.fileReply(c, { rows: [1, 2, 3] }));
    const { value, report } = await kit.runConsumer(world, (b) =>
      b.execute(kit.SCRIPTED_PACKAGE, 'export', {}),
    );
    expect(value).toMatchObject({ kind: 'ok', untrusted: { transport: 'file', value: { rows: [1, 2, 3] } } });
    expect(report.fdLeaks).toEqual([]);
  });

  it('CETP-4.5-08 CETP-2.2-22: a declared size above the local read limit is refused without reading', async () => {
    const world = scriptedFiles((c) => kit.fileReply(c, { rows: [] }, { size_bytes: 20 * 1_048_576 }));
    const { value, report } = await kit.runConsumer(world, (b) =>
      b.execute(kit.SCRIPTED_PACKAGE, 'export', {}),
    );
    expect(value).toMatchObject({ kind: 'integrity', check: 'over_local_limit' });
    expect(report.fdLeaks).toEqual([]);
  });

  it('CETP-4.5-08: a consumer with a small local limit refuses the reference 12-month statement, keeping no fd', async () => {
    const world = kit.consumerWorld({
      providers: ['payments'],
      consumer: { limits: { maxFileResultBytes: 100_000 } },
    });
    const { value, report } = await kit.runConsumer(world, (b, ctx) =>
      b.execute(kit.PAYMENTS_PACKAGE, 'export_statement', { account: `CHK-${ctx.uid}`, months: 12 }),
    );
    expect(value).toMatchObject({ kind: 'integrity', check: 'over_local_limit' });
    expect(report.fdLeaks).toEqual([]);
  });

  it('CETP-4.5-10: each file result is read through its own fd; the consumer never opens a path', async () => {
    const world = kit.consumerWorld({ providers: ['payments'] });
    const { value } = await kit.runConsumer(world, async (b, ctx) => {
      const args = { account: `CHK-${ctx.uid}`, months: 13 };
      return [
        await b.execute(kit.PAYMENTS_PACKAGE, 'export_statement', args),
        await b.execute(kit.PAYMENTS_PACKAGE, 'export_statement', args),
      ];
    });
    expect(value.map((o) => (o.kind === 'ok' ? o.untrusted.transport : o.kind))).toEqual(['file', 'file']);
    const opened = world.trace.ofKind('fd.open').filter((e) => e.data.actor === kit.CONSUMER);
    const dupped = world.trace.ofKind('fd.dup').filter((e) => e.data.to === kit.CONSUMER);
    expect(opened).toHaveLength(2);
    expect(dupped).toHaveLength(2);
    expect(new Set(dupped.map((e) => e.data.target)).size).toBe(2);
    expect(world.trace.ofKind('fs.write').filter((e) => e.data.actor === kit.CONSUMER)).toEqual([]);
  });

  it('CETP-4.5-11 (consumer side): without large_results, a large statement is RESULT_TOO_LARGE, not a file', async () => {
    const world = kit.consumerWorld({
      providers: ['payments'],
      consumer: { capabilities: ['async_operations', 'cancellation'] },
    });
    const { value, report } = await kit.runConsumer(world, (b, ctx) =>
      b.execute(kit.PAYMENTS_PACKAGE, 'export_statement', { account: `CHK-${ctx.uid}`, months: 12 }),
    );
    expect(value).toMatchObject({ kind: 'result_too_large', committed: false });
    expect(report.fdLeaks).toEqual([]);
  });

  it('a file result without its result_fd, or with extra fds, leaves nothing open', async () => {
    const world = scriptedFiles((c) => {
      const reply = kit.fileReply(c, { rows: [] });
      if (c.n === 1) reply.remove('result_fd');
      else {
        c.context.writeFile('extra.json', new Uint8Array([1]));
        const extra = c.context.openFile('extra.json', 'r');
        reply.putParcelFileDescriptor('bonus_fd', extra);
        c.context.spawn('close', async () => {
          await c.context.yield();
          extra.close();
        });
      }
      return reply;
    });
    const { value, report } = await kit.executeScripted(world, 'export', 'export');
    expect(value.map((o) => o.kind)).toEqual(['invalid_response', 'ok']);
    expect(report.fdLeaks).toEqual([]);
  });
});
