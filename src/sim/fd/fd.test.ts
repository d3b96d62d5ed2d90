import { describe, expect, it } from 'vitest';
import { Bundle } from '../binder/bundle.ts';
import { IOException } from '../core/errors.ts';
import { appSpec, clientSpec, LambdaProvider } from '../testing.ts';
import { World, type WorldOptions } from '../world.ts';
import type { ParcelFileDescriptor } from './fd.ts';

const CONTENT = new TextEncoder().encode('{"rows":[1,2,3]}');

/** A provider that answers with a read-only fd on a file; `closeOwnCopy` decides whether it closes its copy. */
function fileWorld(closeOwnCopy: boolean, options: WorldOptions = {}) {
  const world = new World(options);
  world.install(appSpec('com.example.p', { authority: 'p' }), () => ({
    providers: {
      Provider: new LambdaProvider((self) => {
        self.context.writeFile('export.json', CONTENT);
        const pfd = self.context.openFile('export.json', 'r');
        const reply = new Bundle();
        reply.putParcelFileDescriptor('result_fd', pfd);
        // The reply is parcelled after call() returns, so the provider closes its copy later.
        if (closeOwnCopy) {
          self.context.spawn('close-after-reply', async () => {
            await self.context.yield();
            pfd.close();
          });
        }
        return reply;
      }),
    },
  }));
  world.install(clientSpec('com.example.c', ['com.example.p']), () => ({}));
  return world;
}

describe('ParcelFileDescriptor across Binder (dup into the receiver; each side closes its own)', () => {
  it('the consumer reads the file through its dup; closing both copies leaves no leak', async () => {
    const world = fileWorld(true);
    let text = '';
    let fds: number[] = [];
    world.spawnIn('com.example.c', 'main', async (ctx) => {
      const reply = await ctx.contentResolver.call('p', 'export', null, null);
      const pfd = reply?.getParcelFileDescriptor('result_fd') as ParcelFileDescriptor;
      fds = [pfd.getFd()];
      expect(pfd.process.name).toBe('com.example.c');
      expect(pfd.getStatSize()).toBe(CONTENT.length);
      const { bytes, overLimit } = await pfd.readUpTo(1024);
      text = new TextDecoder().decode(bytes);
      expect(overLimit).toBe(false);
      pfd.close();
    });
    const report = await world.run();
    expect(text).toBe('{"rows":[1,2,3]}');
    expect(fds).toEqual([3]);
    expect(report.fdLeaks).toEqual([]);
    expect(world.trace.ofKind('fd.dup')).toHaveLength(1);
  });

  it('a provider that never closes its own copy leaks it (CloseGuard), even after the consumer closed', async () => {
    const world = fileWorld(false);
    world.spawnIn('com.example.c', 'main', async (ctx) => {
      const reply = await ctx.contentResolver.call('p', 'export', null, null);
      reply?.getParcelFileDescriptor('result_fd')?.close();
    });
    const report = await world.run();
    expect(report.fdLeaks).toEqual([
      {
        process: 'com.example.p',
        fd: 3,
        target: 'file:export.json',
        openedBy: expect.stringContaining('binder:com.example.p'),
        openedAtStep: expect.any(Number),
      },
    ]);
  });

  it('a consumer that forgets to close leaks its copy; a killed process leaks nothing', async () => {
    const world = fileWorld(true);
    world.spawnIn('com.example.c', 'main', async (ctx) => {
      await ctx.contentResolver.call('p', 'export', null, null);
    });
    const report = await world.run();
    expect(report.fdLeaks.map((l) => l.process)).toEqual(['com.example.c']);

    const killed = fileWorld(false);
    killed.spawnIn('com.example.c', 'main', async (ctx) => {
      await ctx.contentResolver.call('p', 'export', null, null);
      killed.killProcess('com.example.p', { kind: 'killed', reason: 'test' });
      killed.killProcess('com.example.c', { kind: 'killed', reason: 'test' });
    });
    expect((await killed.run()).fdLeaks).toEqual([]);
  });

  it('a read-only fd refuses writes (EBADF); a closed fd refuses everything', async () => {
    const world = fileWorld(true);
    const errors: string[] = [];
    world.spawnIn('com.example.c', 'main', async (ctx) => {
      const pfd = (await ctx.contentResolver.call('p', 'export', null, null))?.getParcelFileDescriptor(
        'result_fd',
      ) as ParcelFileDescriptor;
      try {
        await pfd.write(new Uint8Array([1]));
      } catch (e) {
        errors.push((e as Error).message);
      }
      pfd.close();
      try {
        await pfd.read(10);
      } catch (e) {
        errors.push(e instanceof IOException ? 'closed' : String(e));
      }
    });
    await world.run();
    expect(errors).toEqual(['write failed: EBADF (Bad file descriptor)', 'closed']);
  });

  it('the read limit stops a reader at limit+1 bytes and reports overLimit', async () => {
    const world = fileWorld(true);
    let result: { length: number; overLimit: boolean } | null = null;
    world.spawnIn('com.example.c', 'main', async (ctx) => {
      const pfd = (await ctx.contentResolver.call('p', 'export', null, null))?.getParcelFileDescriptor(
        'result_fd',
      ) as ParcelFileDescriptor;
      const r = await pfd.readUpTo(5);
      result = { length: r.bytes.length, overLimit: r.overLimit };
      pfd.close();
    });
    await world.run();
    expect(result).toEqual({ length: 5, overLimit: true });
  });

  it('corruptFd and truncateFd faults change what the next read returns', async () => {
    for (const [fault, expected] of [
      [{ kind: 'corruptFd', process: 'com.example.c' }, 'corrupt'],
      [{ kind: 'truncateFd', process: 'com.example.c', keepBytes: 4 }, '{"ro'],
    ] as const) {
      const world = fileWorld(true, { faults: [{ at: 0, fault }] });
      let text = '';
      world.spawnIn('com.example.c', 'main', async (ctx) => {
        const pfd = (await ctx.contentResolver.call('p', 'export', null, null))?.getParcelFileDescriptor(
          'result_fd',
        ) as ParcelFileDescriptor;
        const bytes = (await pfd.readUpTo(1024)).bytes;
        text = bytes[0] === CONTENT[0] ? new TextDecoder().decode(bytes) : 'corrupt';
        pfd.close();
      });
      await world.run();
      expect(text).toBe(expected);
    }
  });
});

