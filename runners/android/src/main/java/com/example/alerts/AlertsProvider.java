package com.example.alerts;

import android.content.ContentProvider;
import android.content.ContentValues;
import android.database.Cursor;
import android.net.Uri;
import android.os.Binder;
import android.os.Bundle;
import android.util.Log;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * The alerts app's CETP surface (spec v2, dual stack with v1): one exported ContentProvider whose
 * {@code call()} is the whole protocol. Declare it with the authority
 * {@code com.example.alerts.clawseed.tools}; every caller is identified by
 * {@link Binder#getCallingUid()} only (spec §7.1).
 *
 * <p>Request handling, in order: negotiate (no envelope) · v1 (no protocol_version) · the v2
 * envelope (method, protocol_version Int, session, request_id UUID, deadline Long) · the session ·
 * the capability the method needs · the method. Errors are answered as Bundles, never thrown
 * across Binder; an exception in the app's own code is INTERNAL_ERROR without its text.
 */
public class AlertsProvider extends ContentProvider {
  public static final String AUTHORITY = "com.example.alerts.clawseed.tools";
  private static final String TAG = "CetpAlerts";
  private static final List<String> CAPABILITIES = Arrays.asList("async_operations", "cancellation", "large_results");
  private static final List<String> V2_METHODS =
      Arrays.asList("get_provider_info", "list_tools", "execute_tool", "get_operation", "cancel_operation");
  private static final int MAX_CONCURRENT_REQUESTS = 4;
  private static final int MAX_REQUEST_BYTES = 65_536;
  private static final int IDEMPOTENCY_WINDOW_SECONDS = 86_400;

  private final Sessions sessions = new Sessions();
  private Map<String, Tool> tools;
  private AlertsDatabase db;
  private Operations operations;
  private ExecuteTool execute;

  @Override
  public boolean onCreate() {
    tools = AlertTools.all();
    db = AlertsDatabase.get(getContext());
    operations = new Operations(db);
    execute = new ExecuteTool(getContext(), db, tools, operations);
    operations.bind(execute);
    return true;
  }

  @Override
  public Bundle call(String method, String arg, Bundle extras) {
    int uid = Binder.getCallingUid();
    Bundle in = extras == null ? new Bundle() : extras;
    try {
      if (method.equals("negotiate")) return negotiate(uid, in);
      if (!in.containsKey("protocol_version")) return V1.call(this, uid, method, in);
      return v2(uid, method, in);
    } catch (JSONException | RuntimeException e) {
      Log.e(TAG, method + " failed", e);
      return Replies.error(Envelope.rawRequestId(in),
          new CetpError("INTERNAL_ERROR", "The app could not complete the request. Try again later.", null, true));
    }
  }

  private Bundle v2(int uid, String method, Bundle in) throws JSONException {
    String rawId = Envelope.rawRequestId(in);
    try {
      if (!V2_METHODS.contains(method)) throw new CetpError("METHOD_NOT_FOUND", "No method named " + method + ".");
      Object version = Envelope.value(in, "protocol_version");
      if (!(version instanceof Integer)) throw CetpError.invalidRequest("protocol_version must be an Int.");
      if ((Integer) version != Replies.PROTOCOL_VERSION)
        throw new CetpError("UNSUPPORTED_VERSION", "This app speaks CETP version 2.");
      Object token = Envelope.value(in, "session_token");
      if (!(token instanceof String) || ((String) token).isEmpty())
        throw new CetpError("NEGOTIATION_REQUIRED", "Negotiate a session first.");
      Envelope req = Envelope.read(method, in);
      Sessions.Session session = sessions.check(req.sessionToken, uid);
      if (session == null) throw new CetpError("NEGOTIATION_REQUIRED", "The session is unknown or expired; negotiate again.");
      String needed = method.equals("get_operation") ? "async_operations"
          : method.equals("cancel_operation") ? "cancellation" : null;
      if (needed != null && !session.has(needed))
        throw new CetpError("UNSUPPORTED_CAPABILITY", method + " needs " + needed + ", which was not negotiated.");
      switch (method) {
        case "get_provider_info": return Replies.success(req.requestId, AlertTools.providerInfo(getContext().getPackageName()));
        case "list_tools": return Replies.success(req.requestId, listTools(uid, session.has("async_operations")));
        case "execute_tool": return execute.execute(uid, session, req);
        case "get_operation": return operations.get(session, uid, req);
        default: return operations.cancel(uid, req);
      }
    } catch (CetpError e) {
      return Replies.error(rawId, e);
    }
  }

  private Bundle negotiate(int uid, Bundle in) throws JSONException {
    Object versions = Envelope.value(in, "consumer_versions");
    Object offered = Envelope.value(in, "consumer_capabilities");
    JSONArray wanted;
    try {
      if (!(versions instanceof int[]) || !(offered instanceof String)) throw new JSONException("bad types");
      wanted = new JSONArray((String) offered);
    } catch (JSONException e) {
      return Replies.error(null, CetpError.invalidRequest(
          "negotiate needs consumer_versions (int[]) and consumer_capabilities (a JSON array as a String)."));
    }
    boolean v2 = false;
    for (int v : (int[]) versions) v2 |= v == Replies.PROTOCOL_VERSION;
    if (!v2) return Replies.error(null, new CetpError("UNSUPPORTED_VERSION", "No common version: this app supports 1 and 2."));
    List<String> both = new ArrayList<>();
    for (String c : CAPABILITIES)
      for (int i = 0; i < wanted.length(); i++)
        if (c.equals(wanted.opt(i))) both.add(c);
    Sessions.Session s = sessions.open(uid, both);
    JSONObject data = new JSONObject()
        .put("selected_version", Replies.PROTOCOL_VERSION)
        .put("provider_id", getContext().getPackageName())
        .put("provider_name", "Example App")
        .put("session_token", s.token)
        .put("expires_at", java.time.Instant.ofEpochMilli(s.expiresAtMs).toString())
        .put("capabilities", new JSONArray(both))
        .put("limits", new JSONObject()
            .put("max_request_bytes", MAX_REQUEST_BYTES)
            .put("max_inline_result_bytes", Results.MAX_INLINE_RESULT_BYTES)
            .put("max_concurrent_requests", MAX_CONCURRENT_REQUESTS)
            .put("idempotency_window_seconds", IDEMPOTENCY_WINDOW_SECONDS));
    return Replies.success(null, data);
  }

  /** The tools this caller may see, and a revision that changes when that list does (§3.4). */
  private JSONObject listTools(int uid, boolean async) throws JSONException {
    JSONArray list = new JSONArray();
    for (Tool t : tools.values())
      if (t.visibleTo(uid, db)) list.put(t.descriptor(async));
    String revision = "tools-" + Results.sha256(list.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8)).substring(0, 16);
    return new JSONObject().put("revision", revision).put("tools", list);
  }

  Map<String, Tool> tools() {
    return tools;
  }

  ExecuteTool executor() {
    return execute;
  }

  @Override
  public void shutdown() {
    operations.shutdown();
  }

  // A CETP provider serves call() only.
  @Override
  public Cursor query(Uri uri, String[] projection, String selection, String[] selectionArgs, String sortOrder) {
    return null;
  }

  @Override
  public String getType(Uri uri) {
    return null;
  }

  @Override
  public Uri insert(Uri uri, ContentValues values) {
    return null;
  }

  @Override
  public int delete(Uri uri, String selection, String[] selectionArgs) {
    return 0;
  }

  @Override
  public int update(Uri uri, ContentValues values, String selection, String[] selectionArgs) {
    return 0;
  }
}
