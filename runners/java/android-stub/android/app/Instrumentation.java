package android.app;

import android.content.Context;

/** https://developer.android.com/reference/android/app/Instrumentation */
public class Instrumentation {
  /** https://developer.android.com/reference/android/app/Instrumentation#getUiAutomation() */
  public UiAutomation getUiAutomation() { throw new RuntimeException("Stub!"); }
  /** https://developer.android.com/reference/android/app/Instrumentation#getContext() */
  public Context getContext() { throw new RuntimeException("Stub!"); }
}
