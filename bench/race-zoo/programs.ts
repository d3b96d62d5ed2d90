/**
 * SCTBench's concurrent-software-benchmarks (github.com/mc-imperial/sctbench, commit d59ab26d,
 * benchmarks/concurrent-software-benchmarks/*_bad.c; the list is benchmarks/buggy.txt), ported line
 * by line onto the zoo's thread model (runtime.ts). Each keeps its original's threads (how many, which
 * body, created in which order, joined or not), its shared state, its bug and its oracle. Comments
 * name the C they stand for where the port is not obvious.
 */
import type { ZooProgram, ZooRuntime, ZooThread } from './runtime.ts';

const SRC = 'benchmarks/concurrent-software-benchmarks';

async function joinAll(threads: readonly ZooThread[]): Promise<void> {
  for (const t of threads) await t.join();
}

/** reorder_bad.c: iSet threads write a = 1; b = -1; iCheck threads assert they see both or neither. */
function reorder(id: string, iSet: number, iCheck: number, deep: boolean): ZooProgram {
  return {
    id,
    source: `${SRC}/${id}_bad.c`,
    threads: iSet + iCheck + 1,
    bug: 'assertion',
    deep,
    async main(rt: ZooRuntime) {
      let a = 0;
      let b = 0;
      const setThread = async () => {
        await rt.racy('a = 1');
        a = 1;
        await rt.racy('b = -1');
        b = -1;
      };
      const checkThread = async () => {
        // if (!((a == 0 && b == 0) || (a == 1 && b == -1))) — every read is a racy access.
        await rt.racy('read a');
        let ok = false;
        if (a === 0) {
          await rt.racy('read b');
          ok = b === 0;
        }
        if (!ok) {
          await rt.racy('read a');
          if (a === 1) {
            await rt.racy('read b');
            ok = b === -1;
          }
        }
        rt.check(ok, 'reorder: a check thread saw a and b out of step');
      };
      const sets: ZooThread[] = [];
      const checks: ZooThread[] = [];
      for (let i = 0; i < iSet; i++) sets.push(await rt.spawn(`set${i}`, setThread));
      for (let i = 0; i < iCheck; i++) checks.push(await rt.spawn(`check${i}`, checkThread));
      await joinAll(sets);
      await joinAll(checks);
    },
  };
}

/** twostage_bad.c: writers set data1 then data2 = data1 + 1 under two locks; a reader sees the gap. */
function twostage(id: string, iT: number, iR: number, deep: boolean): ZooProgram {
  return {
    id,
    source: `${SRC}/${id}_bad.c`,
    threads: iT + iR + 1,
    bug: 'assertion',
    deep,
    async main(rt: ZooRuntime) {
      let data1 = 0;
      let data2 = 0;
      const data1Lock = rt.mutex('data1Lock');
      const data2Lock = rt.mutex('data2Lock');
      const funcA = async () => {
        await data1Lock.lock();
        data1 = 1;
        await data1Lock.unlock();
        await data2Lock.lock();
        // data2Value = data1Value + 1: data1 is read under data2Lock only — the racy access.
        await rt.racy('read data1');
        data2 = data1 + 1;
        await data2Lock.unlock();
      };
      const funcB = async () => {
        await data1Lock.lock();
        if (data1 === 0) {
          await data1Lock.unlock();
          return;
        }
        const t1 = data1;
        await data1Lock.unlock();
        await data2Lock.lock();
        const t2 = data2;
        await data2Lock.unlock();
        rt.check(t2 === t1 + 1, `twostage: read data1 = ${t1} but data2 = ${t2}`);
      };
      const tPool: ZooThread[] = [];
      const rPool: ZooThread[] = [];
      for (let i = 0; i < iT; i++) tPool.push(await rt.spawn(`twostage${i}`, funcA));
      for (let i = 0; i < iR; i++) rPool.push(await rt.spawn(`read${i}`, funcB));
      await joinAll(tPool);
      await joinAll(rPool);
    },
  };
}

