// Types of bundler.mjs (plain JavaScript: bin/cetp-sim.js loads it before any TypeScript support).
import type { Plugin } from 'esbuild';

export declare const BUNDLE_DIR: string;
export declare const ownImportMetaUrl: Plugin;
export declare function writeContentAddressed(
  dir: string,
  prefix: string,
  text: string,
  nowMs?: number,
): string;
export declare function esbuildVersion(): string;
export declare function bundleEntry(
  entry: string,
): Promise<{ text: string; inputs: Record<string, string | null> | null }>;
export declare function cachedBundle(entry: string): Promise<URL>;
export declare function freshSplit(): string | null;
export declare function splitBundle(): Promise<string>;
