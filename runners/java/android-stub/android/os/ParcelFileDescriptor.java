package android.os;

import java.io.FileDescriptor;
import java.io.IOException;

/** https://developer.android.com/reference/android/os/ParcelFileDescriptor */
public class ParcelFileDescriptor implements Parcelable, java.io.Closeable {
  /** https://developer.android.com/reference/android/os/ParcelFileDescriptor#getFileDescriptor() */
  public FileDescriptor getFileDescriptor() { throw new RuntimeException("Stub!"); }
  /** https://developer.android.com/reference/android/os/ParcelFileDescriptor#close() */
  @Override public void close() throws IOException { throw new RuntimeException("Stub!"); }
  /** https://developer.android.com/reference/android/os/ParcelFileDescriptor.AutoCloseInputStream */
  public static class AutoCloseInputStream extends java.io.FileInputStream {
    /** https://developer.android.com/reference/android/os/ParcelFileDescriptor.AutoCloseInputStream#AutoCloseInputStream(android.os.ParcelFileDescriptor) */
    public AutoCloseInputStream(ParcelFileDescriptor pfd) { super(new FileDescriptor()); throw new RuntimeException("Stub!"); }
  }
}
