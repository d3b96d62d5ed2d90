package com.example.alerts;

import android.database.sqlite.SQLiteDatabase;
import android.os.Bundle;
import android.util.Log;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * Operations (spec §4.4): a sync_or_async write, when the session negotiated async_operations,
 * is queued under a new operation_id and run on a worker; get_operation reports its state (and its
 * result once it succeeded), cancel_operation asks a queued or running one to stop. The operation
 * is the request's de-duplication record, so it survives the process like any other, and a replay
 * of the request answers {@code accepted} with the same operation_id while it runs.
 */
public final class Operations {
  public static final long POLL_AFTER_MS = 1_000;
  private static final String TAG = "CetpAlerts";
  private final AlertsDatabase db;
  private final ExecutorService worker = Executors.newSingleThreadExecutor();
  private ExecuteTool execute;

  public Operations(AlertsDatabase db) {
    this.db = db;
  }

  void bind(ExecuteTool execute) {
    this.execute = execute;
  }

  /** Queues the write; answers accepted. */
  Bundle start(Sessions.Session session, int uid, String requestId, Tool tool, JSONObject args, String digest)
      throws JSONException {
    String operationId = UUID.randomUUID().toString();
    AlertsDatabase.reserve(db.getWritableDatabase(), uid, requestId, tool.name, digest, "queued", operationId);
    worker.execute(() -> run(uid, requestId, tool, args, digest));
    return Replies.accepted(requestId, operationId, POLL_AFTER_MS);
  }

  private void run(int uid, String requestId, Tool tool, JSONObject args, String digest) {
    SQLiteDatabase w = db.getWritableDatabase();
    try {
      synchronized (execute.writeLock) {
        AlertsDatabase.Request r = AlertsDatabase.request(w, uid, requestId);
        if (r == null || r.terminal()) return;
        if (r.cancelRequested) {
          AlertsDatabase.settle(w, uid, requestId, tool.name, digest, "cancelled", null, null);
          return;
        }
        execute.write(w, uid, requestId, tool, args, digest);
      }
    } catch (CetpError recorded) {
      // ExecuteTool.write recorded it as the operation's failure.
    } catch (JSONException | RuntimeException e) {
      Log.e(TAG, "operation of " + tool.name + " failed", e);
      AlertsDatabase.settle(w, uid, requestId, tool.name, digest, "failed", null,
          errorJson(new CetpError("INTERNAL_ERROR", "The app could not complete the request.", null, true)).toString());
    }
  }

  /** The answer to a request that already has a terminal or running record (§6-05, §6-07). */
  Bundle replay(Sessions.Session session, String requestId, AlertsDatabase.Request r) throws CetpError, JSONException {
    if (r.terminalAt != null && ProviderClock.now() > r.terminalAt + 86_400_000L)
      throw new CetpError("RESULT_EXPIRED", "The result of this request is no longer kept.");
    switch (r.state) {
      case "succeeded": return Results.render(session, requestId, new JSONObject(r.result));
      case "failed": throw error(new JSONObject(r.error));
      case "cancelled": throw new CetpError("CANCELLED", "The request was cancelled.");
      case "user_cancelled": throw new CetpError("USER_CANCELLED", "The user did not approve the request.");
      default: return Replies.accepted(requestId, r.operationId, POLL_AFTER_MS);
    }
  }

  public Bundle get(Sessions.Session session, int uid, Envelope req) throws CetpError, JSONException {
    AlertsDatabase.Request r = mine(uid, req);
    JSONObject data = new JSONObject().put("operation_id", req.operationId)
        .put("state", r.state.equals("user_cancelled") ? "cancelled" : r.state);
    if (!r.terminal()) data.put("poll_after_ms", POLL_AFTER_MS);
    if (r.cancelRequested && !r.terminal()) data.put("cancellation_requested", true);
    if (r.state.equals("failed")) {
      JSONObject e = new JSONObject(r.error);
      data.put("error", new JSONObject().put("error_code", e.getString("code")).put("error_message", e.getString("message"))
          .put("retryable", e.getBoolean("retryable")));
    }
    if (!r.state.equals("succeeded")) return Replies.success(req.requestId, data);
    Bundle result = Results.render(session, req.requestId, new JSONObject(r.result));
    data.put("result", new JSONObject(result.getString("data")));
    Bundle reply = Replies.success(req.requestId, data);
    if (result.containsKey("result_fd")) reply.putParcelable("result_fd", (android.os.Parcelable) Envelope.value(result, "result_fd"));
    return reply;
  }

  public Bundle cancel(int uid, Envelope req) throws CetpError, JSONException {
    synchronized (execute.writeLock) {
      AlertsDatabase.Request r = mine(uid, req);
      if (r.state.equals("succeeded") || r.state.equals("failed"))
        throw new CetpError("CONFLICT", "The operation has already finished and can no longer be cancelled.", null, false);
      if (!r.terminal()) AlertsDatabase.requestCancel(db.getWritableDatabase(), req.operationId);
      return Replies.success(req.requestId,
          new JSONObject().put("operation_id", req.operationId).put("state", "cancellation_requested"));
    }
  }

  /** The caller's operation, asked for under the request_id that started it (§4.1-11, §4.4-12). */
  private AlertsDatabase.Request mine(int uid, Envelope req) throws CetpError {
    AlertsDatabase.Request r = AlertsDatabase.operation(db.getReadableDatabase(), req.operationId);
    if (r == null || r.uid != uid || !r.requestId.equals(req.requestId))
      throw CetpError.invalidRequest("No such operation for this caller and request_id.");
    return r;
  }

  static JSONObject errorJson(CetpError e) {
    try {
      return new JSONObject().put("code", e.code).put("message", e.getMessage())
          .put("retryable", e.retryable != null ? e.retryable : Replies.retryable(e.code));
    } catch (JSONException impossible) {
      throw new IllegalStateException(impossible);
    }
  }

  private static CetpError error(JSONObject e) {
    return new CetpError(e.optString("code"), e.optString("message"), null, e.optBoolean("retryable"));
  }

  void shutdown() {
    worker.shutdownNow();
  }
}
