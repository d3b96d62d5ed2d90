#!/usr/bin/env bash
# Builds the Java vector runner's core with plain javac (Java 11 language level, so it runs on
# Android) and runs its JUnit 4 tests against the simulation. Needs only Debian packages
# (scripts/java-deps.sh installs them when run as root, and says so). The Android side
# (AndroidTransport, the reference provider, Robolectric) is runners/android, built with Maven.
# CETP_SIM_SKIP_JAVA=1, or no javac: exit 3 with one line (CI=true and no javac: exit 1, a failure).
#   runners/java/build.sh          build + JUnit tests
#   runners/java/build.sh --no-test  build only
# Output: runners/java/build/{classes,test-classes}; prints the classpath to use
# for the runner on its last line as "classpath: …".
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
JSON_JAR=/usr/share/java/com.android.json.jar
JUNIT_JAR=/usr/share/java/junit4.jar
HAMCREST_JAR=/usr/share/java/hamcrest-core.jar

if [ "${CETP_SIM_SKIP_JAVA:-}" = "1" ]; then
  echo "java runner: SKIPPED (CETP_SIM_SKIP_JAVA=1)"
  exit 3
fi
if ! command -v javac >/dev/null 2>&1 && [ "${CI:-}" != "true" ]; then
  echo "java runner: SKIPPED — no javac on PATH (install a JDK 11+, or set CETP_SIM_SKIP_JAVA=1 to silence this)"
  exit 3
fi

if ! bash "$root/scripts/java-deps.sh"; then
  if [ "${CI:-}" = "true" ]; then
    echo "java runner: FAILED — the JDK / libandroid-json-java / junit4 could not be installed (CI=true)" >&2
    exit 1
  fi
  echo "" >&2
  echo "!!! java runner: SKIPPED — the JDK or Debian's libandroid-json-java / junit4 are missing and cannot be installed here." >&2
  echo "!!! Run scripts/java-deps.sh as root to install them. In CI (CI=true) this is a failure." >&2
  echo "" >&2
  exit 3
fi

# Client compiler only (-XX:TieredStopAtLevel=1) for javac and java: runs this short spend more CPU
# in the server compiler than it gets back (about half the CPU of this script).
C1=-XX:TieredStopAtLevel=1

out="$here/build"
rm -rf "$out"
mkdir -p "$out/classes" "$out/test-classes"

# The runner: only org.json on the classpath (what Android ships).
javac -J$C1 --release 11 -Xlint:all -Werror -encoding UTF-8 -cp "$JSON_JAR" -d "$out/classes" \
  $(find "$here/src/main/java" -name '*.java')

if [ "${1:-}" = "--no-test" ]; then
  echo "classpath: $out/classes:$JSON_JAR"
  exit 0
fi

javac -J$C1 --release 11 -encoding UTF-8 -cp "$out/classes:$JSON_JAR:$JUNIT_JAR:$HAMCREST_JAR" -d "$out/test-classes" \
  $(find "$here/src/test/java" -name '*.java')
tests=$(cd "$out/test-classes" && find . -name '*Test.class' | sed -e 's#^\./##' -e 's#\.class$##' -e 's#/#.#g' | sort)
# shellcheck disable=SC2086
(cd "$root" && java $C1 -cp "$out/test-classes:$out/classes:$JSON_JAR:$JUNIT_JAR:$HAMCREST_JAR" org.junit.runner.JUnitCore $tests)
echo "classpath: $out/classes:$JSON_JAR"
