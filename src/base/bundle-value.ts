/**
 * The types a Bundle value may have (android.os.Bundle's typed getters and setters): the simulated
 * Bundle (src/sim/binder/bundle.ts) stores them and the protocol's structural Bundle (src/protocol/
 * bundle-types.ts) reads them, so the word lives here, below both.
 */
export type BundleValueType =
  | 'Int'
  | 'Long'
  | 'String'
  | 'IntArray'
  | 'Boolean'
  | 'Bundle'
  | 'PendingIntent'
  | 'ParcelFileDescriptor'
  | 'Parcelable';
