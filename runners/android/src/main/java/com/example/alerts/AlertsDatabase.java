package com.example.alerts;

import android.content.ContentValues;
import android.content.Context;
import android.database.Cursor;
import android.database.sqlite.SQLiteDatabase;
import android.database.sqlite.SQLiteOpenHelper;

/**
 * Everything the provider must not forget when its process dies, in one SQLite database: the
 * alerts, the de-duplication records of write requests (spec §6), the confirmations and their
 * resume tokens (§4.3), the user's scope grants (§7.1) and the operations (§4.4). Sessions are not
 * here on purpose (see {@link Sessions}).
 */
public final class AlertsDatabase extends SQLiteOpenHelper {
  public static final String NAME = "cetp-alerts.db";
  private static AlertsDatabase instance;

  private AlertsDatabase(Context context) {
    super(context, NAME, null, 1);
  }

  /** The process's one instance (the provider and the confirmation Activity share it). */
  public static synchronized AlertsDatabase get(Context context) {
    if (instance == null) instance = new AlertsDatabase(context.getApplicationContext());
    return instance;
  }

  /** Closes the process's instance (the process is going away; tests model a kill with it). */
  public static synchronized void closeInstance() {
    if (instance != null) instance.close();
    instance = null;
  }

  @Override
  public void onCreate(SQLiteDatabase db) {
    db.execSQL("CREATE TABLE alerts (alert_id TEXT PRIMARY KEY, seq INTEGER NOT NULL, symbol TEXT NOT NULL,"
        + " price REAL NOT NULL, owner_uid INTEGER NOT NULL)");
    db.execSQL("CREATE TABLE requests (uid INTEGER NOT NULL, request_id TEXT NOT NULL, tool TEXT NOT NULL,"
        + " args_digest TEXT NOT NULL, state TEXT NOT NULL, result TEXT, error TEXT, operation_id TEXT UNIQUE,"
        + " cancel_requested INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL, terminal_at INTEGER,"
        + " PRIMARY KEY (uid, request_id))");
    db.execSQL("CREATE TABLE confirmations (id TEXT PRIMARY KEY, token TEXT NOT NULL UNIQUE, uid INTEGER NOT NULL,"
        + " request_id TEXT NOT NULL, tool TEXT NOT NULL, args_digest TEXT NOT NULL, kind TEXT NOT NULL,"
        + " scopes TEXT NOT NULL, summary TEXT NOT NULL, answer TEXT, consumed INTEGER NOT NULL DEFAULT 0,"
        + " expires_at INTEGER NOT NULL)");
    db.execSQL("CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL)");
    db.execSQL("CREATE TABLE grants (uid INTEGER NOT NULL, scope TEXT NOT NULL, expires_at INTEGER NOT NULL,"
        + " PRIMARY KEY (uid, scope))");
  }

  @Override
  public void onUpgrade(SQLiteDatabase db, int oldVersion, int newVersion) {
    // Version 1 only.
  }

  /** The next alert number: never reused, even after a delete. */
  public static long nextAlertSeq(SQLiteDatabase tx) {
    tx.execSQL("INSERT OR IGNORE INTO counters (name, value) VALUES ('alert', 0)");
    tx.execSQL("UPDATE counters SET value = value + 1 WHERE name = 'alert'");
    try (Cursor c = tx.rawQuery("SELECT value FROM counters WHERE name = 'alert'", null)) {
      c.moveToFirst();
      return c.getLong(0);
    }
  }

  // ---- requests (spec §6) ----

  /** A write request's de-duplication record, keyed by the caller's UID and its request_id. */
  public static final class Request {
    public final int uid;
    public final String requestId;
    public final String tool;
    public final String argsDigest;
    /** pending_confirmation | queued | running | succeeded | failed | cancelled | user_cancelled */
    public final String state;
    public final String result;
    public final String error;
    public final String operationId;
    public final boolean cancelRequested;
    public final long createdAt;
    public final Long terminalAt;

    Request(Cursor c) {
      uid = c.getInt(0);
      requestId = c.getString(1);
      tool = c.getString(2);
      argsDigest = c.getString(3);
      state = c.getString(4);
      result = c.getString(5);
      error = c.getString(6);
      operationId = c.getString(7);
      cancelRequested = c.getInt(8) != 0;
      createdAt = c.getLong(9);
      terminalAt = c.isNull(10) ? null : c.getLong(10);
    }

    public boolean terminal() {
      return !state.equals("pending_confirmation") && !state.equals("queued") && !state.equals("running");
    }
  }

  private static final String REQUEST_COLUMNS =
      "uid, request_id, tool, args_digest, state, result, error, operation_id, cancel_requested, created_at, terminal_at";

  public static Request request(SQLiteDatabase db, int uid, String requestId) {
    try (Cursor c = db.rawQuery("SELECT " + REQUEST_COLUMNS + " FROM requests WHERE uid = ? AND request_id = ?",
        new String[] {String.valueOf(uid), requestId})) {
      return c.moveToFirst() ? new Request(c) : null;
    }
  }

  public static Request operation(SQLiteDatabase db, String operationId) {
    try (Cursor c = db.rawQuery("SELECT " + REQUEST_COLUMNS + " FROM requests WHERE operation_id = ?",
        new String[] {operationId})) {
      return c.moveToFirst() ? new Request(c) : null;
    }
  }

