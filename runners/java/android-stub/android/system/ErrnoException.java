package android.system;

/** https://developer.android.com/reference/android/system/ErrnoException */
public final class ErrnoException extends Exception {
  private static final long serialVersionUID = 1L;
}