/** wronglock_bad.c: funcA increments under dataLock, funcB under thisLock — not the same lock. */
function wronglock(id: string, iNum1: number, iNum2: number, deep: boolean): ZooProgram {
  return {
    id,
    source: `${SRC}/${id}_bad.c`,
    threads: iNum1 + iNum2 + 1,
    bug: 'assertion',
    deep,
    async main(rt: ZooRuntime) {
      let dataValue = 0;
      const dataLock = rt.mutex('dataLock');
      const thisLock = rt.mutex('thisLock');
      const funcA = async () => {
        await dataLock.lock();
        await rt.racy('x = dataValue');
        const x = dataValue;
        await rt.racy('dataValue++ (load)');
        const loaded = dataValue;
        await rt.racy('dataValue++ (store)');
        dataValue = loaded + 1;
        await rt.racy('dataValue != x + 1');
        rt.check(dataValue === x + 1, `wronglock: dataValue ${dataValue} after ${x} + 1`);
        await dataLock.unlock();
      };
      const funcB = async () => {
        await thisLock.lock();
        await rt.racy('dataValue++ (load)');
        const loaded = dataValue;
        await rt.racy('dataValue++ (store)');
        dataValue = loaded + 1;
        await thisLock.unlock();
      };
      const pool1: ZooThread[] = [];
      const pool2: ZooThread[] = [];
      for (let i = 0; i < iNum1; i++) pool1.push(await rt.spawn(`funcA${i}`, funcA));
      for (let i = 0; i < iNum2; i++) pool2.push(await rt.spawn(`funcB${i}`, funcB));
      await joinAll(pool1);
      await joinAll(pool2);
    },
  };
}

/** account_bad.c: the checker asserts balance == (x - y) - z, but deposit adds y: wrong when both ran. */
const account: ZooProgram = {
  id: 'account',
  source: `${SRC}/account_bad.c`,
  threads: 4,
  bug: 'assertion',
  deep: false,
  async main(rt) {
    const m = rt.mutex('m');
    const x = 1;
    const y = 2;
    const z = 4;
    let balance = x;
    let depositDone = false;
    let withdrawDone = false;
    await rt.spawn('check_result', async () => {
      await m.lock();
      if (depositDone && withdrawDone)
        rt.check(balance === x - y - z, `account: balance ${balance} ≠ (x − y) − z`);
      await m.unlock();
    });
    await rt.spawn('deposit', async () => {
      await m.lock();
      balance = balance + y;
      depositDone = true;
      await m.unlock();
    });
    await rt.spawn('withdraw', async () => {
      await m.lock();
      balance = balance - z;
      withdrawDone = true;
      await m.unlock();
    });
    await rt.exit(); // main returns without joining
  },
};

/** carter01_bad.c: the first of a class takes l while holding m; the other class then deadlocks. */
const carter01: ZooProgram = {
  id: 'carter01',
  source: `${SRC}/carter01_bad.c`,
  threads: 5,
  bug: 'deadlock',
  deep: false,
  async main(rt) {
    const m = rt.mutex('m');
    const l = rt.mutex('l');
    let A = 0;
    let B = 0;
    const classA = async () => {
      await m.lock();
      A++;
      if (A === 1) await l.lock();
      await m.unlock();
      // perform class A operation
      await m.lock();
      A--;
      if (A === 0) await l.unlock();
      await m.unlock();
    };
    const classB = async () => {
      await m.lock();
      B++;
      if (B === 1) await l.lock();
      await m.unlock();
      // perform class B operation
      await m.lock();
      B--;
      if (B === 0) await l.unlock();
      await m.unlock();
    };
    const a1 = await rt.spawn('a1', classA);
    const b1 = await rt.spawn('b1', classB);
    const a2 = await rt.spawn('a2', async () => {});
    const b2 = await rt.spawn('b2', async () => {});
    await joinAll([a1, b1, a2, b2]);
  },
};

