package android.os;

/** https://developer.android.com/reference/android/os/RemoteException */
public class RemoteException extends Exception {
  private static final long serialVersionUID = 1L;
}
