#!/usr/bin/env bash
# Builds leasesync's installers (see README "Install"):
#   target/runtime          a jlink runtime: only the JDK and JavaFX modules the app needs, with
#                           JavaFX's native libraries inside it (nothing is extracted into $HOME)
#   target/dist/leasesync   a jpackage app image: bin/leasesync (the window and every CLI subcommand)
#   target/dist/*.deb       with --deb: a Debian package with a menu entry, installing to /opt/leasesync,
#                           with the command /usr/bin/leasesync
#
# Usage: bash jlink/build.sh [--deb] [--skip-maven] [--no-cds]
#   --deb         also build the .deb (needs fakeroot and dpkg-deb; about a minute)
#   --skip-maven  use the target/leasesync.jar and target/lib/ already built
#   --no-cds      do not generate the AppCDS archive (slower start-up)
set -euo pipefail
cd "$(dirname "$0")/.."

deb=false; maven=true; cds=true
for arg in "$@"; do
  case "$arg" in
    --deb) deb=true ;;
    --skip-maven) maven=false ;;
    --no-cds) cds=false ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "jlink/build.sh: unknown option '$arg' (try --help)" >&2; exit 2 ;;
  esac
done

for tool in jlink jpackage; do
  command -v "$tool" >/dev/null || { echo "jlink/build.sh: '$tool' not found: install a full JDK 17 (not a JRE)" >&2; exit 1; }
done

if $maven; then
  mvn -B -ntp -q package -DskipTests
fi
[ -f target/leasesync.jar ] || { echo "jlink/build.sh: target/leasesync.jar is missing; run without --skip-maven" >&2; exit 1; }

source jlink/config.sh

work=target/jlink
rm -rf "$work" target/runtime target/dist
mkdir -p "$work/input" "$work/natives" target/dist

# 1. The runtime image: JDK + JavaFX modules (JavaFX's -linux jars are modular jars).
fx_jars=$(ls target/lib/javafx-*-"$JAVAFX_VERSION"-linux.jar | tr '\n' ':')
jlink --module-path "$fx_jars" --add-modules "$MODULES" \
      --strip-debug --no-header-files --no-man-pages --compress=2 --generate-cds-archive \
      --output target/runtime
# JavaFX's native libraries go next to the JDK's, where JavaFX looks first.
for jar in target/lib/javafx-*-"$JAVAFX_VERSION"-linux.jar; do
  (cd "$work/natives" && jar xf "../../../$jar" $(jar tf "../../../$jar" | grep '\.so$' || true))
done
find "$work/natives" -name '*.so' -exec cp {} target/runtime/lib/ \;

# 2. The application: leasesync.jar and every non-JavaFX jar (JavaFX is in the runtime).
cp target/leasesync.jar jlink/leasesync-cds.sh "$work/input/"
for jar in target/lib/*.jar; do
  case "$(basename "$jar")" in javafx-*) ;; *) cp "$jar" "$work/input/" ;; esac
done

java_options=()
for opt in "${JAVA_OPTIONS[@]}" "${FX_MODULE_OPTIONS[@]}"; do
  # an option this runtime does not know would stop the launcher from starting at all (checked together
  # with the ones before it: -XX:MaxHeapFreeRatio=30 is valid only after -XX:MinHeapFreeRatio=10)
  if target/runtime/bin/java "${java_options[@]}" "$opt" -version >/dev/null 2>&1; then
    java_options+=("$opt")
  else
    echo "jlink/build.sh: this runtime does not know the JVM option $opt; the launcher goes without it" >&2
  fi
done

jpackage_common=(--name leasesync --app-version "$APP_VERSION" --vendor "$VENDOR"
  --description "$DESCRIPTION" --icon assets/leasesync.png
  --input "$work/input" --main-jar leasesync.jar --main-class org.leasesync.Launcher
  --runtime-image target/runtime)
for opt in "${java_options[@]}"; do jpackage_common+=(--java-options "$opt"); done

# 3. The app image, with a second launcher, bin/leasesync-tray, for the tray process a window hands
# the tray over to (desktop.resident.TrayProcessStart): the same JVM options, but not the AppCDS archive
# of step 4, which train-cds.sh gives the main launcher only. That archive holds the window's ~10,500
# classes, and this JDK maps it at a random address and relocates it at every start, so all of its
# ~64 MB become resident; the tray process, which loads no JavaFX, holds less with the runtime's own
# archive of JDK classes (docs/benchmarks.md).
# It also runs C1 only and slows the JVM's own timers (TRAY_JAVA_OPTIONS in config.sh).
printf 'java-options=%s\n' "${java_options[*]} ${TRAY_JAVA_OPTIONS[*]}" > "$work/tray-launcher.properties"
jpackage --type app-image "${jpackage_common[@]}" --add-launcher "leasesync-tray=$work/tray-launcher.properties" \
  --dest target/dist

# 4. AppCDS: a training run records the classes start-up loads into lib/app/leasesync.jsa.
if $cds; then
  bash jlink/train-cds.sh target/dist/leasesync
fi

echo "app image: target/dist/leasesync ($(du -sh target/dist/leasesync | cut -f1)); run target/dist/leasesync/bin/leasesync"

# 5. The .deb, made from the finished app image (so it carries the same AppCDS archive).
if $deb; then
  command -v fakeroot >/dev/null && command -v dpkg-deb >/dev/null \
    || { echo "jlink/build.sh: --deb needs fakeroot and dpkg-deb (apt-get install fakeroot dpkg-dev)" >&2; exit 1; }
  # The archive is dumped for the installed paths by the package's postinst, so it is not shipped.
  rm -rf "$work/deb-image" && cp -a target/dist/leasesync "$work/deb-image"
  rm -f "$work/deb-image/lib/app/leasesync.jsa" "$work/deb-image/lib/app/leasesync-cds.log"
  jpackage --type deb --app-image "$work/deb-image" --name leasesync --app-version "$APP_VERSION" \
      --vendor "$VENDOR" --description "$DESCRIPTION" --icon assets/leasesync.png \
      --linux-shortcut --linux-menu-group "$MENU_GROUP" --linux-app-category "$DEB_SECTION" \
      --linux-deb-maintainer "$MAINTAINER_EMAIL" --resource-dir jlink/resources --dest target/dist
  echo "deb: $(ls target/dist/*.deb) ($(du -sh target/dist/*.deb | cut -f1)); install with (as root): apt-get install ./$(ls target/dist/*.deb)"
fi
