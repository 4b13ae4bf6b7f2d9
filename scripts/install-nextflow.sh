#!/usr/bin/env bash
# install-nextflow.sh VERSION NXF_HOME
#
# Installs a released Nextflow, offline but for Maven Central, into a Nextflow home as Runyard and
# Nextflow's own launcher look for it (docs/nextflow.md):
#
#   NXF_HOME/framework/VERSION/lib/*.jar     io.nextflow:nextflow:VERSION and its runtime dependencies,
#                                            resolved by Maven from Maven Central only
#   NXF_HOME/framework/VERSION/nextflow-VERSION-one.jar
#                                            a thin jar (Main-Class nextflow.cli.Launcher, Class-Path
#                                            lib/*.jar): the file Runyard counts as an installed version
#                                            and that Nextflow's standard launcher runs with `java -jar`
#   NXF_HOME/bin/nextflow                    a launcher for every version of this home: runs
#                                            NXF_VER (default: the newest installed) with the JVM
#                                            options of Nextflow's own launcher, the --add-opens among
#                                            them (without them, on Java 17, the task cache stays
#                                            empty and -resume re-runs every task)
#
# Everything sits under framework/, which a Runyard task sees (read-only) of the home. A version
# installed completely before (its thin jar is written last) is kept: the script then only rewrites
# the launcher. Plugins (nf-amazon, ...) are not installed: Nextflow downloads them from its
# registry, which is not Maven Central.
#
# Environment: MVN (default mvn); MAVEN_CENTRAL_URL (default https://repo.maven.apache.org/maven2,
# e.g. a company mirror of Central): the only repository Maven reads; MAVEN_REPO_LOCAL (default
# Maven's, ~/.m2/repository). Needs Java 11 or newer and Maven (Debian: apt-get install maven).
set -euo pipefail

usage='usage: install-nextflow.sh VERSION NXF_HOME'
VER=${1:?$usage}
HOME_DIR=${2:?$usage}
MVN=${MVN:-mvn}
CENTRAL=${MAVEN_CENTRAL_URL:-https://repo.maven.apache.org/maven2}

[[ "$VER" =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[A-Za-z0-9.]+)?$ ]] || { echo "install-nextflow: not a Nextflow version: $VER" >&2; exit 2; }
command -v java >/dev/null || { echo 'install-nextflow: java is not on the PATH (Debian: apt-get install default-jre-headless)' >&2; exit 1; }

mkdir -p "$HOME_DIR"
HOME_DIR=$(cd "$HOME_DIR" && pwd)
FW="$HOME_DIR/framework/$VER"
JAR="$FW/nextflow-$VER-one.jar"

write_launcher() {
  mkdir -p "$HOME_DIR/bin"
  local tmp="$HOME_DIR/bin/.nextflow.$$"
  cat >"$tmp" <<'LAUNCHER'
#!/usr/bin/env bash
# Nextflow's launcher for a home made by Runyard's scripts/install-nextflow.sh: runs
# $NXF_HOME/framework/$NXF_VER/nextflow-$NXF_VER-one.jar with the JVM options of Nextflow's own
# launcher (nextflow-io/nextflow, the `nextflow` script). It never downloads anything.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export NXF_HOME=${NXF_HOME:-$here}
export NXF_CLI="$0 $*"
export NXF_ORG=${NXF_ORG:-nextflow-io}
unset JAVA_TOOL_OPTIONS
if [[ -n "${JAVA_CMD:-}" ]]; then :
elif [[ -n "${JAVA_HOME:-}" ]]; then JAVA_CMD="$JAVA_HOME/bin/java"
else JAVA_CMD=java
fi
export JAVA_CMD
if [[ -z "${NXF_VER:-}" ]]; then
  NXF_VER=$(ls "$NXF_HOME/framework" 2>/dev/null | sort -V | while read -r v; do
    [[ -f "$NXF_HOME/framework/$v/nextflow-$v-one.jar" ]] && echo "$v"; done | tail -n 1)
  [[ -n "$NXF_VER" ]] || { echo "No Nextflow version is installed in $NXF_HOME (scripts/install-nextflow.sh VERSION $NXF_HOME)" >&2; exit 1; }
fi
# The standard launcher's check of NXF_VER.
[[ "$NXF_VER" =~ ([0-9]+)\.([0-9]+)\.([0-9].*) ]] || { echo "Not a valid Nextflow version: $NXF_VER" >&2; exit 1; }
export NXF_VER
NXF_BIN=${NXF_BIN:-$NXF_HOME/framework/$NXF_VER/nextflow-$NXF_VER-one.jar}
if [[ ! -f "$NXF_BIN" ]]; then
  echo "ERROR: Nextflow $NXF_VER is not installed: $NXF_BIN is missing -- install it with scripts/install-nextflow.sh $NXF_VER $NXF_HOME" >&2
  exit 1
fi
declare -a jvmopts=() args=("$@")
# shellcheck disable=SC2206
[[ -n "${NXF_CLI_OPTS:-}" ]] && args+=($NXF_CLI_OPTS)
bg='' cmd=''
commands=' clone config drop help history info ls pull run view node console kuberun inspect lint secrets plugin fs log '
for a in "$@"; do
  case $a in
    -D*) [[ -z "$cmd" ]] && jvmopts+=("$a") ;;
    -bg) bg=1 ;;
    -self-update | self-update | -download)
      [[ -z "$cmd" ]] && { echo "nextflow: '$a' is not available: this home was installed from Maven Central by install-nextflow.sh" >&2; exit 1; } ;;
    *) [[ -n "$a" && "$a" != -* && -z "$cmd" && "$commands" == *" $a "* ]] && cmd=$a ;;
  esac
