/** A `--provider` module whose fixture names an authority its package does not declare (CLI tests). */
import { ALERTS } from '../../fuzz/scenario/fixtures.ts';

export const providers = [{ ...ALERTS, authority: 'com.example.nowhere' }];
