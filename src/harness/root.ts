/**
 * The cetp-sim package root. Source scans (enforcement points, test titles) and spec files are read
 * from here, not from the current directory, so the commands work wherever they are run from.
 */
import { fileURLToPath } from 'node:url';

export const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));
