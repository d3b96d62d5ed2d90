package com.example.alerts;

import android.database.sqlite.SQLiteDatabase;
import java.util.List;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * One tool of the provider (spec §3.4): its descriptor (schemas, scopes, annotations), its
 * business validation, whether a call needs the user's confirmation, and its work. A read tool
 * runs outside any transaction; a write runs inside the transaction that records its result, so
 * the effect and the de-duplication record commit together (spec §6).
 */
public abstract class Tool {
  public final String name;
  public final String title;
  public final String description;
  public final JSONObject inputSchema;
  public final JSONObject outputSchema;
  /** Scopes a caller must hold (a free scope is held by every caller). */
  public final List<String> scopes;
  public final JSONObject annotations;

  protected Tool(String name, String title, String description, String inputSchema, String outputSchema,
      List<String> scopes, String annotations) {
    this.name = name;
    this.title = title;
    this.description = description;
    try {
      this.inputSchema = new JSONObject(inputSchema);
      this.outputSchema = new JSONObject(outputSchema);
      this.annotations = new JSONObject(annotations);
    } catch (JSONException e) {
      throw new IllegalArgumentException("bad descriptor of " + name, e);
    }
    this.scopes = scopes;
  }

  public boolean isRead() {
    return "read".equals(annotations.optString("effect"));
  }

  /** Whether the caller may see and call it (a sensitive tool may be hidden, spec §7.2). */
  public boolean visibleTo(int uid, AlertsDatabase db) {
    return true;
  }

  /** Business rules beyond the schema (§7.3): a message for INVALID_ARGS, or null. */
  public String validate(JSONObject args, int uid, AlertsDatabase db) {
    return null;
  }

  /** Whether this call needs the user's confirmation (always, or by the provider's policy). */
  public boolean needsConfirmation(JSONObject args) {
    return "always".equals(annotations.optString("confirmation"));
  }

  /** A read tool's work. */
  public JSONObject read(JSONObject args, int uid, AlertsDatabase db) throws JSONException, CetpError {
    throw new UnsupportedOperationException(name + " is not a read tool");
  }

  /** A write tool's work, inside {@code tx}; a CetpError rolls it back and is recorded as the answer. */
  public JSONObject write(JSONObject args, int uid, SQLiteDatabase tx) throws JSONException, CetpError {
    throw new UnsupportedOperationException(name + " is not a write tool");
  }

  /**
   * Its list_tools entry (§3.4), for a session: sync_or_async reads "sync" unless the session
   * negotiated async_operations (the tool will not answer with an operation then).
   */
  public JSONObject descriptor(boolean async) throws JSONException {
    JSONObject shown = new JSONObject(annotations.toString());
    if (!async && "sync_or_async".equals(shown.optString("execution"))) shown.put("execution", "sync");
    return new JSONObject()
        .put("name", name)
        .put("title", title)
        .put("description", description)
        .put("input_schema", inputSchema)
        .put("output_schema", outputSchema)
        .put("scopes", new org.json.JSONArray(scopes))
        .put("annotations", shown);
  }
}
