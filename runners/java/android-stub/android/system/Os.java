package android.system;

import java.io.FileDescriptor;

/** https://developer.android.com/reference/android/system/Os */
public final class Os {
  /** https://developer.android.com/reference/android/system/Os#fcntlInt(java.io.FileDescriptor,%20int,%20int) */
  public static int fcntlInt(FileDescriptor fd, int cmd, int arg) throws ErrnoException { throw new RuntimeException("Stub!"); }
}
