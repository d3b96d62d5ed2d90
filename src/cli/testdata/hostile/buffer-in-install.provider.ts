/**
 * A `--provider` module whose install() replaces Buffer.byteLength during the runs — the count the
 * inline limit (CETP-4.5-01) and max_request_bytes are judged by (used by the tests).
 */
import { ALERTS } from '../../../../properties/scenario/fixtures.ts';

let installs = 0;

export const providers = [
  {
    ...ALERTS,
    name: 'byte_counter',
    install: (world: Parameters<typeof ALERTS.install>[0], variant: Parameters<typeof ALERTS.install>[1]) => {
      // Not while the module is checked (the first installs), only once the runs have begun.
      if (++installs > 3) Buffer.byteLength = () => 0;
      ALERTS.install(world, variant);
    },
  },
];
