package org.cetp.vectors.android;

import static org.robolectric.Shadows.shadowOf;

import android.app.Activity;
import android.app.Application;
import android.content.Intent;
import android.view.View;
import com.example.alerts.ConfirmActivity;
import org.cetp.vectors.TransportException;
import org.robolectric.Robolectric;
import org.robolectric.android.controller.ActivityController;

/**
 * The user under Robolectric: takes the Activity the PendingIntent started, runs it, and clicks
 * Approve or Deny, presses Back, or (never) leaves it open.
 */
final class RobolectricUser implements AndroidTransport.User {
  private final Application app;

  RobolectricUser(Application app) {
    this.app = app;
  }

  @Override
  @SuppressWarnings("deprecation") // Activity.onBackPressed: what the Back key does
  public void answer(String answer, String providerPackage) throws TransportException {
    Intent started = shadowOf(app).getNextStartedActivity();
    if (started == null || started.getComponent() == null)
      throw new TransportException("sending the PendingIntent started no Activity");
    if (!providerPackage.equals(started.getComponent().getPackageName()))
      throw new TransportException("the PendingIntent started " + started.getComponent() + ", not a screen of " + providerPackage);
    if (!started.getComponent().getClassName().equals(ConfirmActivity.class.getName()))
      throw new TransportException("the PendingIntent started " + started.getComponent().getClassName());
    ActivityController<ConfirmActivity> screen = Robolectric.buildActivity(ConfirmActivity.class, started).setup();
    Activity activity = screen.get();
    switch (answer) {
      case "approve":
      case "deny": {
        View button = activity.getWindow().getDecorView()
            .findViewWithTag(answer.equals("approve") ? ConfirmActivity.APPROVE : ConfirmActivity.DENY);
        if (button == null) throw new TransportException("the confirmation screen shows no " + answer + " button");
        button.performClick();
        break;
      }
      case "back":
        activity.onBackPressed();
        break;
      default:
        return; // never: the screen stays open, unanswered
    }
    if (activity.isFinishing()) screen.pause().stop().destroy();
  }
}
