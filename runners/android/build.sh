#!/usr/bin/env bash
# Builds runners/android with Maven and runs its Robolectric tests: the shared vectors' core profile
# against the Java reference provider on API 34 and 35 through AndroidTransport, and AndroidTransport's
# Bundle types. Then compiles the device example of docs/device-testing.md against the same jars.
#   1. the build and its tests offline (mvn -o), Robolectric offline (robolectric.offline=true);
#   2. only if that fails: prefetch (online; near-instant with a warm ~/.m2) every plugin, dependency
#      and android-all jar the build needs, by running the build with no test selected, and 1 again.
# CETP_SIM_SKIP_JAVA=1, or no javac / mvn: exit 3 with one line (CI=true: a missing tool is exit 1).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"

if [ "${CETP_SIM_SKIP_JAVA:-}" = "1" ]; then
  echo "android runner: SKIPPED (CETP_SIM_SKIP_JAVA=1)"
  exit 3
fi
for tool in javac mvn; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    if [ "${CI:-}" = "true" ]; then
      echo "android runner: FAILED — no $tool on PATH (CI=true); install a JDK 17 and Maven 3.8+" >&2
      exit 1
    fi
    echo "android runner: SKIPPED — no $tool on PATH (install a JDK 17 and Maven 3.8+, or set CETP_SIM_SKIP_JAVA=1)"
    exit 3
  fi
done

MVN=(mvn -B --no-transfer-progress)
# Maven's own JVM on the client compiler only: a run this short spends more CPU in the server
# compiler than it gets back (the tests' JVM is told the same in pom.xml's argLine).
export MAVEN_OPTS="-XX:TieredStopAtLevel=1 ${MAVEN_OPTS:-}"
prefetch() {
  start=$SECONDS
  if ! "${MVN[@]}" -q test -Dtest=NoSuchTest -Dsurefire.failIfNoSpecifiedTests=false; then
    echo "android runner: FAILED — the online prefetch (Maven Central) did not complete; see above" >&2
    exit 1
  fi
  # (a newline first: Maven ends its output with colour resets and no newline)
  echo && echo "android runner: prefetch done in $((SECONDS - start)) s"
}
# Offline first: with a warm ~/.m2 (a machine that built this pom.xml before, CI included, even from
# a clean clone) the build needs nothing from the network, and the prefetch (a Maven start, ~7 s of
# CPU, ~3 s of it beyond the compile the offline build then skips) is spent only when the offline
# build fails (a cold or emptied ~/.m2, an edited pom.xml): then the prefetch runs and the offline
# build is tried once more — a test that fails fails both times, and the second run is the verdict.
start=$SECONDS
if ! "${MVN[@]}" -o test; then
  echo && echo "android runner: offline build failed; prefetching (online), then once more"
  prefetch
  start=$SECONDS
  "${MVN[@]}" -o test
fi
echo && echo "android runner: offline build and tests done in $((SECONDS - start)) s"

# The androidTest of docs/device-testing.md (test/android-runner.test.ts compares the two texts),
# compiled against the real framework and androidx.test's InstrumentationRegistry.
out="$here/target/android-example-classes"
# Maven lists the .aar files too; javac reads only jars (the aar's classes.jar is the monitor jar).
cp="$(tr ':' '\n' < "$here/target/test-classpath.txt" | grep -v '\.aar$' | paste -sd: -)"
rm -rf "$out" && mkdir -p "$out"
javac -J-XX:TieredStopAtLevel=1 --release 11 -Xlint:all,-options,-classfile,-processing -Werror -encoding UTF-8 \
  -cp "$here/target/classes:$cp:$here/target/aar/monitor/classes.jar" \
  -d "$out" $(find "$here/src/android-example/java" -name '*.java')
echo "android runner: device example compiled"