done
opts=(-Dfile.encoding=UTF-8 -Dcom.sun.security.enableAIAcaIssuers=true)
[[ "$cmd" != console ]] && opts+=(-Djava.awt.headless=true)
[[ "$cmd" != run && "$cmd" != node ]] && opts+=(-XX:+TieredCompilation -XX:TieredStopAtLevel=1)
# shellcheck disable=SC2206
[[ -n "${NXF_OPTS:-}" ]] && opts+=($NXF_OPTS)
[[ -n "${NXF_TEMP:-}" ]] && opts+=(-Djava.io.tmpdir="$NXF_TEMP")
opts+=("${jvmopts[@]}")
# shellcheck disable=SC2206
[[ -n "${NXF_JVM_ARGS:-}" ]] && opts+=($NXF_JVM_ARGS)
# Java 9 and newer: the --add-opens of Nextflow's launcher. Without them the task cache (Kryo) fails
# silently on Java 17: every task runs again on -resume.
jver=$("$JAVA_CMD" -version 2>&1 | awk -F'"' '/version/ {print $2; exit}')
if [[ "${jver%%.*}" =~ ^[0-9]+$ && "${jver%%.*}" -ge 9 ]]; then
  for p in java.lang java.io java.nio java.net java.util java.util.concurrent.locks java.util.concurrent.atomic \
    java.nio.file.spi sun.nio.ch sun.nio.fs sun.net.www.protocol.http sun.net.www.protocol.https \
    sun.net.www.protocol.ftp sun.net.www.protocol.file jdk.internal.misc jdk.internal.vm java.util.regex; do
    opts+=("--add-opens=java.base/$p=ALL-UNNAMED")
  done
fi
if [[ -n "$bg" ]]; then
  "$JAVA_CMD" "${opts[@]}" -jar "$NXF_BIN" "${args[@]}" &
  disown
  echo $! >"${NXF_PID_FILE:-.nextflow.pid}"
  exit 0
fi
exec "$JAVA_CMD" "${opts[@]}" -jar "$NXF_BIN" "${args[@]}"
LAUNCHER
  chmod 755 "$tmp"
  mv -f "$tmp" "$HOME_DIR/bin/nextflow"
}

if [[ -f "$JAR" && -f "$FW/lib/nextflow-$VER.jar" ]]; then
  write_launcher
  echo "install-nextflow: Nextflow $VER is installed in $HOME_DIR (kept); run $HOME_DIR/bin/nextflow"
  exit 0
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/nf-install.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

cat >"$WORK/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.runyard</groupId>
  <artifactId>nextflow-assembly</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>io.nextflow</groupId><artifactId>nextflow</artifactId><version>$VER</version></dependency>
  </dependencies>
</project>
EOF
# Maven Central only: every repository a POM names goes to it.
cat >"$WORK/settings.xml" <<EOF
<settings xmlns="http://maven.apache.org/SETTINGS/1.0.0">
  <mirrors><mirror><id>central-only</id><mirrorOf>*</mirrorOf><url>$CENTRAL</url></mirror></mirrors>
</settings>
EOF
mvn_args=(-B -q -Dstyle.color=never -s "$WORK/settings.xml" -f "$WORK/pom.xml")
[[ -n "${MAVEN_REPO_LOCAL:-}" ]] && mvn_args+=("-Dmaven.repo.local=$MAVEN_REPO_LOCAL")

mkdir -p "$FW"
rm -rf "$FW/lib.new" "$JAR"
if ! "$MVN" "${mvn_args[@]}" dependency:copy-dependencies -DoutputDirectory="$FW/lib.new" -DincludeScope=runtime >"$WORK/mvn.log" 2>&1; then
  echo "install-nextflow: Maven could not resolve io.nextflow:nextflow:$VER from $CENTRAL:" >&2
  sed 's/\x1b\[[0-9;]*m//g' "$WORK/mvn.log" | grep -m1 -E 'Failed to execute goal|Could not (resolve|find|transfer)' >&2 || tail -20 "$WORK/mvn.log" >&2
  rm -rf "$FW/lib.new"
  exit 1
fi
[[ -f "$FW/lib.new/nextflow-$VER.jar" ]] || { echo "install-nextflow: nextflow-$VER.jar is missing after resolution" >&2; exit 1; }
rm -rf "$FW/lib"
mv "$FW/lib.new" "$FW/lib"

# The thin jar, written last: its presence says the version is complete. Manifest lines hold at
# most 72 bytes; a continuation line starts with one space.
mf="$WORK/MANIFEST.MF"
cp=''
for j in "$FW"/lib/*.jar; do cp+=" lib/$(basename "$j")"; done
{
  echo 'Manifest-Version: 1.0'
  echo 'Main-Class: nextflow.cli.Launcher'
  line="Class-Path:$cp"
  echo "${line:0:70}"
  line=${line:70}
  while [[ -n "$line" ]]; do
    echo " ${line:0:69}"
    line=${line:69}
  done
  echo "Nextflow-Version: $VER"
} >"$mf"
if command -v jar >/dev/null 2>&1; then
  mkdir "$WORK/empty"
  jar --create --file "$WORK/one.jar" --manifest "$mf" -C "$WORK/empty" .
else
  python3 - "$WORK/one.jar" "$mf" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], 'w') as z:
    z.write(sys.argv[2], 'META-INF/MANIFEST.MF')
PY
fi
mv "$WORK/one.jar" "$JAR"
write_launcher
echo "install-nextflow: Nextflow $VER installed in $HOME_DIR ($(find "$FW/lib" -name '*.jar' | wc -l) jars, $(du -sh "$FW/lib" | cut -f1)); run $HOME_DIR/bin/nextflow"
