// The alerts app's fixture for module-format tests: plain JavaScript over cetp-sim's public entry
// (src/index.ts, by path, which the worker has loaded), so that CommonJS modules can require it too.
import { ALERTS_PROVIDER } from '../../../index.ts';

export const ALERTS = ALERTS_PROVIDER.fixture({
  name: 'alerts',
  tools: {
    get_quote: [{ symbol: 'AAPL' }],
    list_alerts: [{}],
    create_alert: [{ symbol: 'AAPL', price: 190 }],
  },
});
