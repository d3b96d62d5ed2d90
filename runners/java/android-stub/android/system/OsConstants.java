package android.system;

/** https://developer.android.com/reference/android/system/OsConstants (values are the real Linux ones; unused at compile time) */
public final class OsConstants {
  /** https://developer.android.com/reference/android/system/OsConstants#F_GETFL */
  public static final int F_GETFL = 3;
  /** https://developer.android.com/reference/android/system/OsConstants#O_ACCMODE */
  public static final int O_ACCMODE = 3;
  /** https://developer.android.com/reference/android/system/OsConstants#O_RDONLY */
  public static final int O_RDONLY = 0;
}
