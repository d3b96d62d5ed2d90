package com.example.alerts;

import android.app.PendingIntent;
import android.os.Bundle;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import org.json.JSONObject;

/** The reply Bundles of spec §4.2 and §5: every value with the exact Bundle type the spec names. */
public final class Replies {
  public static final int PROTOCOL_VERSION = 2;

  /** Codes retryable by default (§5's table; CONFLICT, RATE_LIMITED … are conditional). */
  private static final Set<String> RETRYABLE = new HashSet<>(Arrays.asList(
      "NEGOTIATION_REQUIRED", "RATE_LIMITED", "DEADLINE_EXCEEDED", "UNAVAILABLE", "INTERNAL_ERROR"));

  private Replies() {}

  public static boolean retryable(String code) {
    return RETRYABLE.contains(code);
  }

  /** status=success; {@code data} is the method's result as JSON text. requestId null: negotiate. */
  public static Bundle success(String requestId, Object data) {
    Bundle b = new Bundle();
    b.putString("status", "success");
    b.putInt("protocol_version", PROTOCOL_VERSION);
    if (requestId != null) b.putString("request_id", requestId);
    b.putString("data", data.toString());
    return b;
  }

  /** status=accepted: an operation was started (§4.4). */
  public static Bundle accepted(String requestId, String operationId, long pollAfterMs) throws org.json.JSONException {
    Bundle b = new Bundle();
    b.putString("status", "accepted");
    b.putInt("protocol_version", PROTOCOL_VERSION);
    b.putString("request_id", requestId);
    b.putString("data", new JSONObject().put("operation_id", operationId).put("poll_after_ms", pollAfterMs).toString());
    return b;
  }

  /** status=error (§5). requestId null: a negotiate error, which has none. */
  public static Bundle error(String requestId, CetpError e) {
    Bundle b = new Bundle();
    b.putString("status", "error");
    b.putString("error_code", e.code);
    b.putString("error_message", e.getMessage());
    b.putBoolean("retryable", e.retryable != null ? e.retryable : retryable(e.code));
    b.putInt("protocol_version", PROTOCOL_VERSION);
    if (requestId != null) b.putString("request_id", requestId);
    if (e.details != null) b.putString("error_details", e.details.toString());
    return b;
  }

  /** AUTH_REQUIRED / USER_ACTION_REQUIRED with the resume token and the confirmation screen (§4.3). */
  public static Bundle needsUser(String requestId, CetpError e, String resumeToken, PendingIntent resolution) {
    Bundle b = error(requestId, e);
    b.putString("resume_token", resumeToken);
    b.putParcelable("resolution", resolution);
    return b;
  }

  /** A v1 reply (no envelope): data is the bare value. */
  public static Bundle v1Success(Object data) {
    Bundle b = new Bundle();
    b.putString("status", "success");
    b.putString("data", data.toString());
    return b;
  }

  public static Bundle v1Error(String code, String message) {
    Bundle b = new Bundle();
    b.putString("status", "error");
    b.putString("error_code", code);
    b.putString("error_message", message);
    b.putBoolean("retryable", false);
    return b;
  }
}
