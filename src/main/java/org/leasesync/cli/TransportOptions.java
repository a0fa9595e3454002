package org.leasesync.cli;

import java.nio.file.Path;
import java.util.Optional;
import org.leasesync.remote.TransportSecurity;
import picocli.CommandLine.Option;

/** {@code --allow-insecure-http} and {@code --ca-file}: how a command reaches its server safely. */
public final class TransportOptions {

    @Option(
            names = "--allow-insecure-http",
            description = "Allow a plain http:// server URL to another machine "
                    + "(the session token then crosses the network in clear: only on a network that is your own). Without "
                    + "it, http:// is allowed to this machine only (localhost, 127.0.0.0/8, ::1).")
    boolean allowInsecureHttp;

    @Option(
            names = "--ca-file",
            paramLabel = "PEM",
            description = "Trust the certificates in this PEM file (one or "
                    + "more) for https:// servers, besides the system's certificate authorities.")
    Path caFile;

    /** Whether either option was given. */
    boolean given() {
        return allowInsecureHttp || caFile != null;
    }

    /**
     * Reads the CA file, if given. Blocks on a small file read.
     *
     * @throws IllegalArgumentException naming --ca-file and what is wrong with it
     */
    TransportSecurity load() {
        try {
            return TransportSecurity.load(Optional.ofNullable(caFile), allowInsecureHttp);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid --ca-file: " + e.getMessage());
        }
    }
}