  /** Reserves a request (pending_confirmation or queued), or leaves an existing reservation as it is. */
  public static void reserve(SQLiteDatabase db, int uid, String requestId, String tool, String digest, String state,
      String operationId) {
    ContentValues v = new ContentValues();
    v.put("uid", uid);
    v.put("request_id", requestId);
    v.put("tool", tool);
    v.put("args_digest", digest);
    v.put("state", state);
    v.put("operation_id", operationId);
    v.put("created_at", ProviderClock.now());
    db.insertWithOnConflict("requests", null, v, SQLiteDatabase.CONFLICT_IGNORE);
  }

  /** Moves a request to {@code state}; a terminal state stamps terminal_at (the window starts). */
  public static void settle(SQLiteDatabase db, int uid, String requestId, String tool, String digest, String state,
      String result, String error) {
    ContentValues v = new ContentValues();
    v.put("uid", uid);
    v.put("request_id", requestId);
    v.put("tool", tool);
    v.put("args_digest", digest);
    v.put("state", state);
    v.put("result", result);
    v.put("error", error);
    boolean terminal = !state.equals("queued") && !state.equals("running") && !state.equals("pending_confirmation");
    if (terminal) v.put("terminal_at", ProviderClock.now());
    int updated = db.update("requests", v, "uid = ? AND request_id = ?", new String[] {String.valueOf(uid), requestId});
    if (updated == 0) {
      v.put("created_at", ProviderClock.now());
      db.insertOrThrow("requests", null, v);
    }
  }

  public static void requestCancel(SQLiteDatabase db, String operationId) {
    ContentValues v = new ContentValues();
    v.put("cancel_requested", 1);
    db.update("requests", v, "operation_id = ?", new String[] {operationId});
  }

  // ---- confirmations (spec §4.3) ----

  public static final class Confirmation {
    public final String id;
    public final String token;
    public final int uid;
    public final String requestId;
    public final String tool;
    public final String argsDigest;
    /** grant_scopes | confirm */
    public final String kind;
    public final String scopes;
    public final String summary;
    /** null (unanswered) | approved | denied | dismissed */
    public final String answer;
    public final boolean consumed;
    public final long expiresAt;

    Confirmation(Cursor c) {
      id = c.getString(0);
      token = c.getString(1);
      uid = c.getInt(2);
      requestId = c.getString(3);
      tool = c.getString(4);
      argsDigest = c.getString(5);
      kind = c.getString(6);
      scopes = c.getString(7);
      summary = c.getString(8);
      answer = c.getString(9);
      consumed = c.getInt(10) != 0;
      expiresAt = c.getLong(11);
    }

    public boolean expired() {
      return ProviderClock.now() >= expiresAt;
    }
  }

  private static final String CONFIRMATION_COLUMNS =
      "id, token, uid, request_id, tool, args_digest, kind, scopes, summary, answer, consumed, expires_at";

  public static Confirmation confirmationByToken(SQLiteDatabase db, String token) {
    return confirmation(db, "token = ?", token);
  }

  public static Confirmation confirmationById(SQLiteDatabase db, String id) {
    return confirmation(db, "id = ?", id);
  }

  /** The newest unconsumed confirmation of a pending request. */
  public static Confirmation openConfirmation(SQLiteDatabase db, int uid, String requestId) {
    try (Cursor c = db.rawQuery("SELECT " + CONFIRMATION_COLUMNS + " FROM confirmations WHERE uid = ? AND request_id = ?"
        + " AND consumed = 0 ORDER BY rowid DESC LIMIT 1", new String[] {String.valueOf(uid), requestId})) {
      return c.moveToFirst() ? new Confirmation(c) : null;
    }
  }

  private static Confirmation confirmation(SQLiteDatabase db, String where, String arg) {
    try (Cursor c = db.rawQuery("SELECT " + CONFIRMATION_COLUMNS + " FROM confirmations WHERE " + where,
        new String[] {arg})) {
      return c.moveToFirst() ? new Confirmation(c) : null;
    }
  }

  public static void insertConfirmation(SQLiteDatabase db, ContentValues v) {
    db.insertOrThrow("confirmations", null, v);
  }

  /** Records the user's answer once; later answers to the same screen change nothing. */
  public static boolean answer(SQLiteDatabase db, String id, String answer) {
    ContentValues v = new ContentValues();
    v.put("answer", answer);
    return db.update("confirmations", v, "id = ? AND answer IS NULL AND consumed = 0", new String[] {id}) == 1;
  }

  public static void consume(SQLiteDatabase db, String id) {
    ContentValues v = new ContentValues();
    v.put("consumed", 1);
    db.update("confirmations", v, "id = ?", new String[] {id});
  }

  // ---- grants (spec §7.1) ----

  public static void grant(SQLiteDatabase db, int uid, String scope, long expiresAt) {
    ContentValues v = new ContentValues();
    v.put("uid", uid);
    v.put("scope", scope);
    v.put("expires_at", expiresAt);
    db.insertWithOnConflict("grants", null, v, SQLiteDatabase.CONFLICT_REPLACE);
  }

  public static boolean holds(SQLiteDatabase db, int uid, String scope) {
    try (Cursor c = db.rawQuery("SELECT 1 FROM grants WHERE uid = ? AND scope = ? AND expires_at > ?",
        new String[] {String.valueOf(uid), scope, String.valueOf(ProviderClock.now())})) {
      return c.moveToFirst();
    }
  }
}