/** token_ring_bad.c: three atomic copies round a ring; the checker asserts all equal once all ran. */
const tokenRing: ZooProgram = {
  id: 'token_ring',
  source: `${SRC}/token_ring_bad.c`,
  threads: 5,
  bug: 'assertion',
  deep: false,
  async main(rt) {
    // __ESBMC_atomic_begin/end is one global mutex (common.inc).
    const esbmc = rt.mutex('esbmc_mutex');
    let x1 = 1;
    let x2 = 2;
    let x3 = 1;
    let flag1 = false;
    let flag2 = false;
    let flag3 = false;
    await rt.spawn('t1', async () => {
      await esbmc.lock();
      x1 = (x3 + 1) % 4;
      flag1 = true;
      await esbmc.unlock();
    });
    await rt.spawn('t2', async () => {
      await esbmc.lock();
      x2 = x1;
      flag2 = true;
      await esbmc.unlock();
    });
    await rt.spawn('t3', async () => {
      await esbmc.lock();
      x3 = x2;
      flag3 = true;
      await esbmc.unlock();
    });
    await rt.spawn('t4', async () => {
      await esbmc.lock();
      if (flag1 && flag2 && flag3)
        rt.check(x1 === x2 && x2 === x3, `token_ring: x1 ${x1}, x2 ${x2}, x3 ${x3}`);
      await esbmc.unlock();
    });
    await rt.exit(); // main returns without joining
  },
};

/** deadlock01_bad.c: two threads take a, b in opposite orders. */
const deadlock01: ZooProgram = {
  id: 'deadlock01',
  source: `${SRC}/deadlock01_bad.c`,
  threads: 3,
  bug: 'deadlock',
  deep: false,
  async main(rt) {
    const a = rt.mutex('a');
    const b = rt.mutex('b');
    let counter = 1;
    const t1 = await rt.spawn('thread1', async () => {
      await a.lock();
      await b.lock();
      counter++;
      await b.unlock();
      await a.unlock();
    });
    const t2 = await rt.spawn('thread2', async () => {
      await b.lock();
      await a.lock();
      counter--;
      await a.unlock();
      await b.unlock();
    });
    await joinAll([t1, t2]);
    void counter;
  },
};

/** lazy01_bad.c: thread3 asserts data < 3, which fails once thread1 and thread2 both ran first. */
const lazy01: ZooProgram = {
  id: 'lazy01',
  source: `${SRC}/lazy01_bad.c`,
  threads: 4,
  bug: 'assertion',
  deep: false,
  async main(rt) {
    const mutex = rt.mutex('mutex');
    let data = 0;
    const t1 = await rt.spawn('thread1', async () => {
      await mutex.lock();
      data++;
      await mutex.unlock();
    });
    const t2 = await rt.spawn('thread2', async () => {
      await mutex.lock();
      data += 2;
      await mutex.unlock();
    });
    const t3 = await rt.spawn('thread3', async () => {
      await mutex.lock();
      rt.check(!(data >= 3), `lazy01: data = ${data}`);
      await mutex.unlock();
    });
    await joinAll([t1, t2, t3]);
  },
};

/** circular_buffer_bad.c: the reader asserts the i-th element it removes is i; skipped turns break it. */
const circularBuffer: ZooProgram = {
  id: 'circular_buffer',
  source: `${SRC}/circular_buffer_bad.c`,
  threads: 3,
  bug: 'assertion',
  deep: false,
  async main(rt) {
    const BUFFER_MAX = 10;
    const N = 7;
    const ERROR = -1;
    const buffer = new Array<number>(BUFFER_MAX).fill(0);
    const bufferSize = 10; // initLog(10)
    let first = 0;
    let next = 0;
    let send = true;
    let receive = false;
    const m = rt.mutex('m');
    const removeLogElement = (): number => {
      if (next > 0 && first < bufferSize) {
        first++;
        return buffer[first - 1] ?? 0;
      }
      return ERROR;
    };
    const insertLogElement = (b: number): number => {
      if (next < bufferSize && bufferSize > 0) {
        buffer[next] = b;
        next = (next + 1) % bufferSize;
        rt.check(next < bufferSize, 'circular_buffer: next out of range');
        return b;
      }
      return ERROR;
    };
    const t1 = await rt.spawn('t1', async () => {
      for (let i = 0; i < N; i++) {
        await m.lock();
        if (send) {
          insertLogElement(i);
          send = false;
          receive = true;
        }
        await m.unlock();
      }
    });
    const t2 = await rt.spawn('t2', async () => {
      for (let i = 0; i < N; i++) {
        await m.lock();
        if (receive) {
          const removed = removeLogElement();
          rt.check(removed === i, `circular_buffer: removed ${removed} at turn ${i}`);
          receive = false;
          send = true;
        }
        await m.unlock();
      }
    });
    await joinAll([t1, t2]);
  },
};