describe('Pipes (plain vs reliable: checkError tells a dead writer from a clean EOF)', () => {
  async function pipeRun(reliable: boolean, writerFate: 'close' | 'error' | 'killed') {
    const world = new World();
    world.install(appSpec('com.example.writer'), () => ({}));
    world.install(clientSpec('com.example.reader', ['com.example.writer']), () => ({}));
    const out: string[] = [];
    world.spawnIn('com.example.writer', 'w', async (ctx) => {
      const [r, w] = reliable ? ctx.createReliablePipe() : ctx.createPipe();
      await world.startProcess('com.example.reader');
      // Hand the read end to the reader process as Binder would.
      const readEnd = world.fds.dup(r, world.process('com.example.reader'));
      r.close();
      world.spawnIn('com.example.reader', 'r', async () => {
        const chunks: string[] = [];
        for (;;) {
          const chunk = await readEnd.read(100);
          if (chunk.length === 0) break;
          chunks.push(new TextDecoder().decode(chunk));
        }
        out.push(`read "${chunks.join('')}"`);
        try {
          readEnd.checkError();
          out.push('checkError: ok');
        } catch (e) {
          out.push(`checkError: ${(e as Error).message}`);
        }
        readEnd.close();
      });
      await w.write(new TextEncoder().encode('partial'));
      if (writerFate === 'close') w.close();
      else if (writerFate === 'error') w.closeWithError('disk full');
      else world.killProcess('com.example.writer', { kind: 'killed', reason: 'test' });
    });
    await world.run();
    return out;
  }

  it('a reader blocks until data arrives and sees EOF once the writer closes', async () => {
    expect(await pipeRun(false, 'close')).toEqual(['read "partial"', 'checkError: ok']);
  });

  it('a plain pipe cannot tell a dead writer from a clean EOF', async () => {
    expect(await pipeRun(false, 'killed')).toEqual(['read "partial"', 'checkError: ok']);
  });

  it('a reliable pipe reports a dead writer and closeWithError', async () => {
    expect(await pipeRun(true, 'killed')).toEqual(['read "partial"', 'checkError: Remote side is dead']);
    expect(await pipeRun(true, 'error')).toEqual(['read "partial"', 'checkError: Remote error: disk full']);
    expect(await pipeRun(true, 'close')).toEqual(['read "partial"', 'checkError: ok']);
  });
});
