package android.os;

/** https://developer.android.com/reference/android/os/SystemClock */
public final class SystemClock {
  /** https://developer.android.com/reference/android/os/SystemClock#sleep(long) */
  public static void sleep(long ms) { throw new RuntimeException("Stub!"); }
}
