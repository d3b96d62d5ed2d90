/**
 * Progress of a long command: a live bar on a terminal (cli-progress, drawn on stderr so stdout stays
 * the report), one plain line per finished unit otherwise (CI logs, pipes). With --json nothing but
 * the bar is drawn: stdout is the single JSON object.
 */
import cliProgress from 'cli-progress';
import type { Io } from './io.ts';

export interface Progress {
  /** A unit of work starts (named on the bar). */
  begin(label: string): void;
  /** A unit finished: its one-line summary is printed now without a bar, or once the bar is gone. */
  done(line: string): void;
  /** Removes the bar and prints the summaries it held back. */
  finish(): void;
}

export function startProgress(io: Io, total: number, options: { json: boolean; noun: string }): Progress {
  const stream = io.progressStream;
  if (!stream || total === 0) {
    return {
      begin: () => {},
      done: (line) => {
        if (!options.json) io.out(line);
      },
      finish: () => {},
    };
  }
  const held: string[] = [];
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: `${options.noun} {bar} {value}/{total} {duration_formatted} | {label}`,
      clearOnComplete: true,
      hideCursor: true,
      barsize: 24,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0, { label: '' });
  return {
    begin: (label) => {
      bar.update({ label });
      bar.render();
    },
    done: (line) => {
      held.push(line);
      bar.increment();
    },
    finish: () => {
      bar.stop();
      if (!options.json) for (const line of held) io.out(line);
    },
  };
}
