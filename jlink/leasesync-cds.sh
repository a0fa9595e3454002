#!/bin/sh
# Creates leasesync's AppCDS archive (lib/app/leasesync.jsa) from the class list recorded at build
# time, for the paths the app is installed at: CDS only accepts the class path it was dumped with,
# so the .deb runs this after installing (postinst) and jlink/build.sh runs it for the app image.
# Takes a few seconds; without the archive the app starts too, only slower.
set -eu
app=$(cd "$(dirname "$0")" && pwd)
java="$app/../runtime/bin/java"
cp=""
while IFS= read -r line; do
  case "$line" in
    app.classpath=*) jar=${line#app.classpath=\$APPDIR/}; cp="${cp:+$cp:}$app/$jar" ;;
  esac
done < "$app/leasesync.cfg"
rm -f "$app/leasesync.jsa"
"$java" -Xshare:dump -XX:SharedClassListFile="$app/leasesync.classlist" \
        -XX:SharedArchiveFile="$app/leasesync.jsa" -Xmx256m -cp "$cp" > "$app/leasesync-cds.log" 2>&1
