package org.leasesync.testing;

/**
 * A child process that prints what {@code ProcessHandle.info().startInstant()} says about a pid, in
 * epoch milliseconds ({@code START millis}) — the wall-clock-derived start the registry no longer
 * trusts. Tests use it to prove an {@code LD_PRELOAD} btime shift really took effect.
 */
public final class StartInstantMain {

    private StartInstantMain() {}

    public static void main(String[] args) {
        long pid = Long.parseLong(args[0]);
        long millis = ProcessHandle.of(pid)
                .flatMap(p -> p.info().startInstant())
                .map(i -> i.toEpochMilli())
                .orElseThrow(() -> new IllegalStateException("no start instant for pid " + pid));
        System.out.println("START " + millis);
    }
}
