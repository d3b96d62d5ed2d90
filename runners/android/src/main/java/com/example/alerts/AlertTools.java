package com.example.alerts;

import android.content.ContentValues;
import android.database.Cursor;
import android.database.sqlite.SQLiteDatabase;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * The app's business as CETP tools (the spec's price-alert example, §3.3 and §10): get_quote,
 * list_alerts, create_alert (confirmation by the provider's policy: an alert price more than 20%
 * from the quote), delete_alert and clear_alerts (always confirmed; clear_alerts hidden from
 * callers without a live alerts.write grant, §7.2). Business rules beyond the schemas (§7.3): known
 * symbols only, a price at most 10x the quote, only the caller's own alerts.
 */
public final class AlertTools {
  public static final String READ_SCOPE = "alerts.read";
  public static final String WRITE_SCOPE = "alerts.write";
  /** Scopes every caller holds without asking the user. */
  public static final List<String> FREE_SCOPES = Collections.singletonList(READ_SCOPE);

  static final Map<String, Double> QUOTES = new HashMap<>();
  /** A listed but delisted symbol: the quote feed fails for it (an internal error that must not leak). */
  static final String DELISTED = "DLST";

  static {
    QUOTES.put("AAPL", 190.0);
    QUOTES.put("MSFT", 410.0);
    QUOTES.put("GOOG", 170.0);
    QUOTES.put("TSLA", 250.0);
    QUOTES.put("SAP", 180.0);
  }

  private AlertTools() {}

  /** The tools in list_tools order. */
  public static Map<String, Tool> all() {
    Map<String, Tool> tools = new LinkedHashMap<>();
    for (Tool t : Arrays.asList(new GetQuote(), new ListAlerts(), new CreateAlert(), new DeleteAlert(), new ClearAlerts()))
      tools.put(t.name, t);
    return tools;
  }

  private static final String READ_ANNOTATIONS = "{\"effect\":\"read\",\"risk\":\"low\",\"destructive\":false,"
      + "\"idempotent\":true,\"open_world\":%s,\"confirmation\":\"never\",\"execution\":\"sync\"}";
  private static final String DELETE_ANNOTATIONS = "{\"effect\":\"delete\",\"risk\":\"moderate\",\"destructive\":true,"
      + "\"idempotent\":true,\"open_world\":false,\"confirmation\":\"always\",\"execution\":\"sync\"}";

