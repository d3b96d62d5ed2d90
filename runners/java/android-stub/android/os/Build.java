package android.os;

/** https://developer.android.com/reference/android/os/Build */
public class Build {
  /** https://developer.android.com/reference/android/os/Build.VERSION */
  public static class VERSION {
    /** https://developer.android.com/reference/android/os/Build.VERSION#SDK_INT */
    public static final int SDK_INT = 0;
  }
}
