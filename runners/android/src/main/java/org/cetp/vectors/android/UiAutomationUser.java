package org.cetp.vectors.android;

import android.accessibilityservice.AccessibilityService;
import android.app.UiAutomation;
import android.os.SystemClock;
import android.view.accessibility.AccessibilityNodeInfo;
import java.util.List;
import org.cetp.vectors.TransportException;

/**
 * The user on a device, through the framework's {@link UiAutomation} (no UiAutomator library):
 * waits for a window of the provider's package, then clicks the view with resource id
 * {@code cetp_approve} or {@code cetp_deny} in it, presses Back, or (never) leaves it open. Give
 * other ids if your confirmation screen differs.
 */
public final class UiAutomationUser implements AndroidTransport.User {
  private static final long POLL_MS = 100;
  private final UiAutomation ui;
  private final String approveId;
  private final String denyId;
  private final long timeoutMs;

  public UiAutomationUser(UiAutomation ui) {
    this(ui, "cetp_approve", "cetp_deny", 10_000);
  }

  public UiAutomationUser(UiAutomation ui, String approveId, String denyId, long timeoutMs) {
    this.ui = ui;
    this.approveId = approveId;
    this.denyId = denyId;
    this.timeoutMs = timeoutMs;
  }

  @Override
  public void answer(String answer, String providerPackage) throws TransportException {
    AccessibilityNodeInfo root = screenOf(providerPackage);
    switch (answer) {
      case "approve":
      case "deny": {
        String id = providerPackage + ":id/" + (answer.equals("approve") ? approveId : denyId);
        List<AccessibilityNodeInfo> found = root.findAccessibilityNodeInfosByViewId(id);
        if (found.isEmpty()) throw new TransportException("no view " + id + " on the confirmation screen");
        if (!found.get(0).performAction(AccessibilityNodeInfo.ACTION_CLICK))
          throw new TransportException("clicking " + id + " did nothing");
        return;
      }
      case "back":
        ui.performGlobalAction(AccessibilityService.GLOBAL_ACTION_BACK);
        return;
      default:
        // never: the screen stays open, unanswered.
    }
  }

  private AccessibilityNodeInfo screenOf(String providerPackage) throws TransportException {
    long end = SystemClock.uptimeMillis() + timeoutMs;
    while (SystemClock.uptimeMillis() < end) {
      AccessibilityNodeInfo root = ui.getRootInActiveWindow();
      if (root != null && root.getPackageName() != null && providerPackage.contentEquals(root.getPackageName())) return root;
      SystemClock.sleep(POLL_MS);
    }
    throw new TransportException("the confirmation screen of " + providerPackage + " did not appear within " + timeoutMs + " ms");
  }
}