  static final class GetQuote extends Tool {
    GetQuote() {
      super("get_quote", "Get quote", "Returns the current price of a security",
          "{\"type\":\"object\",\"properties\":{\"symbol\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":12}},"
              + "\"required\":[\"symbol\"],\"additionalProperties\":false}",
          "{\"type\":\"object\",\"properties\":{\"symbol\":{\"type\":\"string\"},\"price\":{\"type\":\"number\"}},"
              + "\"required\":[\"symbol\",\"price\"]}",
          Collections.emptyList(), String.format(READ_ANNOTATIONS, "true"));
    }

    @Override
    public String validate(JSONObject args, int uid, AlertsDatabase db) {
      String symbol = args.optString("symbol");
      return QUOTES.containsKey(symbol) || symbol.equals(DELISTED) ? null : "Unknown symbol.";
    }

    @Override
    public JSONObject read(JSONObject args, int uid, AlertsDatabase db) throws JSONException {
      String symbol = args.getString("symbol");
      if (symbol.equals(DELISTED))
        throw new IllegalStateException("QuoteFeed.fetch(" + symbol + ") returned NaN (/data/data/com.example.alerts/feed.db)");
      return new JSONObject().put("symbol", symbol).put("price", QUOTES.get(symbol));
    }
  }

  static final class ListAlerts extends Tool {
    ListAlerts() {
      super("list_alerts", "List price alerts", "Lists the caller's price alerts",
          "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}",
          "{\"type\":\"object\",\"properties\":{\"alerts\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
              + "\"properties\":{\"alert_id\":{\"type\":\"string\"},\"symbol\":{\"type\":\"string\"},"
              + "\"price\":{\"type\":\"number\"}},\"required\":[\"alert_id\",\"symbol\",\"price\"]}}},\"required\":[\"alerts\"]}",
          Collections.singletonList(READ_SCOPE), String.format(READ_ANNOTATIONS, "false"));
    }

    @Override
    public JSONObject read(JSONObject args, int uid, AlertsDatabase db) throws JSONException {
      JSONArray alerts = new JSONArray();
      try (Cursor c = db.getReadableDatabase().rawQuery(
          "SELECT alert_id, symbol, price FROM alerts WHERE owner_uid = ? ORDER BY seq", new String[] {String.valueOf(uid)})) {
        while (c.moveToNext())
          alerts.put(new JSONObject().put("alert_id", c.getString(0)).put("symbol", c.getString(1)).put("price", c.getDouble(2)));
      }
      return new JSONObject().put("alerts", alerts);
    }
  }

  static final class CreateAlert extends Tool {
    CreateAlert() {
      super("create_alert", "创建价格提醒", "为指定证券创建价格提醒",
          "{\"type\":\"object\",\"properties\":{\"symbol\":{\"type\":\"string\"},\"price\":{\"type\":\"number\","
              + "\"exclusiveMinimum\":0}},\"required\":[\"symbol\",\"price\"],\"additionalProperties\":false}",
          "{\"type\":\"object\",\"properties\":{\"alert_id\":{\"type\":\"string\"}},\"required\":[\"alert_id\"]}",
          Collections.singletonList(WRITE_SCOPE),
          "{\"effect\":\"create\",\"risk\":\"moderate\",\"destructive\":false,\"idempotent\":false,"
              + "\"open_world\":false,\"confirmation\":\"provider_policy\",\"execution\":\"sync_or_async\"}");
    }

    @Override
    public String validate(JSONObject args, int uid, AlertsDatabase db) {
      Double quote = QUOTES.get(args.optString("symbol"));
      if (quote == null) return "Unknown symbol.";
      if (args.optDouble("price") > quote * 10) return "The alert price is implausibly far from the current price.";
      return null;
    }

    /** A price more than 20% from the quote is likely a mistake: the user confirms it (§3.4-12). */
    @Override
    public boolean needsConfirmation(JSONObject args) {
      double quote = QUOTES.get(args.optString("symbol"));
      return Math.abs(args.optDouble("price") - quote) / quote > 0.2;
    }

    @Override
    public JSONObject write(JSONObject args, int uid, SQLiteDatabase tx) throws JSONException {
      long seq = AlertsDatabase.nextAlertSeq(tx);
      String id = "ALRT-" + seq;
      ContentValues v = new ContentValues();
      v.put("alert_id", id);
      v.put("seq", seq);
      v.put("symbol", args.getString("symbol"));
      v.put("price", args.getDouble("price"));
      v.put("owner_uid", uid);
      tx.insertOrThrow("alerts", null, v);
      return new JSONObject().put("alert_id", id);
    }
  }

  static final class DeleteAlert extends Tool {
    DeleteAlert() {
      super("delete_alert", "Delete price alert", "Deletes one of your price alerts",
          "{\"type\":\"object\",\"properties\":{\"alert_id\":{\"type\":\"string\",\"pattern\":\"^ALRT-[0-9]+$\"}},"
              + "\"required\":[\"alert_id\"],\"additionalProperties\":false}",
          "{\"type\":\"object\",\"properties\":{\"deleted\":{\"type\":\"boolean\"},\"alert_id\":{\"type\":\"string\"}},"
              + "\"required\":[\"deleted\",\"alert_id\"]}",
          Collections.singletonList(WRITE_SCOPE), DELETE_ANNOTATIONS);
    }

    @Override
    public String validate(JSONObject args, int uid, AlertsDatabase db) {
      return owns(db.getReadableDatabase(), uid, args.optString("alert_id")) ? null : "No such alert.";
    }

    @Override
    public JSONObject write(JSONObject args, int uid, SQLiteDatabase tx) throws JSONException, CetpError {
      String id = args.getString("alert_id");
      if (!owns(tx, uid, id)) throw new CetpError("CONFLICT", "The alert no longer exists.", null, false);
      tx.delete("alerts", "alert_id = ?", new String[] {id});
      return new JSONObject().put("deleted", true).put("alert_id", id);
    }
  }

  static final class ClearAlerts extends Tool {
    ClearAlerts() {
      super("clear_alerts", "Clear price alerts", "Deletes all of your price alerts",
          "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}",
          "{\"type\":\"object\",\"properties\":{\"deleted\":{\"type\":\"integer\",\"minimum\":0}},\"required\":[\"deleted\"]}",
          Collections.singletonList(WRITE_SCOPE), DELETE_ANNOTATIONS);
    }

    /** Hidden completely from callers without a live alerts.write grant (§7.2-01, 7.2-02). */
    @Override
    public boolean visibleTo(int uid, AlertsDatabase db) {
      return AlertsDatabase.holds(db.getReadableDatabase(), uid, WRITE_SCOPE);
    }

    @Override
    public JSONObject write(JSONObject args, int uid, SQLiteDatabase tx) throws JSONException {
      int deleted = tx.delete("alerts", "owner_uid = ?", new String[] {String.valueOf(uid)});
      return new JSONObject().put("deleted", deleted);
    }
  }

  private static boolean owns(SQLiteDatabase db, int uid, String alertId) {
    try (Cursor c = db.rawQuery("SELECT 1 FROM alerts WHERE alert_id = ? AND owner_uid = ?",
        new String[] {alertId, String.valueOf(uid)})) {
      return c.moveToFirst();
    }
  }

  /** What get_provider_info answers (§3.2): identity, description, the scope catalogue. */
  public static JSONObject providerInfo(String packageName) throws JSONException {
    return new JSONObject()
        .put("provider_id", packageName)
        .put("provider_name", "Example App")
        .put("description", "管理价格提醒和自选列表")
        .put("schema_dialect", "https://json-schema.org/draft/2020-12/schema")
        .put("scopes", new JSONArray()
            .put(scope(READ_SCOPE, "查看价格提醒", "读取价格提醒", "read"))
            .put(scope(WRITE_SCOPE, "管理价格提醒", "创建、修改和删除提醒", "write")));
  }

  private static JSONObject scope(String name, String title, String description, String access) throws JSONException {
    return new JSONObject().put("name", name).put("title", title).put("description", description)
        .put("access", access).put("sensitivity", "financial");
  }
}
