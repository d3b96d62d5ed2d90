package com.example.alerts;

import android.content.Context;
import android.database.sqlite.SQLiteDatabase;
import android.os.Bundle;
import android.util.Log;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * execute_tool (spec §4, §4.3, §6), in this order: tool → args → (a read runs now) → de-duplication
 * record → resume token → deadline → scopes → confirmation → effect. A write request is de-duplicated
 * by (caller UID, request_id) in {@link AlertsDatabase}: the same request again gets the recorded
 * answer — never a second effect, even after the process died — and the same request_id with another
 * tool or other args is INVALID_REQUEST. The lookup, the effect and its record run under one lock and
 * in one transaction, so identical concurrent requests execute once.
 */
public final class ExecuteTool {
  private static final String TAG = "CetpAlerts";
  private final Context context;
  private final AlertsDatabase db;
  private final Map<String, Tool> tools;
  private final Operations operations;
  /** Serialises de-duplication lookups with the effects they guard. */
  final Object writeLock = new Object();

  public ExecuteTool(Context context, AlertsDatabase db, Map<String, Tool> tools, Operations operations) {
    this.context = context;
    this.db = db;
    this.tools = tools;
    this.operations = operations;
  }

  /** The tool this caller may call by that name, or TOOL_NOT_FOUND (hidden tools too, §7.2-02). */
  Tool find(String name, int uid) throws CetpError {
    Tool tool = tools.get(name);
    if (tool == null || !tool.visibleTo(uid, db)) throw new CetpError("TOOL_NOT_FOUND", "No tool named " + name + ".");
    return tool;
  }

  /** Parses and checks args (INVALID_ARGS: not JSON, outside the schema, or against business rules). */
  JSONObject args(Tool tool, String text, int uid) throws CetpError {
    JSONObject args;
    try {
      args = new JSONObject(text);
    } catch (JSONException e) {
      throw new CetpError("INVALID_ARGS", "The arguments are not valid JSON.");
    }
    String issue = ArgsSchema.firstIssue(tool.inputSchema, args);
    if (issue != null) {
      try {
        JSONObject details = new JSONObject().put("issues", new org.json.JSONArray().put(issue));
        throw new CetpError("INVALID_ARGS", "The arguments do not match the tool's input schema.", details, false);
      } catch (JSONException e) {
        throw new IllegalStateException(e);
      }
    }
    String business = tool.validate(args, uid, db);
    if (business != null) throw new CetpError("INVALID_ARGS", business);
    return args;
  }

  public Bundle execute(int uid, Sessions.Session session, Envelope req) throws CetpError, JSONException {
    Tool tool = find(req.toolName, uid);
    JSONObject args = args(tool, req.args, uid);
    String digest = sha256(req.args);
    if (tool.isRead()) {
      // A read is not recorded, but a request_id already bound to a write stays bound (§6-04).
      if (AlertsDatabase.request(db.getReadableDatabase(), uid, req.requestId) != null) throw reused();
      checkDeadline(req);
      return Results.render(session, req.requestId, read(tool, args, uid));
    }
    synchronized (writeLock) {
      SQLiteDatabase w = db.getWritableDatabase();
      AlertsDatabase.Request existing = AlertsDatabase.request(w, uid, req.requestId);
      if (existing != null) {
        if (!existing.tool.equals(tool.name) || !existing.argsDigest.equals(digest)) throw reused();
        if (!existing.state.equals("pending_confirmation")) return operations.replay(session, req.requestId, existing);
      }
      boolean confirmed = false;
      if (req.resumeToken != null) {
        if (existing == null) throw CetpError.invalidRequest("Invalid resume_token: no such pending request.");
        AlertsDatabase.Confirmation c = AlertsDatabase.confirmationByToken(w, req.resumeToken);
        if (c == null || c.uid != uid || !c.requestId.equals(req.requestId) || !c.tool.equals(tool.name)
            || !c.argsDigest.equals(digest) || c.consumed)
          throw CetpError.invalidRequest("Invalid resume_token: it does not resume this request.");
        if (c.expired()) throw CetpError.invalidRequest("Invalid resume_token: it has expired.");
        if (!"approved".equals(c.answer)) {
          // Denied, dismissed, or not answered (yet): the user did not approve; nothing runs (§4.3-08).
          w.beginTransaction();
          try {
            AlertsDatabase.consume(w, c.id);
            AlertsDatabase.settle(w, uid, req.requestId, tool.name, digest, "user_cancelled", null, null);
            w.setTransactionSuccessful();
          } finally {
            w.endTransaction();
          }
          throw new CetpError("USER_CANCELLED", "The user did not approve the request.");
        }
        checkDeadline(req);
        AlertsDatabase.consume(w, c.id);
        confirmed = c.kind.equals("confirm");
      } else if (existing != null) {
        // The same pending request again: the same question, or a new one if it expired (§6-07).
        AlertsDatabase.Confirmation open = AlertsDatabase.openConfirmation(w, uid, req.requestId);
        if (open != null && !open.expired() && open.answer == null) return ask(req, open);
        checkDeadline(req);
      } else {
        checkDeadline(req);
      }
      List<String> missing = new ArrayList<>();
      for (String scope : tool.scopes)
        if (!AlertTools.FREE_SCOPES.contains(scope) && !AlertsDatabase.holds(w, uid, scope)) missing.add(scope);
      if (!missing.isEmpty())
        return reserveAndAsk(w, uid, req, tool, digest, "grant_scopes", missing, String.join(", ", missing));
      if (!confirmed && tool.needsConfirmation(args))
        return reserveAndAsk(w, uid, req, tool, digest, "confirm", new ArrayList<>(), tool.title + " " + req.args);
      if (session.has("async_operations") && "sync_or_async".equals(tool.annotations.optString("execution")))
        return operations.start(session, uid, req.requestId, tool, args, digest);
      return Results.render(session, req.requestId, write(w, uid, req.requestId, tool, args, digest));
    }
  }

