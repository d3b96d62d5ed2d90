package android.app;

import android.os.Bundle;

/** https://developer.android.com/reference/android/app/ActivityOptions */
public class ActivityOptions {
  /** https://developer.android.com/reference/android/app/ActivityOptions#MODE_BACKGROUND_ACTIVITY_START_ALLOWED (API 34) */
  public static final int MODE_BACKGROUND_ACTIVITY_START_ALLOWED = 1;
  /** https://developer.android.com/reference/android/app/ActivityOptions#makeBasic() */
  public static ActivityOptions makeBasic() { throw new RuntimeException("Stub!"); }
  /** https://developer.android.com/reference/android/app/ActivityOptions#setPendingIntentBackgroundActivityStartMode(int) (API 34) */
  public ActivityOptions setPendingIntentBackgroundActivityStartMode(int mode) { throw new RuntimeException("Stub!"); }
  /** https://developer.android.com/reference/android/app/ActivityOptions#toBundle() */
  public Bundle toBundle() { throw new RuntimeException("Stub!"); }
}
