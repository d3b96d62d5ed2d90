package com.example.alerts;

import java.util.function.LongSupplier;

/**
 * The wall clock every expiry of the provider is measured on (sessions, resume tokens, grants,
 * deadlines, the idempotency window). System time on a device; a test moves it instead of waiting.
 */
public final class ProviderClock {
  private static volatile LongSupplier source = System::currentTimeMillis;

  private ProviderClock() {}

  public static long now() {
    return source.getAsLong();
  }

  /** For tests only: read the time from {@code clock}. */
  public static void use(LongSupplier clock) {
    source = clock;
  }
}
