#!/usr/bin/env bash
# AppCDS for an app image (called by jlink/build.sh). Start-up spends much of its time loading,
# parsing and verifying classes; a CDS archive holds them ready to map.
#  1. A training run records the classes start-up loads (-XX:DumpLoadedClassList) into
#     lib/app/leasesync.classlist: the window under Xvfb when xvfb-run is installed (it exits after
#     its first frame, LEASESYNC_STARTUP_PROBE=1), else the CLI.
#  2. lib/app/leasesync-cds.sh dumps the archive for the image's own paths, and the launcher is
#     pointed at it. The .deb runs the same script after installing, for /opt/leasesync.
# Usage: bash jlink/train-cds.sh target/dist/leasesync
set -euo pipefail
image=${1:?usage: train-cds.sh APP_IMAGE_DIR}
app="$image/lib/app"
cfg="$app/leasesync.cfg"
[ -f "$cfg" ] || { echo "train-cds.sh: $cfg not found" >&2; exit 1; }

data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT
sed -i -e "/SharedArchiveFile/d" -e "/DumpLoadedClassList/d" "$cfg"   # a re-run starts clean
rm -f "$app/leasesync.classlist" "$app/leasesync.jsa"
cp "$cfg" "$cfg.orig"
sed -i "/^\[JavaOptions\]/a java-options=-XX:DumpLoadedClassList=$app/leasesync.classlist" "$cfg"
if command -v xvfb-run >/dev/null \
    && LEASESYNC_STARTUP_PROBE=1 LEASESYNC_DATA_DIR="$data/gui" timeout 120 \
       xvfb-run -a -s "-screen 0 1280x900x24" "$image/bin/leasesync" >/dev/null 2>"$data/gui.err"; then
  echo "AppCDS training: the window (under Xvfb)"
else
  echo "AppCDS training: the CLI only (no xvfb-run, or the window did not start)"
  timeout 120 "$image/bin/leasesync" status --json --data-dir "$data/cli" >/dev/null 2>&1 || true
fi
mv "$cfg.orig" "$cfg"
[ -s "$app/leasesync.classlist" ] || { echo "train-cds.sh: no class list was written; no AppCDS" >&2; exit 0; }
sed -i "/^\[JavaOptions\]/a java-options=-XX:SharedArchiveFile=\$APPDIR/leasesync.jsa" "$cfg"
sh "$app/leasesync-cds.sh" || { echo "train-cds.sh: the dump failed; see $app/leasesync-cds.log" >&2; exit 1; }
echo "AppCDS archive: $app/leasesync.jsa ($(du -h "$app/leasesync.jsa" | cut -f1)), $(wc -l < "$app/leasesync.classlist") classes listed"
