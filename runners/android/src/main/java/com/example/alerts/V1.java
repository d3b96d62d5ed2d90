package com.example.alerts;

import android.os.Bundle;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * CETP v1 (no envelope, no session), kept for old callers: list_tools and execute_tool of the read
 * tools that need no scope; everything else does not exist in v1 (write tools are v2-only).
 */
final class V1 {
  private V1() {}

  static Bundle call(AlertsProvider provider, int uid, String method, Bundle in) throws JSONException {
    switch (method) {
      case "list_tools": {
        JSONArray list = new JSONArray();
        for (Tool t : provider.tools().values())
          if (inV1(t))
            list.put(new JSONObject().put("name", t.name).put("description", t.description).put("input_schema", t.inputSchema));
        return Replies.v1Success(new JSONObject().put("tools", list));
      }
      case "execute_tool": {
        String name = in.getString("tool_name");
        Tool tool = name == null ? null : provider.tools().get(name);
        if (tool == null || !inV1(tool)) return Replies.v1Error("TOOL_NOT_FOUND", "No tool named " + name + ".");
        String args = in.getString("args", "{}");
        try {
          ExecuteTool ex = provider.executor();
          return Replies.v1Success(tool.read(ex.args(tool, args, uid), uid, null));
        } catch (CetpError e) {
          return Replies.v1Error(e.code, e.getMessage());
        }
      }
      default:
        return Replies.v1Error("METHOD_NOT_FOUND", "No method named " + method + ".");
    }
  }

  private static boolean inV1(Tool t) {
    return t.isRead() && t.scopes.isEmpty();
  }
}
