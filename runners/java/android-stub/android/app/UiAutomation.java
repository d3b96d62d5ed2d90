package android.app;

import android.os.ParcelFileDescriptor;

/** https://developer.android.com/reference/android/app/UiAutomation */
public final class UiAutomation {
  /** https://developer.android.com/reference/android/app/UiAutomation#executeShellCommand(java.lang.String) */
  public ParcelFileDescriptor executeShellCommand(String command) { throw new RuntimeException("Stub!"); }
}
