package org.leasesync.keyring;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Which token: the one of {@code user} on the sync server whose first URL is {@code server}. In the
 * keyring these are the item's attributes {@code service=leasesync}, {@code server=…}, {@code user=…}
 * (what {@code secret-tool lookup service leasesync server URL user NAME} finds). Immutable.
 *
 * @param server the first server URL, as the account keeps it
 * @param user the user id
 */
public record TokenSlot(String server, String user) {

    /** The {@code service} attribute of every leasesync item. */
    public static final String SERVICE = "leasesync";

    public TokenSlot {
        Objects.requireNonNull(server, "server");
        Objects.requireNonNull(user, "user");
    }

    /** The item's attributes in the keyring. */
    public Map<String, String> attributes() {
        Map<String, String> a = new LinkedHashMap<>();
        a.put("service", SERVICE);
        a.put("server", server);
        a.put("user", user);
        return a;
    }

    /** The item's label, what a keyring manager (Seahorse, KWalletManager) shows. */
    public String label() {
        return "leasesync session of " + user + " on " + server;
    }

    @Override
    public String toString() {
        return user + " on " + server;
    }
}
