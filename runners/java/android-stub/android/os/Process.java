package android.os;

/** https://developer.android.com/reference/android/os/Process */
public class Process {
  /** https://developer.android.com/reference/android/os/Process#myUid() */
  public static int myUid() { throw new RuntimeException("Stub!"); }
}