/** queue_bad.c: the dequeuer asserts its i-th turn dequeues stored_elements[i]; skipped turns break it. */
const queue: ZooProgram = {
  id: 'queue',
  source: `${SRC}/queue_bad.c`,
  threads: 3,
  bug: 'assertion',
  deep: false,
  async main(rt) {
    const SIZE = 20;
    const EMPTY = -1;
    const q = { element: new Array<number>(SIZE + 1).fill(0), head: 0, tail: 0, amount: 0 };
    const stored = new Array<number>(SIZE + 1).fill(0);
    let enqueueFlag = true;
    let dequeueFlag = false;
    const m = rt.mutex('m');
    const empty = () => (q.head === q.tail ? EMPTY : 0);
    const enqueue = (x: number) => {
      q.element[q.tail] = x;
      q.amount++;
      q.tail = q.tail === SIZE ? 1 : q.tail + 1;
      return 0;
    };
    const dequeue = () => {
      const x = q.element[q.head] ?? 0;
      q.amount--;
      q.head = q.head === SIZE ? 1 : q.head + 1;
      return x;
    };
    rt.check(empty() === EMPTY, 'queue: not empty at start');
    const t1 = await rt.spawn('t1', async () => {
      await m.lock();
      let value = 0;
      rt.check(enqueue(value) === 0, 'queue: enqueue failed');
      stored[0] = value;
      rt.check(empty() === 0, 'queue: empty after enqueue');
      await m.unlock();
      for (let i = 0; i < SIZE - 1; i++) {
        await m.lock();
        if (enqueueFlag) {
          value++;
          enqueue(value);
          stored[i + 1] = value;
          enqueueFlag = false;
          dequeueFlag = true;
        }
        await m.unlock();
      }
    });
    const t2 = await rt.spawn('t2', async () => {
      for (let i = 0; i < SIZE; i++) {
        await m.lock();
        if (dequeueFlag) {
          const x = dequeue();
          rt.check(x === stored[i], `queue: dequeued ${x} at turn ${i}, stored ${stored[i]}`);
          dequeueFlag = false;
          enqueueFlag = true;
        }
        await m.unlock();
      }
    });
    await joinAll([t1, t2]);
  },
};

/** stack_bad.c: the popper pops whenever one push ever happened, so it can pop an empty stack. */
const stack: ZooProgram = {
  id: 'stack',
  source: `${SRC}/stack_bad.c`,
  threads: 3,
  bug: 'assertion',
  deep: false,
  async main(rt) {
    const SIZE = 10;
    const OVERFLOW = -1;
    const UNDERFLOW = -2;
    let top = 0;
    const arr = new Array<number>(SIZE).fill(0);
    let flag = false;
    const m = rt.mutex('m');
    const push = (x: number) => {
      if (top === SIZE) return OVERFLOW;
      arr[top] = x;
      top++;
      return 0;
    };
    const pop = () => {
      if (top === 0) return UNDERFLOW;
      top--;
      return arr[top] ?? 0;
    };
    const t1 = await rt.spawn('t1', async () => {
      for (let i = 0; i < SIZE; i++) {
        await m.lock();
        rt.check(push(i) !== OVERFLOW, 'stack: overflow');
        flag = true;
        await m.unlock();
      }
    });
    const t2 = await rt.spawn('t2', async () => {
      for (let i = 0; i < SIZE; i++) {
        await m.lock();
        if (flag) rt.check(pop() !== UNDERFLOW, 'stack: pop of an empty stack');
        await m.unlock();
      }
    });
    await joinAll([t1, t2]);
  },
};

/** The zoo, in benchmarks/buggy.txt's order of the issue's list. */
export const ZOO: readonly ZooProgram[] = [
  reorder('reorder_3', 2, 1, false),
  reorder('reorder_5', 4, 1, true),
  reorder('reorder_10', 9, 1, true),
  reorder('reorder_20', 10, 10, true),
  twostage('twostage', 1, 1, false),
  twostage('twostage_100', 99, 1, true),
  wronglock('wronglock', 1, 7, false),
  wronglock('wronglock_3', 1, 3, true),
  account,
  carter01,
  tokenRing,
  deadlock01,
  lazy01,
  circularBuffer,
  queue,
  stack,
];

export function zooProgram(id: string): ZooProgram | undefined {
  return ZOO.find((p) => p.id === id);
}
