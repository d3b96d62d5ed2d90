package com.example.alerts;

import android.os.Bundle;
import java.util.regex.Pattern;

/**
 * A v2 request's envelope (spec §4.1), read by exact Bundle type: protocol_version is an Int,
 * deadline_at_ms a Long, the ids Strings. A value of another type is INVALID_REQUEST, never a
 * silent default (an Int deadline read with getLong would be 0).
 */
public final class Envelope {
  private static final Pattern UUID =
      Pattern.compile("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

  public final String method;
  public final String sessionToken;
  public final String requestId;
  public final long deadlineAtMs;
  /** execute_tool only. */
  public final String toolName;
  public final String args;
  public final String resumeToken;
  /** get_operation / cancel_operation only. */
  public final String operationId;

  private Envelope(String method, Bundle extras) throws CetpError {
    this.method = method;
    this.sessionToken = extras.getString("session_token");
    this.requestId = string(extras, "request_id", true);
    if (!UUID.matcher(requestId).matches()) throw CetpError.invalidRequest("request_id must be a UUID.");
    Object deadline = value(extras, "deadline_at_ms");
    if (!(deadline instanceof Long)) throw CetpError.invalidRequest("deadline_at_ms must be a Long.");
    this.deadlineAtMs = (Long) deadline;
    boolean execute = method.equals("execute_tool");
    this.toolName = execute ? string(extras, "tool_name", true) : null;
    this.args = execute ? string(extras, "args", true) : null;
    this.resumeToken = execute ? string(extras, "resume_token", false) : null;
    boolean operation = method.equals("get_operation") || method.equals("cancel_operation");
    this.operationId = operation ? string(extras, "operation_id", true) : null;
  }

  /** The envelope of a v2 request whose protocol_version and session_token were checked. */
  public static Envelope read(String method, Bundle extras) throws CetpError {
    return new Envelope(method, extras);
  }

  /** The request_id to echo in an error before the envelope could be read: the String sent, or "". */
  public static String rawRequestId(Bundle extras) {
    Object id = value(extras, "request_id");
    return id instanceof String ? (String) id : "";
  }

  @SuppressWarnings("deprecation") // Bundle.get: the one getter that shows a value's exact type
  static Object value(Bundle extras, String key) {
    return extras.get(key);
  }

  private static String string(Bundle extras, String key, boolean required) throws CetpError {
    Object v = value(extras, key);
    if (v == null && !required) return null;
    if (!(v instanceof String)) throw CetpError.invalidRequest(key + " must be a String.");
    return (String) v;
  }
}
