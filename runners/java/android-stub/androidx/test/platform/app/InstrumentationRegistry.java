package androidx.test.platform.app;

import android.app.Instrumentation;

/** https://developer.android.com/reference/androidx/test/platform/app/InstrumentationRegistry */
public final class InstrumentationRegistry {
  /** https://developer.android.com/reference/androidx/test/platform/app/InstrumentationRegistry#getInstrumentation() */
  public static Instrumentation getInstrumentation() { throw new RuntimeException("Stub!"); }
}
