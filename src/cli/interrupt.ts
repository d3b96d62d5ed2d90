/**
 * SIGINT and SIGTERM during a long command (`fuzz --time 600`): the first one hands the command the
 * signal, so it can print what it has so far (its replay files are already on disk) and exit with the
 * shell's code for the signal, 130 or 143; a second one exits at once with that code.
 */

export const SIGNAL_EXIT = { SIGINT: 130, SIGTERM: 143 } as const;
export type StopSignal = keyof typeof SIGNAL_EXIT;

export interface Interrupt {
  /** Removes the handlers (the command finished). */
  dispose(): void;
}

/** Until `dispose()`, the first SIGINT/SIGTERM calls `onSignal`; a second exits the process. */
export function onInterrupt(onSignal: (signal: StopSignal) => void): Interrupt {
  let received: StopSignal | null = null;
  const handlers = (Object.keys(SIGNAL_EXIT) as StopSignal[]).map((signal) => {
    const handler = () => {
      if (received !== null) process.exit(SIGNAL_EXIT[signal]);
      received = signal;
      onSignal(signal);
    };
    process.on(signal, handler);
    return [signal, handler] as const;
  });
  return {
    dispose: () => {
      for (const [signal, handler] of handlers) process.off(signal, handler);
    },
  };
}
