# Settings for jlink/build.sh (sourced).

APP_VERSION=0.1.0
# The .deb's Maintainer field is "VENDOR <MAINTAINER_EMAIL>" (jpackage builds it from --vendor and
# --linux-deb-maintainer, which takes the e-mail address only).
VENDOR="leasesync team"
DESCRIPTION="Desktop sync client that never runs the same sync task twice at once"
MAINTAINER_EMAIL=team@leasesync.invalid
MENU_GROUP=Network
DEB_SECTION=net
JAVAFX_VERSION=21.0.11

# The JDK and JavaFX modules the app needs (jdeps --print-module-deps over the app and its jars,
# plus: java.logging for okio, java.xml for logback, jdk.unsupported for Kotlin/Jackson fast paths,
# jdk.crypto.ec for HTTPS servers with EC certificates, jdk.jfr to profile the installed app,
# java.security.jgss for the PostgreSQL driver behind `serve --db`, java.desktop for the tray icon
# (AWT SystemTray), jdk.security.auth and jdk.net for desktop notifications: dbus-java reads the
# user's uid for the bus's EXTERNAL login and the peer's credentials of the Unix socket).
MODULES=java.base,java.desktop,java.logging,java.management,java.naming,java.security.jgss,java.sql,java.xml,jdk.httpserver,jdk.unsupported,jdk.crypto.ec,jdk.jfr,jdk.net,jdk.security.auth,javafx.controls

# JVM options of the launcher: a small heap that starts at 16 MB and gives memory back (idle RSS
# 340 -> 287 MB in docs/benchmarks.md); the serial collector starts fastest; every 5 s the C heap's
# freed memory (the JIT compilers' arenas of the first seconds, ~20 MB) goes back to the system
# (-XX:TrimNativeHeapInterval, in OpenJDK 17.0.9 and later; build.sh drops it for a runtime without it).
# UTF-8 as the default charset whatever the locale, as Java 18+ has it (JEP 400): on Java 17 a C/POSIX
# locale would make it ASCII and every other character of stdout, files and logs a '?'. The arguments
# are decoded by the JVM in the locale's charset regardless; the launcher re-reads them as UTF-8.
# No hsperfdata counters (-XX:-UsePerfData): their sampler woke the "VM Periodic Task" thread 20 times a
# second all day, ~0.13 CPU-s a minute in the tray (docs/benchmarks.md); jcmd still attaches by pid, only
# jps/jstat no longer list the process.
JAVA_OPTIONS=(-Xms16m -Xmx256m -XX:MinHeapFreeRatio=10 -XX:MaxHeapFreeRatio=30 -XX:+UseSerialGC -Xss512k
              -XX:TrimNativeHeapInterval=5000 -XX:-UsePerfData -Dfile.encoding=UTF-8)

# JVM options of the launcher that only apply with JavaFX as named modules (the jlink image; run as a jar,
# JavaFX is on the class path and the JVM would warn about an unknown module): they let PulseGate stop
# JavaFX's 60 Hz pulse timer while no window shows (idle in the tray), which it reaches by reflection.
# Without them the app works as before, its FX thread waking 60 times a second in the tray.
FX_MODULE_OPTIONS=(--add-exports=javafx.graphics/com.sun.javafx.tk=ALL-UNNAMED
                   --add-exports=javafx.graphics/com.sun.glass.ui=ALL-UNNAMED
                   --add-opens=javafx.graphics/com.sun.javafx.tk.quantum=ALL-UNNAMED)

# JVM options the tray process's launcher (bin/leasesync-tray) adds. The tray process runs for hours doing
# little: the client compiler only, as C2's compilations of its first minutes cost it more memory and CPU
# than its code gains (docs/benchmarks.md: 165 -> 149 MB); and the JVM's own timers slowed down, HotSpot's
# diagnostic AsyncDeflationInterval (idle monitors looked for every 10 s, not 4 times a second) and
# GuaranteedSafepointInterval (a clean-up safepoint once a minute, not once a second): a bare JVM idles at
# ~7 CPU-ms a minute with them, ~38 without; and the libraries' timers slowed down: the JDK HTTP server of
# the embedded demo looks for idle connections every 60 s (not 10 s), HikariCP's housekeeper runs every
# 5 min (not 30 s; the tray closes its idle connections itself). desktop.resident.TrayProcessStart gives a
# tray process started with java the same.
TRAY_JAVA_OPTIONS=(-XX:TieredStopAtLevel=1 -XX:+UnlockDiagnosticVMOptions -XX:AsyncDeflationInterval=10000
                   -XX:GuaranteedSafepointInterval=60000 -Dsun.net.httpserver.clockTick=60000
                   -Dcom.zaxxer.hikari.housekeeping.periodMs=300000)
