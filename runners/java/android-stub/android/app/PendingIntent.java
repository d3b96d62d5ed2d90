package android.app;

import android.content.Context;
import android.content.Intent;
import android.os.Bundle;
import android.os.Parcelable;

/** https://developer.android.com/reference/android/app/PendingIntent */
public final class PendingIntent implements Parcelable {
  /** https://developer.android.com/reference/android/app/PendingIntent#getCreatorPackage() */
  public String getCreatorPackage() { throw new RuntimeException("Stub!"); }
  /** https://developer.android.com/reference/android/app/PendingIntent#isImmutable() (API 31) */
  public boolean isImmutable() { throw new RuntimeException("Stub!"); }
  /** https://developer.android.com/reference/android/app/PendingIntent#send(android.content.Context,%20int,%20android.content.Intent,%20android.app.PendingIntent.OnFinished,%20android.os.Handler,%20java.lang.String,%20android.os.Bundle) */
  public void send(Context context, int code, Intent intent, OnFinished onFinished, android.os.Handler handler,
      String requiredPermission, Bundle options) throws CanceledException { throw new RuntimeException("Stub!"); }
  /** https://developer.android.com/reference/android/app/PendingIntent.OnFinished */
  public interface OnFinished {}
  /** https://developer.android.com/reference/android/app/PendingIntent.CanceledException */
  public static class CanceledException extends Exception {
    private static final long serialVersionUID = 1L;
  }
}