  /** Runs a write and records its outcome in one transaction; returns the recorded value. */
  JSONObject write(SQLiteDatabase w, int uid, String requestId, Tool tool, JSONObject args, String digest)
      throws CetpError, JSONException {
    JSONObject value;
    w.beginTransaction();
    try {
      value = tool.write(args, uid, w);
      AlertsDatabase.settle(w, uid, requestId, tool.name, digest, "succeeded", value.toString(), null);
      w.setTransactionSuccessful();
    } catch (CetpError failure) {
      w.endTransaction(); // the effect rolls back; the failure is the request's recorded answer
      w.beginTransaction();
      AlertsDatabase.settle(w, uid, requestId, tool.name, digest, "failed", null, Operations.errorJson(failure).toString());
      w.setTransactionSuccessful();
      throw failure;
    } finally {
      w.endTransaction();
    }
    return value;
  }

  private JSONObject read(Tool tool, JSONObject args, int uid) throws CetpError {
    try {
      return tool.read(args, uid, db);
    } catch (CetpError e) {
      throw e;
    } catch (JSONException | RuntimeException e) {
      // Logged for the app's developers; the caller gets no stack trace, path or class name (§5-25).
      Log.e(TAG, "tool " + tool.name + " failed", e);
      throw new CetpError("INTERNAL_ERROR", "The app could not complete the request. Try again later.", null, true);
    }
  }

  private Bundle reserveAndAsk(SQLiteDatabase w, int uid, Envelope req, Tool tool, String digest, String kind,
      List<String> scopes, String summary) throws JSONException {
    AlertsDatabase.Confirmation c;
    w.beginTransaction();
    try {
      AlertsDatabase.reserve(w, uid, req.requestId, tool.name, digest, "pending_confirmation", null);
      c = Confirmations.open(w, uid, req.requestId, tool.name, digest, kind, scopes, summary);
      w.setTransactionSuccessful();
    } finally {
      w.endTransaction();
    }
    return ask(req, c);
  }

  /** AUTH_REQUIRED (scopes to grant) or USER_ACTION_REQUIRED (confirm this call), with its screen. */
  private Bundle ask(Envelope req, AlertsDatabase.Confirmation c) throws JSONException {
    boolean grant = c.kind.equals("grant_scopes");
    JSONObject details = new JSONObject().put("resolution", grant ? "grant_scopes" : "confirm")
        .put("scopes", new org.json.JSONArray(c.scopes));
    CetpError e = grant
        ? new CetpError("AUTH_REQUIRED", "The app needs your permission first.", details, false)
        : new CetpError("USER_ACTION_REQUIRED", "Please confirm this request in the app.", details, false);
    return Replies.needsUser(req.requestId, e, c.token, Confirmations.screen(context, c.id));
  }

  private static void checkDeadline(Envelope req) throws CetpError {
    if (ProviderClock.now() > req.deadlineAtMs)
      throw new CetpError("DEADLINE_EXCEEDED", "The request's deadline has passed.");
  }

  private static CetpError reused() {
    return CetpError.invalidRequest("This request_id was already used with a different tool or arguments.");
  }

  static String sha256(String text) {
    return Results.sha256(text.getBytes(StandardCharsets.UTF_8));
  }
}
