package org.cetp.vectors.android;

import android.app.Instrumentation;
import androidx.test.uiautomator.By;
import androidx.test.uiautomator.BySelector;
import androidx.test.uiautomator.UiDevice;
import androidx.test.uiautomator.UiObject2;
import androidx.test.uiautomator.Until;
import org.cetp.vectors.TransportException;

/**
 * The user, through UiAutomator: waits for the provider's confirmation screen, then clicks the
 * view with resource id {@code cetp_approve} or {@code cetp_deny} in the provider's package,
 * presses Back, or (never) leaves it open. Give other ids if your confirmation screen differs.
 */
public final class UiAutomatorUser implements AndroidTransport.User {
  private final UiDevice device;
  private final String approveId;
  private final String denyId;
  private final long timeoutMs;

  public UiAutomatorUser(Instrumentation instrumentation) {
    this(instrumentation, "cetp_approve", "cetp_deny", 10_000);
  }

  public UiAutomatorUser(Instrumentation instrumentation, String approveId, String denyId, long timeoutMs) {
    this.device = UiDevice.getInstance(instrumentation);
    this.approveId = approveId;
    this.denyId = denyId;
    this.timeoutMs = timeoutMs;
  }

  @Override
  public void answer(String answer, String providerPackage) throws TransportException {
    BySelector screen = By.pkg(providerPackage);
    if (!Boolean.TRUE.equals(device.wait(Until.hasObject(screen), timeoutMs)))
      throw new TransportException("the confirmation screen of " + providerPackage + " did not appear within " + timeoutMs + " ms");
    switch (answer) {
      case "approve":
      case "deny": {
        String id = answer.equals("approve") ? approveId : denyId;
        UiObject2 button = device.findObject(By.res(providerPackage, id));
        if (button == null) throw new TransportException("no view " + providerPackage + ":id/" + id + " on the confirmation screen");
        button.click();
        return;
      }
      case "back":
        device.pressBack();
        return;
      default:
        // never: the screen stays open, unanswered.
    }
  }
}
