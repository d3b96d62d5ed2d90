package org.cetp.vectors.android;

import static org.robolectric.Shadows.shadowOf;

import android.app.PendingIntent;
import android.content.Context;
import android.content.Intent;
import android.os.Bundle;
import org.robolectric.annotation.Implementation;
import org.robolectric.annotation.Implements;
import org.robolectric.shadows.ShadowPendingIntent;

/**
 * What the system does and Robolectric 4.17 leaves out: a PendingIntent's creator is the package of
 * the Context that created it (Robolectric reports the test application's package for every one).
 * With it, getCreatorPackage() tells the provider's own PendingIntent from anyone else's.
 */
@Implements(PendingIntent.class)
public class ShadowCreatorPendingIntent extends ShadowPendingIntent {
  @Implementation
  protected static PendingIntent getActivity(Context context, int requestCode, Intent intent, int flags) {
    return created(context, ShadowPendingIntent.getActivity(context, requestCode, intent, flags));
  }

  @Implementation
  protected static PendingIntent getActivity(Context context, int requestCode, Intent intent, int flags, Bundle options) {
    return created(context, ShadowPendingIntent.getActivity(context, requestCode, intent, flags, options));
  }

  private static PendingIntent created(Context context, PendingIntent pi) {
    shadowOf(pi).setCreatorPackage(context.getPackageName());
    return pi;
  }
}
