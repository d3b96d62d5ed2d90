/** A malformed `--provider` module (used by the CLI tests): its fixture has no install function. */
import { ALERTS } from '../../fuzz/scenario/fixtures.ts';

const { install: _install, ...withoutInstall } = ALERTS;

export const providers = [withoutInstall];
