package org.cetp.vectors;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.json.JSONObject;

/**
 * Everything the runner needs from a device: one provider's ContentProvider.call and a few
 * device-level actions. Values are in the vectors' typed encoding (vectors/README.md): the runner
 * hands over extras whose variables are already resolved (only {"type":"long","now_plus_ms":N}
 * is left for the device's wall clock), and a transport answers with the reply Bundle in tagged
 * form ({"type":"bundle","value":{…}} or {"type":"null"}), a PendingIntent as
 * {"type":"pending_intent","creator":"provider"|"other","immutable":b,"handle":h} and a file
 * descriptor as {"type":"fd","read_only":b,"handle":h}. All decisions (what to send, whether the
 * answer conforms) live in the runner; a transport only carries.
 *
 * <p>Each optional method may throw {@link UnsupportedAbility}: the vector is then skipped naming
 * the missing ability. A transport also says up front what it can do ({@link #capabilities()}),
 * so vectors that need more are skipped before they start.
 */
public interface Transport extends AutoCloseable {

  /** What this transport can do. */
  final class Capabilities {
    /** Abilities of vectors/README.md (core, user-action, process-kill, …), plus consumer-harness. */
    public final Set<String> abilities;
    /** The Java types it can put in a Bundle (int, long, string, …). */
    public final Set<String> valueTypes;
    /** The provider fixtures it can reach, by the manifest's names; null: every fixture. */
    public final Set<String> fixtures;

    public Capabilities(Set<String> abilities, Set<String> valueTypes, Set<String> fixtures) {
      this.abilities = abilities;
      this.valueTypes = valueTypes;
      this.fixtures = fixtures;
    }
  }

  /** A provider fixture of the manifest: the app a vector drives. */
  final class Fixture {
    public final String name;
    public final String packageName;
    public final String authority;

    public Fixture(String name, String packageName, String authority) {
      this.name = name;
      this.packageName = packageName;
      this.authority = authority;
    }
  }

  /** What a vector starts with: the primary caller's UID and a fresh UUID for each name asked. */
  final class Start {
    public final String callerUid;
    public final Map<String, String> fresh;

    public Start(String callerUid, Map<String, String> fresh) {
      this.callerUid = callerUid;
      this.fresh = fresh;
    }
  }

  /** What a consumer under test did for a consumer vector's task. */
  final class ConsumerObservation {
    /** By method, every request it sent (tagged extras), in order. */
    public final Map<String, List<JSONObject>> requests;
    /** Whose confirmation Activity it opened through a PendingIntent, in order: provider | other. */
    public final List<String> launches;
    /** What it handed its agent: {kind, code?}. */
    public final JSONObject outcome;

    public ConsumerObservation(Map<String, List<JSONObject>> requests, List<String> launches, JSONObject outcome) {
      this.requests = requests;
      this.launches = launches;
      this.outcome = outcome;
    }
  }

  Capabilities capabilities() throws TransportException;

  /**
   * Starts one vector against fixture on a fresh device state. {@code fresh} names the variables
   * to bind to new UUIDs; {@code seed} lets a simulated device reproduce a run (a real one ignores it).
   */
  Start begin(String vectorId, Fixture fixture, List<String> fresh, String seed) throws TransportException;

  /**
   * ContentProviderClient.call(method, arg, extras) from the primary caller or, with caller
   * "second", from an app with another UID (ability second-uid). Returns the tagged reply.
   */
  JSONObject call(String caller, String method, String arg, JSONObject extras) throws TransportException;

  /** count identical calls at once; the replies in the order they came back. */
  default List<JSONObject> parallel(int count, String caller, String method, String arg, JSONObject extras)
      throws TransportException {
    throw new UnsupportedAbility("parallel-calls");
  }

  /** Sends the PendingIntent handle from the app that received it; the user answers (ability user-action). */
  default void userAction(String answer, String handle) throws TransportException {
    throw new UnsupportedAbility("user-action");
  }

  /** Kills the provider app's main process (ability process-kill). */
  default void killProvider() throws TransportException {
    throw new UnsupportedAbility("process-kill");
  }

  /**
   * A vector's kill step (ability process-kill): process "main" (the default, what a kill step
   * always meant) kills the app's main process, "provider" the process its provider runs in (the
   * provider's android:process, ProviderInfo.processName; the main process if it declares none).
   * A transport that overrides only {@link #killProvider()} cannot tell them apart: it skips a
   * provider kill rather than kill the wrong process.
   */
  default void killProvider(String process) throws TransportException {
    if (!"main".equals(process)) throw new UnsupportedAbility("process-kill");
    killProvider();
  }

  /** Lets ms of device time pass (ability clock-control; also used between polls). */
  default void advanceClock(long ms) throws TransportException {
    throw new UnsupportedAbility("clock-control");
  }

  /** Reads a reply's file descriptor to its end and closes it (ability large_results). */
  default byte[] readFd(String handle) throws TransportException {
    throw new UnsupportedAbility("large_results");
  }

  /** Runs a consumer vector's task against its scripted provider (ability consumer-harness). */
  default ConsumerObservation runConsumer(JSONObject vector) throws TransportException {
    throw new UnsupportedAbility("consumer-harness");
  }

  /** Ends the vector begun last (release clients, close the session). */
  default void end() {}

  @Override
  default void close() {}
}
